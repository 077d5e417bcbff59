package scanners

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// Formats with inner structure: JSON Web Tokens and PEM private keys.

func structuredRules() []ruleDef {
	b64u := base62Alphabet + "_-"
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	hdrES := base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT","alg":"ES256","kid":"k1"}`))
	pay := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"1234567890","name":"A","iat":1516239022}`))
	notJSON := base64.RawURLEncoding.EncodeToString([]byte(`{"alg" HS256`))
	noAlg := base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT"}`))
	key := func(label string, seed uint32) string {
		body := ""
		for i := uint32(0); i < 5; i++ {
			body += fakeChars(base62Alphabet+"+/", 64, seed+i) + "\n"
		}
		return "-----BEGIN " + label + "-----\n" + body + "-----END " + label + "-----"
	}
	return []ruleDef{
		{
			id: "jwt", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "JSON Web Token (eyJ header . payload . signature, header decodes to a JSON object with \"alg\")",
			forms: []form{jwtForm()},
			tp: []string{
				hdr + "." + pay + "." + fakeChars(b64u, 43, 1),
				"Authorization: Bearer " + hdrES + "." + pay + "." + fakeChars(b64u, 86, 2),
				"id_token=" + hdr + "." + pay + ".",
			},
			fp: []string{
				notJSON + "." + pay + "." + fakeChars(b64u, 43, 3),
				noAlg + "." + pay + "." + fakeChars(b64u, 43, 4),
				"eyJhbGciOiJIUzI1NiJ9 without dots",
				"x" + hdr + "." + pay + "." + fakeChars(b64u, 43, 5),
			},
		},
		{
			id: "private-key", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "PEM private key block, BEGIN to END; without an END within the window, fail closed (see pemContinue)",
			forms: []form{pemForm()},
			tp: []string{
				key("RSA PRIVATE KEY", 1),
				"key:\n" + key("OPENSSH PRIVATE KEY", 10) + "\ntrailing text",
				key("PGP PRIVATE KEY BLOCK", 20),
				key("ENCRYPTED PRIVATE KEY", 30),
				"-----BEGIN PRIVATE KEY-----\n" + fakeChars(base62Alphabet, 64, 40) + "\n(truncated)",
			},
			fp: []string{
				"-----BEGIN PUBLIC KEY-----\n" + fakeChars(base62Alphabet, 64, 50) + "\n-----END PUBLIC KEY-----",
				"-----BEGIN CERTIFICATE-----\n" + fakeChars(base62Alphabet, 64, 51) + "\n-----END CERTIFICATE-----",
				"the header -----BEGIN is followed by a label",
			},
		},
	}
}

var setB64URL = makeSet("A-Za-z0-9_-")

// jwtForm: eyJ, then three base64url segments joined by dots (the third may
// be empty), at most jwtMaxLen bytes, not preceded by a base64url byte or a
// dot, whose first segment (at most jwtMaxHeader bytes) decodes to valid JSON
// that is an object containing "alg".
func jwtForm() form {
	const jwtMaxHeader, jwtMaxLen = 1024, 8192
	notBefore := makeSet("A-Za-z0-9_.-")
	return form{
		keywords:  []string{"eyj"},
		back:      1,
		ahead:     jwtMaxLen + 1,
		notBefore: notBefore,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != "eyJ" || ks > 0 && notBefore[d[ks-1]] {
				return noMatch
			}
			lim := ks + jwtMaxLen
			seg := func(i, max int) int {
				for i < len(d) && i < max && setB64URL[d[i]] {
					i++
				}
				return i
			}
			h := seg(ks, ks+jwtMaxHeader+1)
			if h-ks > jwtMaxHeader {
				return noMatch
			}
			if v.more(h) {
				return result{status: resMore}
			}
			if h >= len(d) || d[h] != '.' {
				return noMatch
			}
			p := seg(h+1, lim+1)
			if v.more(p) {
				return result{status: resMore}
			}
			if p-(h+1) < 2 || p >= len(d) || d[p] != '.' {
				return noMatch
			}
			e := seg(p+1, lim+1)
			if e > lim {
				return noMatch
			}
			if v.more(e) {
				return result{status: resMore}
			}
			if !jwtHeaderOK(d[ks:h]) {
				return noMatch
			}
			return result{status: resMatch, start: ks, end: e}
		},
	}
}

