package scanners

import (
	"bytes"
	"encoding/base64"
	"math"
)

// Generic context rules: secrets without a provider prefix, found by the
// name they are assigned to (password=, api_key:, "token": "..."), by the
// HTTP authorization scheme in front of them (Basic, Bearer, token, ...), or
// by their place in a URL (scheme://user:password@host).
//
// What is replaced: the value only. The key, the operator, the quotes, the
// scheme word and the user name stay visible, so "password=[REDACTED:...]"
// still tells a reader which setting was there. Every rule here comes after
// the provider rules in RuleID order: when a provider rule matches the same
// span (a ghp_ token assigned to GITHUB_TOKEN, a postgres URL's password), the
// provider's id is reported.
//
// What is not redacted, by decision (see the filters in plausibleValue):
//
//   - template placeholders and references: ${VAR}, $(cmd), {{ var }},
//     {% x %}, %(x)s, %s, %VAR%, #{x}, <password>, [hidden], $VAR, and
//     values containing "example", "placeholder", "changeme", "redacted",
//     "your_"/"your-", "xxxx" or "***" (a well-known default such as
//     "changeme" protects nothing by being hidden);
//   - masks (only *, x, X, ., #, ?, - and _), booleans, null, numbers;
//   - words and identifiers: a value of letters only (and, quoted, spaces)
//     is a word, a type name or a variable, not a credential; unquoted
//     values that are code (a dotted path like self.password, a call, an
//     index) likewise;
//   - sequences and repeats ("abc123", "aaaaaaaa"), and values below an
//     entropy threshold per rule (Shannon bits per byte);
//   - for the bare names "token" and "secret" only (a pagination token, a
//     commit, a request id are often called that): UUIDs and hex strings of
//     32, 40 or 64 digits. After a specific name (api_key, access_token,
//     client_secret, password) those shapes are redacted: many real API keys
//     are UUIDs or 32 hex digits.
//
// Key names: the keyword may sit inside a longer name (DB_PASSWORD,
// spring.datasource.password, clientSecret, x-api-key); a suffix after it
// must start a new word (_, -, ., a digit, an upper-case letter after a
// lower-case one, or a plural s) and must not name something that is not the
// secret itself (password_file, token_url, api_key_id, secret_name, ...).
// Names ending in page/next/cursor/continuation before "token" are pagination
// cursors, not credentials.

// assignClass selects the thresholds of an assignment rule.
type assignClass uint8

const (
	classPassword assignClass = iota
	classSecret
	classToken
)

// Limits of the context rules.
const (
	ctxMaxPrefix = 32  // bytes of key name before the keyword that are looked at
	ctxMaxSuffix = 24  // bytes of key name after the keyword
	ctxMaxSpace  = 8   // spaces or tabs around an operator
	ctxMaxValue  = 200 // longest assigned value considered
	ctxMaxToken  = 4096
	ctxMargin    = 16 // look-ahead slack over what the checks read
)

var (
	setIdent    = makeSet("A-Za-z0-9_.-")
	setCtxSpace = makeSet(" \t")
	// setValueStop ends an unquoted value.
	setValueStop = union(makeSet("\x00-\x20\"'`,;&)]}<>\\\x7f"))
	// setTokenChars is RFC 6750's b64token alphabet (and '~').
	setTokenChars = makeSet("A-Za-z0-9._~+/=-")
	setMask       = makeSet("*xX.#?_-")
)

// Names after the keyword that describe something else than the secret.
var suffixDeny = []string{
	"id", "ids", "file", "files", "path", "dir", "hash", "hashed", "digest", "sha", "md5", "len", "length",
	"min", "max", "size", "count", "policy", "field", "name", "names", "type", "kind", "url", "uri", "endpoint",
	"host", "expiry", "expires", "expiration", "exp", "ttl", "lifetime", "header", "prompt", "label", "hint",
	"required", "enabled", "reset", "version", "ref", "arn", "env", "var", "mode", "format", "limit", "provider",
	"used", "usage", "budget", "index", "bytes", "chars", "prefix", "suffix", "placeholder", "input", "manager",
	"store", "storage", "location", "strength", "regex", "pattern", "rotation", "created", "updated", "at",
}

// Names before "token" that make it a pagination or accounting term.
var prefixDeny = []string{"page", "next", "prev", "previous", "continuation", "cursor", "sync", "pagination", "resume", "max", "num", "total"}

