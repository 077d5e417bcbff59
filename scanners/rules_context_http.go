package scanners

import (
	"bytes"
	"encoding/base64"
)

// The HTTP authorization family: a credential found by the scheme in front
// of it (Basic, Bearer, token, Bot, ...).

// httpAuthRules are basic-auth, bearer-token and authorization-header.
func httpAuthRules() []ruleDef {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	pw := base62Alphabet + "!@%^*+=-_"
	// mixed: a password-like value that surely mixes classes.
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
	basic := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return []ruleDef{
		{
			id: "basic-auth", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "HTTP Basic credentials: Basic and base64 of user:password (Authorization, Proxy-Authorization, curl -H); the base64 is replaced",
			forms: []form{basicForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Authorization: Basic " + basic("deploy:"+mixed(16, 1)),
					`curl -H "Proxy-Authorization: Basic ` + basic("proxyuser:"+mixed(12, 2)) + `" http://x`,
					`{"headers": {"Authorization": "Basic ` + basic("api:"+fakeChars(base62Alphabet, 32, 3)) + `"}}`,
				}
				fp = []string{
					"Authorization: Basic " + basic("username:password"),
					"Basic " + basic("no colon in this text at all"),
					"Basic instructions follow",
					"Authorization: Basic <base64(user:pass)>",
				}
				return
			},
		},
		{
			id: "bearer-token", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "Bearer token (Authorization: Bearer, and Bearer followed by a random-looking token anywhere); the token is replaced",
			forms: []form{bearerForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Authorization: Bearer " + fakeChars(base62Alphabet, 40, 1),
					`curl -H 'Authorization: Bearer ` + fakeChars(base62Alphabet+"._-", 60, 2) + `' https://api.example.com/v1`,
					"Proxy-Authorization: bearer " + fakeChars(b64, 32, 3) + "==",
				}
				fp = []string{
					"Authorization: Bearer ${TOKEN}",
					"Bearer tokens are sent in the Authorization header",
					"Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
					"Bearer abcdefghijklmnopqrstuvwxyz0123456789",
					"Authorization: Bearer <token>",
				}
				return
			},
		},
		{
			id: "authorization-header", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "credential of an Authorization header with another scheme (token, Bot, SSWS, ApiKey) or none; the credential is replaced",
			forms: []form{authHeaderForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Authorization: token " + fakeChars(hex, 40, 1),
					`{"Authorization": "Bot ` + fakeChars(base62Alphabet+".-_", 59, 2) + `"}`,
					"-H 'Authorization: " + fakeChars(base62Alphabet, 32, 3) + "'",
					"Authorization: SSWS " + fakeChars(base62Alphabet+"_-", 42, 4),
				}
				fp = []string{
					"Authorization: Bearer " + fakeChars(base62Alphabet, 40, 5), // bearer-token's
					"Authorization: Digest username=\"x\", realm=\"y\"",
					"Authorization: token ${GITHUB_TOKEN}",
					"authorization: required",
					"The Authorization header carries the credentials.",
				}
				return
			},
		},
	}
}

// tokenPlausible: the filters for a credential after an auth scheme.
func tokenPlausible(b []byte) bool {
	if len(b) < 16 || placeholder(b) || wordLike(b) || sequenceLike(b) || entropy(b) < 3.0 {
		return false
	}
	u, l, d := hasClasses(b)
	if !(u && l || u && d || l && d) {
		return false
	}
	// Upper case, digits and underscores only is a constant's name
	// (YOUR_ACCESS_TOKEN_HERE, API_KEY_2).
	if !l {
		letters := 0
		for _, c := range b {
			if setLetters[c] {
				letters++
			}
		}
		if bytes.IndexByte(b, '_') >= 0 && 2*letters > len(b) {
			return false
		}
	}
	return true
}

// tokenRun returns the end of the run of token bytes at i (at most
// ctxMaxToken), or resMore / resNo.
func tokenRun(v *view, i int) (int, resStatus) {
	d := v.data
	s := i
	for i < len(d) && i-s <= ctxMaxToken && setTokenChars[d[i]] {
		i++
	}
	if v.more(i) {
		return 0, resMore
	}
	if i-s > ctxMaxToken {
		return 0, resNo
	}
	return i, resMatch
}

