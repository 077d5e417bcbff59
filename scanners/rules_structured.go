package scanners

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/bits"
	"strings"
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
			id: "private-key-base64", provider: "generic", kind: KindSecret, confidence: "high",
			desc: "Base64 of a PEM private key (LS0tLS1CRUdJTi…, as in kubeconfig client-key-data or a Kubernetes Secret), the whole base64 run " +
				"(lines wrapped at 64 or 76 continue it); the decoded header must be a PRIVATE KEY label; longer than the window: fail closed",
			forms: []form{pemBase64Form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					base64.StdEncoding.EncodeToString([]byte(key("RSA PRIVATE KEY", 10))),
					"    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(key("EC PRIVATE KEY", 11))) + "\n    token: x",
					"tls.key: " + wrapB64(base64.StdEncoding.EncodeToString([]byte(key("PRIVATE KEY", 12))), 76) + "\nkind: Secret",
				}
				fp = []string{
					"    client-certificate-data: " + base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n"+fakeChars(base62Alphabet, 64, 13)+"\n-----END CERTIFICATE-----")),
					base64.StdEncoding.EncodeToString([]byte("-----BEGIN PUBLIC KEY-----\n" + fakeChars(base62Alphabet, 64, 14) + "\n-----END PUBLIC KEY-----")),
					"x" + base64.StdEncoding.EncodeToString([]byte(key("RSA PRIVATE KEY", 15))),
					"LS0tLS1CRUdJTi",
				}
				return
			},
		},
		{
			id: "jwt", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "JSON Web Token (eyJ header . payload . signature, header decodes to a JSON object with \"alg\", or header and payload both to JSON objects)",
			forms: []form{jwtForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					hdr + "." + pay + "." + fakeChars(b64u, 43, 1),
					"Authorization: Bearer " + hdrES + "." + pay + "." + fakeChars(b64u, 86, 2),
					"id_token=" + hdr + "." + pay + ".",
				}
				fp = []string{
					notJSON + "." + pay + "." + fakeChars(b64u, 43, 3),
					noAlg + "." + base64.RawURLEncoding.EncodeToString([]byte("not a JSON payload")) + "." + fakeChars(b64u, 43, 4),
					"eyJhbGciOiJIUzI1NiJ9 without dots",
					"x" + hdr + "." + pay + "." + fakeChars(b64u, 43, 5),
				}
				return
			},
		},
		{
			id: "private-key", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "PEM private key block, BEGIN to END; without an END within the window, fail closed (see pemContinue)",
			forms: []form{pemForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					key("RSA PRIVATE KEY", 1),
					"key:\n" + key("OPENSSH PRIVATE KEY", 10) + "\ntrailing text",
					key("PGP PRIVATE KEY BLOCK", 20),
					key("ENCRYPTED PRIVATE KEY", 30),
					"-----BEGIN PRIVATE KEY-----\n" + fakeChars(base62Alphabet, 64, 40) + "\n(truncated)",
					key("EC PRIVATE KEY", 41),
					key("DSA PRIVATE KEY", 42),
					// A service-account JSON file read as text: newlines are the
					// two characters backslash and n.
					`{"type": "service_account", "private_key": "` + strings.ReplaceAll(key("PRIVATE KEY", 43), "\n", `\n`) + `\n", "client_email": "x@p.iam.gserviceaccount.com"}`,
				}
				fp = []string{
					"-----BEGIN PUBLIC KEY-----\n" + fakeChars(base62Alphabet, 64, 50) + "\n-----END PUBLIC KEY-----",
					"-----BEGIN CERTIFICATE-----\n" + fakeChars(base62Alphabet, 64, 51) + "\n-----END CERTIFICATE-----",
					"the header -----BEGIN is followed by a label",
				}
				return
			},
		},
		{
			id: "putty-private-key", provider: "PuTTY", kind: KindSecret, confidence: "high",
			desc:  "PuTTY private key file (PuTTY-User-Key-File-2 or -3 with Private-Lines within 8 KiB), from the header to the end of the Private-MAC value; without one, fail closed",
			forms: []form{puttyForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					ppk("2", "none", 1),
					"cat ~/.ssh/id.ppk\n" + ppk("3", "aes256-cbc", 2) + "\n$ ",
					ppk("3", "none", 3)[:300],
				}
				fp = []string{
					"PuTTY-User-Key-File-2 is the format of .ppk files",
					"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: x\nPublic-Lines: 2\n" + fakeChars(base62Alphabet, 64, 4),
					"PuTTY-User-Key-File-4: ssh-rsa\nPrivate-Lines: 1\nAAAA",
				}
				return
			},
		},
		{
			id: "ssh2-private-key", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "SSH2 (RFC 4716 style, ssh.com) private key block, BEGIN to END; without an END, fail closed",
			forms: []form{ssh2Form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					ssh2Begin + "\nComment: \"rsa-key\"\n" + fakeChars(base62Alphabet+"+/", 64, 5) + "\n" + fakeChars(base62Alphabet+"+/", 64, 6) + "\n" + ssh2End,
					"key:\n" + ssh2Begin + "\n" + fakeChars(base62Alphabet+"+/", 64, 7) + "\n" + ssh2End + "\nrest",
					ssh2Begin + "\n" + fakeChars(base62Alphabet+"+/", 64, 8) + "\n(truncated)",
				}
				fp = []string{
					"---- BEGIN SSH2 PUBLIC KEY ----\n" + fakeChars(base62Alphabet+"+/", 64, 9) + "\n---- END SSH2 PUBLIC KEY ----",
					"---- begin ssh2 encrypted private key ---- (lower case is not the format)",
					"----- BEGIN SSH2 ENCRYPTED PRIVATE KEY",
				}
				return
			},
		},
	}
}