// Substrings (lower case) that make a value a placeholder.
var placeholderWords = []string{
	"example", "placeholder", "changeme", "change_me", "change-me", "redacted", "your_", "your-", "yourpass",
	"xxxx", "***", "${", "{{", "{%", "%(", "#{", "<%", "://", "-----begin", "dummy", "sample",
}

// placeholderByFirst lists the placeholderWords by their first byte, in
// both cases for letters.
var placeholderByFirst = func() (t [256][]string) {
	for _, w := range placeholderWords {
		c := w[0]
		t[c] = append(t[c], w)
		if 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] = append(t[c-'a'+'A'], w)
		}
	}
	return t
}()

// hasPlaceholderWord reports whether b contains one of placeholderWords,
// ASCII case-insensitively: one walk over b, trying only the words that
// start with each byte.
func hasPlaceholderWord(b []byte) bool {
	for i, c := range b {
		for _, w := range placeholderByFirst[c] {
			if ok, _ := matchFold(b, i, w); ok {
				return true
			}
		}
	}
	return false
}

// contextRules are the generic rules for unprefixed secrets.
func contextRules() []ruleDef {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	pw := base62Alphabet + "!@%^*+=-_"
	// mixed: a password-like value that surely mixes classes.
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
	basic := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return []ruleDef{
		{
			id: "password-assignment", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "value assigned to a password, passwd or passphrase name (env, YAML, JSON, code, --password flags); the value is replaced",
			forms: []form{assignForm(classPassword, []string{"password", "passwd", "passphrase"})},
			tp: []string{
				"DB_PASSWORD=" + mixed(14, 1),
				"  password: \"" + mixed(12, 2) + "\"",
				`{"user": "svc", "password": "` + mixed(16, 3) + `"}`,
				"mysql --user=root --password " + mixed(18, 4),
				"export PGPASSWORD='" + mixed(20, 5) + "'",
				`conn = connect(host="db", passwd="` + mixed(24, 6) + `")`,
				"DB_PASSWORD=XUYCk3Lp9QwE.k4rNz7Hq",
			},
			fp: []string{
				"password: ${DB_PASSWORD}",
				"password = cfg.Auth0ClientSecret",
				"password=changeme",
				`"password": "********"`,
				"password = os.getenv(\"DB_PASSWORD\")",
				"password_min_length=12",
				"Enter your password: it must be long",
				"passwordless login is enabled",
				"password: {{ .Values.db.password }}",
				"hide_password: true",
			},
		},
		{
			id: "secret-assignment", provider: "generic", kind: KindSecret, confidence: "medium",
			desc: "value assigned to a secret or API key name (client_secret, SECRET_KEY, api_key, apikey, access_key, private_key); the value is replaced",
			forms: []form{assignForm(classSecret, []string{
				"secret", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key",
			})},
			tp: []string{
				"CLIENT_SECRET=" + fakeChars(base62Alphabet, 32, 1),
				"api_key: " + fakeChars(hex, 32, 2),
				`{"apiKey": "` + fakeChars(base62Alphabet+"_-", 40, 3) + `"}`,
				"curl -H 'x-api-key: " + fakeChars(base62Alphabet, 28, 4) + "' https://api.example.com",
				"--client-secret " + fakeChars(base62Alphabet, 30, 5),
				"SECRET_KEY = '" + mixed(50, 6) + "'",
			},
			fp: []string{
				"client_secret: <your-client-secret>",
				"secret: " + fakeChars(hex, 40, 7),
				"api_key_id = 12345678",
				"secret_name: prod-db-credentials",
				"apiKey: process.env.API_KEY",
				"the secret: is in the vault",
				"secretary=Jane",
			},
		},
		{
			id: "token-assignment", provider: "generic", kind: KindSecret, confidence: "low",
			desc:  "value assigned to a token name (access_token, auth_token, refresh_token, GITHUB_TOKEN, --token); the value is replaced",
			forms: []form{assignForm(classToken, []string{"token"})},
			tp: []string{
				"ACCESS_TOKEN=" + fakeChars(base62Alphabet, 40, 1),
				`{"refresh_token": "` + fakeChars(base62Alphabet+"._-", 64, 2) + `"}`,
				"gh auth login --token " + fakeChars(base62Alphabet, 36, 3),
				"token: " + fakeChars(base62Alphabet, 24, 4),
				"authToken = \"" + fakeChars(b64, 44, 5) + "\"",
			},
			fp: []string{
				`"nextPageToken": "` + fakeChars(base62Alphabet, 40, 6) + `"`,
				"token: 550e8400-e29b-41d4-a716-446655440000",
				`"token_type": "Bearer"`,
				"max_tokens=4096",
				"tokenizer = AutoTokenizer.from_pretrained(name)",
				"token=" + fakeChars(hex, 64, 7),
				"token_url: https://auth.example.com/oauth/token",
			},
		},
		{
			id: "basic-auth", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "HTTP Basic credentials: Basic and base64 of user:password (Authorization, Proxy-Authorization, curl -H); the base64 is replaced",
			forms: []form{basicForm()},
			tp: []string{
				"Authorization: Basic " + basic("deploy:"+mixed(16, 1)),
				`curl -H "Proxy-Authorization: Basic ` + basic("proxyuser:"+mixed(12, 2)) + `" http://x`,
				`{"headers": {"Authorization": "Basic ` + basic("api:"+fakeChars(base62Alphabet, 32, 3)) + `"}}`,
			},
			fp: []string{
				"Authorization: Basic " + basic("username:password"),
				"Basic " + basic("no colon in this text at all"),
				"Basic instructions follow",
				"Authorization: Basic <base64(user:pass)>",
			},
		},
		{
			id: "bearer-token", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "Bearer token (Authorization: Bearer, and Bearer followed by a random-looking token anywhere); the token is replaced",
			forms: []form{bearerForm()},
			tp: []string{
				"Authorization: Bearer " + fakeChars(base62Alphabet, 40, 1),
				`curl -H 'Authorization: Bearer ` + fakeChars(base62Alphabet+"._-", 60, 2) + `' https://api.example.com/v1`,
				"Proxy-Authorization: bearer " + fakeChars(b64, 32, 3) + "==",
			},
			fp: []string{
				"Authorization: Bearer ${TOKEN}",
				"Bearer tokens are sent in the Authorization header",
				"Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
				"Bearer abcdefghijklmnopqrstuvwxyz0123456789",
				"Authorization: Bearer <token>",
			},
		},
		{
			id: "authorization-header", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "credential of an Authorization header with another scheme (token, Bot, SSWS, ApiKey) or none; the credential is replaced",
			forms: []form{authHeaderForm()},
			tp: []string{
				"Authorization: token " + fakeChars(hex, 40, 1),
				`{"Authorization": "Bot ` + fakeChars(base62Alphabet+".-_", 59, 2) + `"}`,
				"-H 'Authorization: " + fakeChars(base62Alphabet, 32, 3) + "'",
				"Authorization: SSWS " + fakeChars(base62Alphabet+"_-", 42, 4),
			},
			fp: []string{
				"Authorization: Bearer " + fakeChars(base62Alphabet, 40, 5), // bearer-token's
				"Authorization: Digest username=\"x\", realm=\"y\"",
				"Authorization: token ${GITHUB_TOKEN}",
				"authorization: required",
				"The Authorization header carries the credentials.",
			},
		},
		{
			id: "url-credentials", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "password in the user information of a URL (any scheme://user:password@host); the password is replaced, user and host stay",
			forms: []form{urlCredForm()},
			tp: []string{
				"https://deploy:" + mixed(16, 1) + "@git.example.com/org/repo.git",
				"wss://svc:" + fakeChars(base62Alphabet, 24, 2) + "@stream.internal:8443/feed",
				"proxy=http://proxyuser:" + fakeChars(base62Alphabet, 12, 3) + "@10.0.0.1:3128",
				"ftp://:" + fakeChars(base62Alphabet, 10, 4) + "@files.example.org",
			},
			fp: []string{
				"https://user:password@example.com",
				"https://example.com:8443/path@v2",
				"postgres://app:${DB_PASSWORD}@db:5432/app",
				"ssh://git@github.com/org/repo.git",
				"https://admin:****@host",
			},
		},
	}
}