// jwtHeaderOK decodes a base64url header (no padding) without allocating and
// checks that it is a JSON object with an "alg" member name.
func jwtHeaderOK(seg []byte) bool {
	var buf [768]byte
	if base64.RawURLEncoding.DecodedLen(len(seg)) > len(buf) {
		return false
	}
	n, err := base64.RawURLEncoding.Decode(buf[:], seg)
	if err != nil {
		return false
	}
	h := bytes.TrimSpace(buf[:n])
	return len(h) > 1 && h[0] == '{' && bytes.Contains(h, []byte(`"alg"`)) && json.Valid(h)
}

// pemWindow is how far from "-----BEGIN" the private-key rule looks for the
// END marker; it keeps the rule's hold-back under MaxHold.
const pemWindow = MaxHold - 512

// pemCloseSearch bounds the search for the "-----" closing an END label.
const pemCloseSearch = 85

// pemForm: "-----BEGIN " + label + "-----" where the label (at most 48 of
// [A-Z0-9 ]) ends in "PRIVATE KEY" or "PRIVATE KEY BLOCK". The match runs to
// the end of the first "-----END" (and its label up to the closing "-----",
// searched within pemCloseSearch bytes) that lies inside pemWindow bytes from
// the BEGIN. Without one, it fails closed: the match covers the window (or the
// rest of the string if shorter) and continues as described at pemContinue.
func pemForm() form {
	label := makeSet("A-Z0-9 ")
	return form{
		keywords: []string{"-----begin"},
		back:     1,
		ahead:    pemWindow + pemCloseSearch + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != "-----BEGIN" {
				return noMatch
			}
			i := ke
			if v.more(i) {
				return result{status: resMore}
			}
			if i >= len(d) || d[i] != ' ' {
				return noMatch
			}
			i++
			s := i
			for i < len(d) && i-s <= 48 && label[d[i]] {
				i++
			}
			if v.more(i + 4) {
				return result{status: resMore}
			}
			l := bytes.TrimRight(d[s:i], " ")
			if i-s > 48 || !bytes.HasPrefix(d[i:], []byte("-----")) ||
				!(bytes.HasSuffix(l, []byte("PRIVATE KEY")) || bytes.HasSuffix(l, []byte("PRIVATE KEY BLOCK"))) {
				return noMatch
			}
			hdrEnd := i + 5
			win := ks + pemWindow
			from := hdrEnd
			if v.hint != nil && *v.hint-v.base-8 > int64(from) {
				from = int(*v.hint - v.base - 8)
			}
			to := min(len(d), win)
			if from < to {
				if j := bytes.Index(d[from:to], []byte("-----END")); j >= 0 {
					e := from + j + 8
					if c := bytes.Index(d[e:min(len(d), e+pemCloseSearch)], []byte("-----")); c >= 0 {
						return result{status: resMatch, start: ks, end: e + c + 5}
					}
					if v.more(e + pemCloseSearch) {
						return result{status: resMore}
					}
					return result{status: resMatch, start: ks, end: e}
				}
			}
			if v.hint != nil {
				*v.hint = v.base + int64(to)
			}
			if len(d) < win {
				if !v.atEnd {
					return result{status: resMore}
				}
				return result{status: resMatch, start: ks, end: len(d)}
			}
			return result{status: resOpen, start: ks, end: win}
		},
	}
}

// setPEMBody is what pemContinue keeps redacting after the window: base64
// and whitespace.
var setPEMBody = makeSet("A-Za-z0-9+/=\t\n\f\r ")

// pemContinue extends an open private-key match over d[i:]: it consumes
// base64 and whitespace bytes; at "-----END" it consumes the marker and its
// label up to the closing "-----" (searched within pemCloseSearch bytes) and
// stops; at any other byte, or at the end of the string, it stops. It returns
// how far it got, whether the match ended there, and never needs more than
// 8+pemCloseSearch bytes of look-ahead at an END marker.
func pemContinue(d []byte, i int, atEnd bool) (next int, done bool) {
	for i < len(d) && setPEMBody[d[i]] {
		i++
	}
	if i >= len(d) {
		return i, atEnd
	}
	if d[i] != '-' {
		return i, true
	}
	if len(d)-i < 8 {
		if atEnd {
			return i, true
		}
		return i, false
	}
	if string(d[i:i+8]) != "-----END" {
		return i, true
	}
	e := i + 8
	if c := bytes.Index(d[e:min(len(d), e+pemCloseSearch)], []byte("-----")); c >= 0 {
		return e + c + 5, true
	}
	if len(d) < e+pemCloseSearch && !atEnd {
		return i, false
	}
	return e, true
}