const (
	ssh2Begin = "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
	ssh2End   = "---- END SSH2 ENCRYPTED PRIVATE KEY ----"
	// pemAuxWindow bounds how far the PuTTY and SSH2 rules look for the end
	// of a key (keys are a few KiB); beyond it they fail closed.
	pemAuxWindow = 16 << 10
	// puttyHeaderMax is how far from its header a PuTTY key must show
	// Private-Lines.
	puttyHeaderMax = 8 << 10
)

// ppk builds a PuTTY key file for the example tables.
func ppk(version, enc string, seed uint32) string {
	b := func(n int, s uint32) string { return fakeChars(base62Alphabet+"+/", n, s) }
	return "PuTTY-User-Key-File-" + version + ": ssh-rsa\nEncryption: " + enc + "\nComment: rsa-key-20250101\nPublic-Lines: 2\n" +
		b(64, seed) + "\n" + b(40, seed+1) + "\nPrivate-Lines: 3\n" + b(64, seed+2) + "\n" + b(64, seed+3) + "\n" + b(20, seed+4) +
		"\nPrivate-MAC: " + fakeChars("0123456789abcdef", 64, seed+5)
}

// wrapB64 inserts a newline every n bytes.
func wrapB64(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n])
		b.WriteByte('\n')
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// failClosed is how the PuTTY, SSH2 and base64 key rules end when the end of
// the key is not within win bytes of ks: the rest of the string when it ends
// before win (or more bytes are needed to know), else an open match that
// pemContinue extends.
func failClosed(v *view, ks, win int) result {
	d := v.data
	if q := keyStringEnd(d, ks, ks, min(len(d), win)); q >= 0 {
		return result{status: resMatch, start: ks, end: q}
	}
	if len(d) < win {
		if !v.atEnd {
			return result{status: resMore}
		}
		return result{status: resMatch, start: ks, end: len(d)}
	}
	return result{status: resOpen, start: ks, end: win}
}

// keyStringEnd returns where the JSON string holding a key block that
// begins at ks ends, searching d[from:to], or -1. A key block in text that
// is JSON (a key file read into a JSON document: newlines written as the
// escape "\n", "\\n" one level deeper) lies inside a string, which ends at
// its closing quote; the fail-closed extent of a block without an END, or an
// END in another string, must not run over it, or the JSON around the key
// breaks. The level is read from the first line end after ks (a newline:
// plain text, no JSON; a run of 2^(L-1) backslashes and "n": level L); at
// level L a quote of the key's own text (an SSH2 Comment header) follows a
// run of k*2^L + 2^L-1 backslashes, any other quote ends a string, before
// the backslashes that escape it.
func keyStringEnd(d []byte, ks, from, to int) int {
	level := 0
	for i := ks; i < min(len(d), ks+keyLevelSearch); i++ {
		if d[i] == '\n' {
			break
		}
		if d[i] == '\\' {
			r := 0
			for i+r < len(d) && d[i+r] == '\\' {
				r++
			}
			if i+r < len(d) && d[i+r] == 'n' && r <= 8 && r&(r-1) == 0 {
				level = 1 + bits.TrailingZeros(uint(r))
			}
			break
		}
	}
	if level == 0 {
		return -1
	}
	for i := from; i < to; {
		q := bytes.IndexByte(d[i:to], '"')
		if q < 0 {
			return -1
		}
		q += i
		r := 0
		for q-r-1 >= ks && d[q-r-1] == '\\' {
			r++
		}
		if (r+1)%(1<<level) != 0 {
			// Not a quote of the key's text: it ends the string at
			// level 1 + trailing zeros of r+1, whose own backslashes are
			// the last of the run; the rest are escaped backslashes of
			// the string.
			return q - (1<<bits.TrailingZeros(uint(r+1)) - 1)
		}
		i = q + 1
	}
	return -1
}