// keyNameOK decides whether the identifier around a keyword names the
// secret itself: prefix is the key name before the keyword (at most
// ctxMaxPrefix bytes), suffix the name after it, last the keyword's last
// byte as written.
func keyNameOK(prefix, suffix []byte, last byte) bool {
	if len(suffix) > 0 {
		c := suffix[0]
		switch {
		case c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z' && 'a' <= last && last <= 'z':
		case len(suffix) == 1 && (c == 's' || c == 'S'):
		default:
			return false
		}
		if nameHasWord(suffix, suffixDeny) {
			return false
		}
	}
	p := bytes.TrimRight(prefix, "_.-")
	for _, w := range prefixDeny {
		if len(p) >= len(w) && bytes.EqualFold(p[len(p)-len(w):], []byte(w)) {
			return false
		}
	}
	return true
}

// nameHasWord splits an identifier at _ - . digits and lower-to-upper case
// changes, and reports whether one of its words (lower-cased) is in list.
func nameHasWord(name []byte, list []string) bool {
	var w [32]byte
	n := 0
	check := func() bool {
		if n == 0 {
			return false
		}
		for _, x := range list {
			if string(w[:n]) == x {
				return true
			}
		}
		return false
	}
	for i, c := range name {
		sep := c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9'
		camel := i > 0 && 'A' <= c && c <= 'Z' && 'a' <= name[i-1] && name[i-1] <= 'z'
		if sep || camel {
			if check() {
				return true
			}
			n = 0
			if sep {
				continue
			}
		}
		if n < len(w) {
			w[n] = lowerASCII(c)
			n++
		}
	}
	return check()
}