// schemeForm is the shared shape of "<keyword> <credential>": the keyword
// not inside a word, 1..ctxMaxSpace spaces, a token run.
func bearerForm() form {
	return form{
		keywords:  []string{"bearer"},
		back:      1,
		ahead:     len("bearer") + ctxMaxSpace + ctxMaxToken + ctxMargin,
		notBefore: setAlnum,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setAlnum[d[ks-1]] {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke <= ctxMaxSpace && setCtxSpace[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == ke || i-ke > ctxMaxSpace {
				return noMatch
			}
			e, st := tokenRun(v, i)
			if st != resMatch {
				return result{status: st}
			}
			if !tokenPlausible(d[i:e]) {
				return noMatch
			}
			return result{status: resMatch, start: i, end: e}
		},
	}
}

// authHeaderForm: "authorization" (not after a letter or digit), an
// optional closing quote, spaces, ':' or '=', spaces, an optional quote,
// then either a scheme word (letters, digits, '-', up to 24 bytes) other
// than Basic, Bearer, Digest or AWS4-HMAC-SHA256 and spaces, or nothing; then
// the credential, a token run.
func authHeaderForm() form {
	const maxScheme = 24
	return form{
		keywords:  []string{"authorization"},
		back:      1,
		ahead:     len("authorization") + 2 + 2*ctxMaxSpace + 1 + 2 + maxScheme + ctxMaxSpace + ctxMaxToken + ctxMargin,
		notBefore: setAlnum,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setAlnum[d[ks-1]] {
				return noMatch
			}
			i := ke
			if v.more(i + 2) {
				return result{status: resMore}
			}
			if _, n := quoteAt(d, i); n > 0 {
				i += n
			}
			s := i
			for i < len(d) && i-s <= ctxMaxSpace && setCtxSpace[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-s > ctxMaxSpace || i >= len(d) || d[i] != ':' && d[i] != '=' {
				return noMatch
			}
			i++
			s = i
			for i < len(d) && i-s <= ctxMaxSpace && setCtxSpace[d[i]] {
				i++
			}
			if v.more(i + 2) {
				return result{status: resMore}
			}
			if i-s > ctxMaxSpace {
				return noMatch
			}
			_, n := quoteAt(d, i)
			i += n
			// A scheme word followed by spaces, or the credential itself.
			w := i
			for w < len(d) && w-i <= maxScheme && (setAlnum[d[w]] || d[w] == '-') {
				w++
			}
			if v.more(w + 1) {
				return result{status: resMore}
			}
			if w > i && w-i <= maxScheme && w < len(d) && setCtxSpace[d[w]] {
				scheme := d[i:w]
				for _, x := range []string{"basic", "bearer", "digest", "aws4-hmac-sha256", "negotiate", "ntlm"} {
					if len(scheme) == len(x) && containsFold(scheme, x) {
						return noMatch
					}
				}
				j := w
				for j < len(d) && j-w <= ctxMaxSpace && setCtxSpace[d[j]] {
					j++
				}
				if v.more(j) {
					return result{status: resMore}
				}
				if j-w > ctxMaxSpace {
					return noMatch
				}
				i = j
			}
			e, st := tokenRun(v, i)
			if st != resMatch {
				return result{status: st}
			}
			if e < len(d) && !setValueStop[d[e]] || !tokenPlausible(d[i:e]) {
				return noMatch
			}
			return result{status: resMatch, start: i, end: e}
		},
	}
}

// basicForm: "basic" (not inside a word), 1..ctxMaxSpace spaces, 8..1024
// base64 bytes and up to two '=', not followed by another base64 byte, that
// decode to "user:password" without control bytes whose password passes
// the password filters.
func basicForm() form {
	const maxB64 = 1024
	return form{
		keywords:  []string{"basic"},
		back:      1,
		ahead:     len("basic") + ctxMaxSpace + maxB64 + 2 + ctxMargin,
		notBefore: setAlnum,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setAlnum[d[ks-1]] {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke <= ctxMaxSpace && setCtxSpace[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == ke || i-ke > ctxMaxSpace {
				return noMatch
			}
			s := i
			for i < len(d) && i-s <= maxB64 && setBase64[d[i]] {
				i++
			}
			body := i
			for i < len(d) && i-body < 2 && d[i] == '=' {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if body-s < 8 || body-s > maxB64 || i < len(d) && setBase64Pad[d[i]] {
				return noMatch
			}
			if !basicCredOK(d[s:body]) {
				return noMatch
			}
			return result{status: resMatch, start: s, end: i}
		},
	}
}

// basicCredOK decodes unpadded standard base64 and checks "user:password":
// no control byte (binary data is no credential); bytes of 0x80 and up may
// stand in a password (RFC 7617 allows other charsets than ASCII).
func basicCredOK(b64 []byte) bool {
	var buf [768]byte
	if base64.RawStdEncoding.DecodedLen(len(b64)) > len(buf) {
		return false
	}
	n, err := base64.RawStdEncoding.Decode(buf[:], b64)
	if err != nil {
		return false
	}
	cred := buf[:n]
	for _, c := range cred {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	colon := bytes.IndexByte(cred, ':')
	if colon < 0 || colon == len(cred)-1 {
		return false
	}
	pass := cred[colon+1:]
	return !placeholder(pass) && !wordLike(pass) && !numberLike(pass) && !sequenceLike(pass)
}