// keyLevelSearch bounds the search for the first line end of a key block
// (its BEGIN line).
const keyLevelSearch = 128

// puttyForm: "PuTTY-User-Key-File-" (case-sensitive), '2' or '3', ':';
// "Private-Lines:" must follow within puttyHeaderMax bytes of the header
// start. The match runs to the end of the hex value after the first
// "Private-MAC:" (and at most 8 blanks) within pemAuxWindow bytes; without
// one, it fails closed (failClosed).
func puttyForm() form {
	return form{
		keywords: []string{"putty-user-key-file-"},
		back:     1,
		ahead:    pemAuxWindow + 12 + 9 + 129,
		check: func(v *view, ks, ke int) result {
			d := v.data
			c := scanCursor{d: d}
			if string(d[ks:ke]) != "PuTTY-User-Key-File-" {
				return noMatch
			}
			if b := c.at(ke); b != '2' && b != '3' || c.at(ke+1) != ':' {
				return c.done(v, noMatch)
			}
			hl := min(len(d), ks+puttyHeaderMax)
			pl := bytes.Index(d[ke:hl], []byte("Private-Lines:"))
			if pl < 0 {
				if hl < ks+puttyHeaderMax && !v.atEnd {
					return result{status: resMore}
				}
				return noMatch
			}
			from := ke + pl
			win := ks + pemAuxWindow
			if m := bytes.Index(d[from:min(len(d), win)], []byte("Private-MAC:")); m >= 0 {
				i := c.run(from+m+12, setSpaceTab, 8)
				e := c.run(i, setHexAny, 128)
				if c.short && !v.atEnd {
					return result{status: resMore}
				}
				return result{status: resMatch, start: ks, end: min(e, i+128)}
			}
			return failClosed(v, ks, win)
		},
	}
}

// ssh2Form: the SSH2 BEGIN line (case-sensitive) to the end of the first
// SSH2 END line within pemAuxWindow bytes; without one, it fails closed.
func ssh2Form() form {
	return form{
		keywords: []string{strings.ToLower(ssh2Begin)},
		back:     1,
		ahead:    pemAuxWindow + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != ssh2Begin {
				return noMatch
			}
			win := ks + pemAuxWindow
			to := min(len(d), win)
			q := keyStringEnd(d, ks, ke, to)
			if q >= 0 {
				to = q // an END after the JSON string holding the key is not its END
			}
			if m := bytes.Index(d[ke:to], []byte(ssh2End)); m >= 0 {
				return result{status: resMatch, start: ks, end: ke + m + len(ssh2End)}
			}
			if q >= 0 {
				return result{status: resMatch, start: ks, end: q}
			}
			return failClosed(v, ks, win)
		},
	}
}

// pemB64Prefix is the base64 of "-----BEGIN" at the start of a value.
const pemB64Prefix = "LS0tLS1CRUdJTi"

// pemBase64Form: "LS0tLS1CRUdJTi" (case-sensitive) not preceded by
// [A-Za-z0-9+/], then a run of [A-Za-z0-9+/=]; a line of exactly 64 or 76
// bytes followed by "\n" or "\r\n" and another base64 byte goes on into the
// next line. The first 88 base64 bytes of the run (fewer, rounded down to a
// multiple of 4, if it is shorter) must decode to "-----BEGIN " and a label
// of at most 48 [A-Z0-9 ] ending in PRIVATE KEY or PRIVATE KEY BLOCK,
// followed by "-----". The match is the run; if it reaches pemWindow bytes
// it fails closed.
func pemBase64Form() form {
	return form{
		keywords:  []string{strings.ToLower(pemB64Prefix)},
		back:      1,
		ahead:     pemWindow + 1,
		notBefore: setBase64,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != pemB64Prefix || ks > 0 && setBase64[d[ks-1]] {
				return noMatch
			}
			win := ks + pemWindow
			var hdr [88]byte
			nh := 0
			i, line := ks, ks
			for {
				for i < len(d) && i < win && setBase64Pad[d[i]] {
					if nh < len(hdr) {
						hdr[nh] = d[i]
						nh++
					}
					i++
				}
				if i >= win {
					break
				}
				if i >= len(d) {
					if !v.atEnd {
						return result{status: resMore}
					}
					break
				}
				n := i - line
				j := i
				if d[j] == '\r' {
					j++
				}
				if n != 64 && n != 76 || j >= len(d) && !v.atEnd {
					if n == 64 || n == 76 {
						return result{status: resMore}
					}
					break
				}
				if j >= len(d) || d[j] != '\n' || j+1 >= win {
					break
				}
				if j+1 >= len(d) {
					if !v.atEnd {
						return result{status: resMore}
					}
					break
				}
				if !setBase64Pad[d[j+1]] {
					break
				}
				i, line = j+1, j+1
			}
			if !pemB64HeaderOK(hdr[:nh&^3]) {
				return noMatch
			}
			if i >= win {
				return result{status: resOpen, start: ks, end: win}
			}
			return result{status: resMatch, start: ks, end: i}
		},
	}
}