// isQuote reports whether d[i] opens a quote (", ', `, or one of them after a
// backslash) and its length.
func quoteAt(d []byte, i int) (q byte, n int) {
	if i < len(d) && (d[i] == '"' || d[i] == '\'' || d[i] == '`') {
		return d[i], 1
	}
	if i+1 < len(d) && d[i] == '\\' && (d[i+1] == '"' || d[i+1] == '\'') {
		return d[i+1], 2
	}
	return 0, 0
}

// assignForm: [key name containing keyword] [closing quote] [spaces]
// operator (=, :, :=, =>, ==; or spaces after a --flag) [spaces] [quote]
// value [closing quote]. See contextRules for the name and value filters.
func assignForm(cls assignClass, keywords []string) form {
	longest := 0
	for _, k := range keywords {
		longest = max(longest, len(k))
	}
	return form{
		keywords: keywords,
		back:     ctxMaxPrefix + 1,
		ahead:    longest + ctxMaxSuffix + 2 + 2*ctxMaxSpace + 2 + 2 + ctxMaxValue + 2 + ctxMargin,
		check: func(v *view, ks, ke int) result {
			d := v.data
			p := ks
			for p > 0 && ks-p < ctxMaxPrefix && setIdent[d[p-1]] {
				p--
			}
			if p > 0 && d[p-1] == '$' {
				// $PASSWORD, $SECRET_KEY: a variable reference, not a key
				// (in "$PASSWORD","next" the next string is no value of it).
				return noMatch
			}
			flag := p < ks && d[p] == '-'
			i := ke
			for i < len(d) && i-ke <= ctxMaxSuffix && setIdent[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-ke > ctxMaxSuffix || !keyNameOK(d[p:ks], d[ke:i], d[ke-1]) {
				return noMatch
			}
			start, end, quoted, st := assignValue(v, i, flag)
			if st != resMatch {
				return result{status: st}
			}
			weak := bareName(d[p:i], d[ks:ke])
			if !plausibleValue(d[start:end], quoted, cls, weak) {
				return noMatch
			}
			return result{status: resMatch, start: start, end: end}
		},
	}
}

// assignValue parses from i (just after the key name) the optional closing
// quote, the operator and the value; it returns the value's bounds, resMore
// or resNo.
func assignValue(v *view, i int, flag bool) (start, end int, quoted bool, st resStatus) {
	d := v.data
	if v.more(i + 2) {
		return 0, 0, false, resMore
	}
	_, kq := quoteAt(d, i)
	i += kq
	s := i
	for i < len(d) && i-s <= ctxMaxSpace && setCtxSpace[d[i]] {
		i++
	}
	if v.more(i + 2) {
		return 0, 0, false, resMore
	}
	if i-s > ctxMaxSpace {
		return 0, 0, false, resNo
	}
	needQuote := false
	switch {
	case i+1 < len(d) && (d[i] == ':' && d[i+1] == '=' || d[i] == '=' && (d[i+1] == '>' || d[i+1] == '=')):
		i += 2
	case i < len(d) && (d[i] == '=' || d[i] == ':'):
		i++
	case kq > 0 && i < len(d) && d[i] == ',':
		// setenv("PASSWORD", "value"), ("token", "value"): a quoted key,
		// a comma and a quoted value.
		i++
		needQuote = true
	case flag && i > s:
		// "--password value": the spaces were the operator.
	default:
		return 0, 0, false, resNo
	}
	s = i
	for i < len(d) && i-s <= ctxMaxSpace && setCtxSpace[d[i]] {
		i++
	}
	if v.more(i + 2) {
		return 0, 0, false, resMore
	}
	if i-s > ctxMaxSpace {
		return 0, 0, false, resNo
	}
	q, n := quoteAt(d, i)
	if needQuote && q == 0 {
		return 0, 0, false, resNo
	}
	i += n
	start = i
	if q != 0 {
		for i < len(d) && i-start <= ctxMaxValue && d[i] >= 0x20 && d[i] != 0x7f && d[i] != q && !(n == 2 && d[i] == '\\') {
			i++
		}
		if v.more(i) {
			return 0, 0, false, resMore
		}
		if i-start > ctxMaxValue || i >= len(d) || d[i] < 0x20 || d[i] == 0x7f || i == start {
			return 0, 0, false, resNo
		}
		if n == 2 && d[i] == '\\' {
			if v.more(i + 1) {
				return 0, 0, false, resMore
			}
			if i+1 >= len(d) || d[i+1] != q {
				return 0, 0, false, resNo
			}
		}
		return start, i, true, resMatch
	}
	for i < len(d) && i-start <= ctxMaxValue && !setValueStop[d[i]] {
		i++
	}
	if v.more(i) {
		return 0, 0, false, resMore
	}
	if i-start > ctxMaxValue {
		return 0, 0, false, resNo
	}
	for i > start && (d[i-1] == '.' || d[i-1] == ':') {
		i--
	}
	if i == start {
		return 0, 0, false, resNo
	}
	return start, i, false, resMatch
}

// bareName reports whether the key name (name, holding the keyword kw) is
// just "token" or "secret", or their plural.
func bareName(name, kw []byte) bool {
	if len(name) > len(kw)+1 || !containsFold(kw, "token") && !containsFold(kw, "secret") {
		return false
	}
	return len(name) == len(kw) || name[len(name)-1] == 's' || name[len(name)-1] == 'S'
}

// plausibleValue applies the value filters described at contextRules.
func plausibleValue(b []byte, quoted bool, cls assignClass, weak bool) bool {
	minLen, minEntropy := 6, 2.0
	switch cls {
	case classSecret:
		minLen, minEntropy = 8, 2.5
	case classToken:
		minLen, minEntropy = 16, 3.0
	}
	if len(b) < minLen || len(b) > ctxMaxValue {
		return false
	}
	if placeholder(b) {
		return false
	}
	// A value that is itself an sk- key is left to generic-sk, which comes
	// after this family in RuleID order and would lose on the same span.
	if len(b) > 3 && string(b[:3]) == "sk-" && randomSegment(b[3:], 16) {
		return false
	}
	if !quoted && codeLike(b) || codeRef(b) {
		return false
	}
	if wordLike(b) || numberLike(b) || sequenceLike(b) || timestampLike(b) || entropy(b) < minEntropy {
		return false
	}
	if weak {
		if uuidLike(b) || hexLike(b) {
			return false
		}
		if u, l, d := hasClasses(b); !(u && l || u && d || l && d) {
			return false
		}
	}
	return true
}

// placeholder: template syntax, references, masks and well-known filler.
func placeholder(b []byte) bool {
	if hasPlaceholderWord(b) {
		return true
	}
	n := len(b)
	switch {
	case b[0] == '<' && b[n-1] == '>', b[0] == '[' && b[n-1] == ']', b[0] == '(' && b[n-1] == ')':
		return true
	case b[0] == '%' && b[n-1] == '%' && n > 2 && isIdent(b[1:n-1]):
		return true
	case b[0] == '$' && (n > 1 && b[1] == '(' || isIdent(b[1:])):
		return true
	case n == 2 && b[0] == '%':
		return true
	}
	mask := true
	for _, c := range b {
		if !setMask[c] && c != 0xE2 && c != 0x80 && c != 0xA2 { // • is E2 80 A2
			mask = false
			break
		}
	}
	return mask
}

// isIdent: [A-Za-z_][A-Za-z0-9_]*.
func isIdent(b []byte) bool {
	if len(b) == 0 || !(setLetters[b[0]] || b[0] == '_') {
		return false
	}
	for _, c := range b {
		if !setWord[c] {
			return false
		}
	}
	return true
}

// codeRef: a value that starts with a lookup of the real secret, an
// identifier path followed by '[' or '(' (os.environ["X"], os.getenv("X"),
// ENV["X"], config.get("x")): a dotted path, or one of a few lookup names.
func codeRef(b []byte) bool {
	i, seg, dots := 0, 0, 0
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case setLetters[c] || c == '_' || c == '$' || seg > 0 && '0' <= c && c <= '9':
			seg++
			if seg > ctxMaxSegment {
				return false
			}
			continue
		case c == '.' && seg > 0:
			seg = 0
			dots++
			continue
		}
		break
	}
	if i == len(b) || seg == 0 || b[i] != '[' && b[i] != '(' {
		return false
	}
	if dots > 0 {
		return true
	}
	switch string(bytes.ToLower(b[:i])) {
	case "env", "getenv", "environ", "lookup", "secret", "secrets", "vault", "var", "get", "fetch":
		return true
	}
	return false
}

// ctxMaxSegment is the longest segment of a dotted identifier path taken
// for code; longer ones are random (pat12345.<64 hex>).
const ctxMaxSegment = 24

// codeLike: an unquoted value that is an expression (a call or an index) or
// a dotted path of identifiers (self.password, process.env.TOKEN), unless
// the path reads as a random string (randomMixed: a password with a dot).
func codeLike(b []byte) bool {
	if bytes.IndexByte(b, '(') >= 0 || bytes.IndexByte(b, '[') >= 0 {
		return true
	}
	dots := 0
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != '.' {
			continue
		}
		if !isIdent(b[start:i]) || i-start > ctxMaxSegment {
			return false
		}
		if i < len(b) {
			dots++
		}
		start = i + 1
	}
	return dots > 0 && !randomMixed(b)
}

// randomMixed: at least 12 letters and digits (other bytes are skipped)
// holding upper case, lower case and digits, whose class changes between
// neighbours at half of them or more. A random base62 string changes class
// at about 60% of its characters, a camelCase identifier path at about a
// third (cfg.Auth0ClientSecret: 7 of 20).
func randomMixed(b []byte) bool {
	n, changes := 0, 0
	var prev byte
	var u, l, d bool
	for _, c := range b {
		var cl byte
		switch {
		case 'A' <= c && c <= 'Z':
			cl, u = 1, true
		case 'a' <= c && c <= 'z':
			cl, l = 2, true
		case '0' <= c && c <= '9':
			cl, d = 3, true
		default:
			continue
		}
		if prev != 0 && cl != prev {
			changes++
		}
		prev = cl
		n++
	}
	return n >= 12 && u && l && d && 2*changes >= n
}