// pemB64HeaderOK decodes the start of a base64 PEM and checks its label.
func pemB64HeaderOK(b []byte) bool {
	var out [66]byte
	n, err := base64.StdEncoding.Decode(out[:], b)
	if err != nil {
		return false
	}
	h := out[:n]
	if !bytes.HasPrefix(h, []byte("-----BEGIN ")) {
		return false
	}
	h = h[11:]
	k := bytes.Index(h, []byte("-----"))
	if k < 0 || k > 48 {
		return false
	}
	for _, c := range h[:k] {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ' ') {
			return false
		}
	}
	l := bytes.TrimRight(h[:k], " ")
	return bytes.HasSuffix(l, []byte("PRIVATE KEY")) || bytes.HasSuffix(l, []byte("PRIVATE KEY BLOCK"))
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
			if !jwtHeaderOK(d[ks:h]) && !(jwtObject(d[ks:h], false) && jwtObject(d[h+1:p], false)) {
				return noMatch
			}
			return result{status: resMatch, start: ks, end: e}
		},
	}
}

// jwtHeaderOK decodes a base64url header (no padding) without allocating and
// checks that it is a JSON object with an "alg" member name.
func jwtHeaderOK(seg []byte) bool { return jwtObject(seg, true) }

// jwtObject decodes a base64url segment (no padding, at most jwtMaxObject
// bytes decoded) without allocating and checks that it is a JSON object,
// holding an "alg" member name if alg. A header without "alg" is a token
// still when the payload is a JSON object too (RFC 7515's examples carry a
// nonce header).
func jwtObject(seg []byte, alg bool) bool {
	var buf [jwtMaxObject]byte
	if base64.RawURLEncoding.DecodedLen(len(seg)) > len(buf) {
		return false
	}
	n, err := base64.RawURLEncoding.Decode(buf[:], seg)
	if err != nil {
		return false
	}
	h := bytes.TrimSpace(buf[:n])
	return len(h) > 1 && h[0] == '{' && (!alg || bytes.Contains(h, []byte(`"alg"`))) && json.Valid(h)
}

// jwtMaxObject bounds a decoded JWT segment that is checked for JSON.
const jwtMaxObject = 6144

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
			if q := keyStringEnd(d, ks, hdrEnd, to); q >= 0 {
				// The JSON string holding the key ends first: no END of
				// this key can follow inside it.
				to = q
				if from > to {
					from = to
				}
			}
			if from < to {
				if j := bytes.Index(d[from:to], []byte("-----END")); j >= 0 {
					if pemBodyBytes(d[hdrEnd:from+j]) < pemMinBody && string(l) != "PRIVATE KEY" {
						// No key between the markers ("anything", nothing).
						// A PKCS#8 block is the seed's pattern: removed
						// whatever it holds.
						return noMatch
					}
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
			if to < min(len(d), win) {
				return result{status: resMatch, start: ks, end: to}
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

// pemMinBody is the fewest base64 letters and digits a closed private-key
// block holds between its markers (the smallest real key, an Ed25519 one,
// has over 200); not asked of a PKCS#8 block (BEGIN PRIVATE KEY), which the
// seed's guard removes whatever it holds.
const pemMinBody = 32

// pemBodyBytes counts the base64 letters and digits of b.
func pemBodyBytes(b []byte) int {
	n := 0
	for _, c := range b {
		if setAlnum[c] || c == '+' || c == '/' {
			n++
		}
	}
	return n
}

// setPEMBody is what pemContinue keeps redacting after the window: base64,
// whitespace and backslash (a key inside JSON text, where a newline is the
// two characters backslash and n, and '/' may be escaped as backslash '/').
var setPEMBody = makeSet("A-Za-z0-9+/=\t\n\f\r \\")

// pemContinue extends an open private-key match over d[i:]: it consumes
// base64 and whitespace bytes; at "-----END" it consumes the marker and its
// label up to the closing "-----" (searched within pemCloseSearch bytes) and
// stops; at any other byte, or at the end of the string, it stops. It returns
// how far it got, whether the match ended there, and never needs more than
// 8+pemCloseSearch bytes of look-ahead at an END marker.
func pemContinue(d []byte, i int, atEnd bool) (next int, done bool) {
	i0 := i
	for i < len(d) && setPEMBody[d[i]] {
		i++
	}
	if i >= len(d) {
		return i, atEnd
	}
	if d[i] == '"' {
		// The end of the JSON string holding the key: its backslashes
		// are the quote's, not the key's.
		for i > i0 && d[i-1] == '\\' {
			i--
		}
		return i, true
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