// wordLike: letters only (spaces allowed between words).
func wordLike(b []byte) bool {
	for _, c := range b {
		if !setLetters[c] && c != ' ' {
			return false
		}
	}
	return true
}

// timestampLike: an ISO 8601 / RFC 3339 date or date-time, such as
// 2025-06-01, 2025-06-01T12:30:00Z, 2025-06-01 12:30:00.123+02:00 (a
// "refreshTokenExpiresAt" or "lastToken" member holds one, not a secret).
func timestampLike(b []byte) bool {
	digits := func(i, n int) bool {
		if i+n > len(b) {
			return false
		}
		for j := i; j < i+n; j++ {
			if b[j] < '0' || b[j] > '9' {
				return false
			}
		}
		return true
	}
	if !digits(0, 4) || len(b) < 10 || b[4] != '-' || !digits(5, 2) || b[7] != '-' || !digits(8, 2) {
		return false
	}
	i := 10
	if i == len(b) {
		return true
	}
	if b[i] != 'T' && b[i] != 't' && b[i] != ' ' || !digits(i+1, 2) || i+3 >= len(b) || b[i+3] != ':' || !digits(i+4, 2) {
		return false
	}
	i += 6
	if i < len(b) && b[i] == ':' {
		if !digits(i+1, 2) {
			return false
		}
		i += 3
		if i < len(b) && (b[i] == '.' || b[i] == ',') {
			j := i + 1
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
	}
	switch {
	case i == len(b):
		return true
	case b[i] == 'Z' || b[i] == 'z':
		return i+1 == len(b)
	case b[i] == '+' || b[i] == '-':
		if !digits(i+1, 2) {
			return false
		}
		i += 3
		if i < len(b) && b[i] == ':' {
			i++
		}
		return i == len(b) || digits(i, 2) && i+2 == len(b)
	}
	return false
}

// numberLike: an optionally signed integer or decimal.
func numberLike(b []byte) bool {
	i := 0
	if b[0] == '-' || b[0] == '+' {
		i++
	}
	digits, dots := 0, 0
	for ; i < len(b); i++ {
		switch {
		case '0' <= b[i] && b[i] <= '9':
			digits++
		case b[i] == '.' && dots == 0:
			dots++
		default:
			return false
		}
	}
	return digits > 0
}

// sequenceLike: at least two thirds of the neighbouring byte pairs repeat or
// step by one (aaaa, abcdef, 123456, abc123).
func sequenceLike(b []byte) bool {
	if len(b) < 2 {
		return true
	}
	n := 0
	for i := 1; i < len(b); i++ {
		if d := int(b[i]) - int(b[i-1]); d >= -1 && d <= 1 {
			n++
		}
	}
	return 3*n >= 2*(len(b)-1)
}

// entropy returns the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	var counts [256]uint16
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, k := range counts {
		if k != 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// uuidLike: 8-4-4-4-12 hex digits.
func uuidLike(b []byte) bool {
	if len(b) != 36 {
		return false
	}
	for i, c := range b {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !setHex[c] {
			return false
		}
	}
	return true
}

// hexLike: 32, 40 or 64 hex digits (MD5, SHA-1 / git, SHA-256 hashes).
func hexLike(b []byte) bool {
	if len(b) != 32 && len(b) != 40 && len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !setHex[c] {
			return false
		}
	}
	return true
}

var setHex = makeSet("0-9a-fA-F")

// containsFold reports whether b contains the lower-case ASCII w, ignoring
// ASCII case.
func containsFold(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for j < len(w) && lowerASCII(b[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
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
// decode to printable ASCII "user:password" whose password passes the
// password filters.
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

// basicCredOK decodes unpadded standard base64 and checks "user:password".
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
		if c < 0x20 || c >= 0x7f {
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

// URL user information limits.
const (
	urlMaxScheme = 32
	urlMaxUser   = 128
	urlMaxPass   = 256
)

var (
	setScheme  = makeSet("A-Za-z0-9+.-")
	setURLUser = union(setAlnum, makeSet("-._~!$&'()*+,;=%"))
	// setURLPass: what a password may hold before the last '@' (RFC 3986
	// userinfo plus the unencoded '@' people write anyway).
	setURLPass = union(setURLUser, makeSet(":@"))
)

// urlPasswordWords are placeholder passwords of URL examples.
var urlPasswordWords = []string{"password", "pass", "passwd", "pwd", "pw", "secret", "user", "username", "changeme"}

// urlCredForm: "://" after a scheme ([A-Za-z][A-Za-z0-9+.-]{0,31}, not
// preceded by a scheme byte), a user (up to urlMaxUser bytes of RFC 3986
// userinfo without ':'), ':', and a password that runs to the last '@'
// before the authority ends; the password (3..urlMaxPass bytes) is replaced
// unless it is a placeholder.
func urlCredForm() form {
	return form{
		keywords: []string{"://", `:\/\/`}, // the second in JSON text that escapes '/'
		back:     urlMaxScheme + 1,
		ahead:    5 + urlMaxUser + 1 + urlMaxPass + ctxMargin,
		check: func(v *view, ks, ke int) result {
			d := v.data
			p := ks
			for p > 0 && ks-p <= urlMaxScheme && setScheme[d[p-1]] {
				p--
			}
			if p == ks || ks-p > urlMaxScheme || !setLetters[d[p]] {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke <= urlMaxUser && setURLUser[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-ke > urlMaxUser || i >= len(d) || d[i] != ':' {
				return noMatch
			}
			ps := i + 1
			at := -1
			j := ps
			for j < len(d) && j-ps <= urlMaxPass && setURLPass[d[j]] {
				if d[j] == '@' {
					at = j
				}
				j++
			}
			if v.more(j) {
				return result{status: resMore}
			}
			if j-ps > urlMaxPass || at < 0 {
				return noMatch
			}
			pass := d[ps:at]
			if len(pass) < 3 || placeholder(pass) {
				return noMatch
			}
			for _, w := range urlPasswordWords {
				if len(pass) == len(w) && containsFold(pass, w) {
					return noMatch
				}
			}
			return result{status: resMatch, start: ps, end: at}
		},
	}
}
