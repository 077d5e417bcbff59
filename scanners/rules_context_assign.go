package scanners

import "bytes"

// The assignment family: a value assigned to a name that says it is a
// secret (password=, api_key:, "token": "..."); see rules_context.go.

// assignRules are password-, secret-, token- and key-assignment.
func assignRules() []ruleDef {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	pw := base62Alphabet + "!@%^*+=-_"
	// mixed: a password-like value that surely mixes classes.
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
	return []ruleDef{
		{
			id: "password-assignment", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "value assigned to a password, passwd or passphrase name, or to a name ending in _PWD or _PASS (MYSQL_PWD, PGPASSWORD, SMTP_PASS; env, YAML, JSON, code, --password flags); the value is replaced",
			forms: []form{assignForm(classPassword, []string{"password", "passwd", "passphrase", "_pwd", "_pass"})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"DB_PASSWORD=" + mixed(14, 1),
					"  password: \"" + mixed(12, 2) + "\"",
					`{"user": "svc", "password": "` + mixed(16, 3) + `"}`,
					"mysql --user=root --password " + mixed(18, 4),
					"export PGPASSWORD='" + mixed(20, 5) + "'",
					`conn = connect(host="db", passwd="` + mixed(24, 6) + `")`,
					"DB_PASSWORD=XUYCk3Lp9QwE.k4rNz7Hq",
					"password = 'open sesame riverbanked'",
					`  "password": "correct horse battery staplerization",`,
					"MYSQL_PWD=" + mixed(12, 7),
					"export REDIS_PASS=\"" + mixed(14, 8) + "\"",
					"smtp_pass: '" + mixed(10, 9) + "'",
				}
				fp = []string{
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
					"PWD=/home/alice/src/project",
					"SKIP_PASS=true",
					"first_pass = 1",
					"MYSQL_PWD=${MYSQL_PWD}",
					"compass: north",
					"user_passport_no: AB1234567",
					`"password": "Enter your password"`,
					`password_hint = "must be at least 12 characters"`,
					`"password": "Password"`,
				}
				return
			},
		},
		{
			id: "secret-assignment", provider: "generic", kind: KindSecret, confidence: "medium",
			desc: "value assigned to a secret or API key name (client_secret, SECRET_KEY, api_key, apikey, access_key, private_key); the value is replaced",
			forms: []form{assignForm(classSecret, []string{
				"secret", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key",
			})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"CLIENT_SECRET=" + fakeChars(base62Alphabet, 32, 1),
					"api_key: " + fakeChars(hex, 32, 2),
					`{"apiKey": "` + fakeChars(base62Alphabet+"_-", 40, 3) + `"}`,
					"curl -H 'x-api-key: " + fakeChars(base62Alphabet, 28, 4) + "' https://api.example.com",
					"--client-secret " + fakeChars(base62Alphabet, 30, 5),
					"SECRET_KEY = '" + mixed(50, 6) + "'",
				}
				fp = []string{
					"client_secret: <your-client-secret>",
					"secret: " + fakeChars(hex, 40, 7),
					"api_key_id = 12345678",
					"secret_name: prod-db-credentials",
					"apiKey: process.env.API_KEY",
					"the secret: is in the vault",
					"secretary=Jane",
				}
				return
			},
		},
		{
			id: "token-assignment", provider: "generic", kind: KindSecret, confidence: "low",
			desc:  "value assigned to a token name (access_token, auth_token, refresh_token, GITHUB_TOKEN, --token); the value is replaced",
			forms: []form{assignForm(classToken, []string{"token"})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"ACCESS_TOKEN=" + fakeChars(base62Alphabet, 40, 1),
					`{"refresh_token": "` + fakeChars(base62Alphabet+"._-", 64, 2) + `"}`,
					"gh auth login --token " + fakeChars(base62Alphabet, 36, 3),
					"token: " + fakeChars(base62Alphabet, 24, 4),
					"authToken = \"" + fakeChars(b64, 44, 5) + "\"",
				}
				fp = []string{
					`"nextPageToken": "` + fakeChars(base62Alphabet, 40, 6) + `"`,
					"token: 550e8400-e29b-41d4-a716-446655440000",
					`"token_type": "Bearer"`,
					"max_tokens=4096",
					"tokenizer = AutoTokenizer.from_pretrained(name)",
					"token=" + fakeChars(hex, 64, 7),
					"token_url: https://auth.example.com/oauth/token",
				}
				return
			},
		},
		{
			id: "key-assignment", provider: "generic", kind: KindSecret, confidence: "low",
			desc:  "random value assigned to a name ending in the word key (azureKey, cashboard_key, Using Key=, LICENSE_KEY) that does not name a public, sort, cache or other non-secret key; the value is replaced",
			forms: []form{keyForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"[DEBUG] Using Key=" + fakeChars(base62Alphabet, 32, 21),
					"  azureKey: " + fakeChars(base62Alphabet, 52, 22),
					"service_key := \"" + fakeChars(base62Alphabet+"_-", 40, 23) + "\"",
					"using key = " + fakeChars(hex, 64, 24),
					"LICENSEKEY=" + fakeChars(base62Alphabet, 24, 25),
				}
				fp = []string{
					"public_key: " + fakeChars(b64, 44, 26),
					"sort_key = " + fakeChars(base62Alphabet, 24, 27),
					"monkey=" + fakeChars(base62Alphabet, 24, 28),
					"key: 550e8400-e29b-41d4-a716-446655440000",
					"object_key: uploads/2024/06/report-final.pdf",
					"key_id = " + fakeChars(base62Alphabet, 24, 29),
					"keys = " + fakeChars(base62Alphabet, 24, 30),
					`"key": "ArrowUp"`,
				}
				return
			},
		},
	}
}

// arnAccountBefore reports whether d[p] follows the account field of an
// ARN, ":" and 12 digits and ":" (arn:aws:secretsmanager:us-east-1:
// 123456789012:secret:name): the name there is a resource type, and what
// follows its colon a resource name. It reads 14 bytes before p, which an
// assignForm check always has (back covers ctxMaxPrefix+qualMax).
func arnAccountBefore(d []byte, p int) bool {
	if p < 14 || d[p-1] != ':' || d[p-14] != ':' {
		return false
	}
	return allIn(d[p-13:p-1], setDigits)
}

// passphrase reports whether a quoted password value with spaces is a
// passphrase ('open sesame', "correct horse battery staple", "P@ss w0rd#1")
// rather than prose a form or a message puts there ("Enter your password",
// "must be at least 8 characters"): 2 to 8 words of 2 to 24 bytes each,
// one space apart, none of them a word of such prose (passphraseProse).
func passphrase(b []byte) bool {
	if len(b) < 8 || len(b) > 64 {
		return false
	}
	words := bytes.Split(b, []byte{' '})
	if len(words) < 2 || len(words) > 8 {
		return false
	}
	for _, w := range words {
		if len(w) < 2 || len(w) > 24 {
			return false
		}
		lw := bytes.ToLower(w)
		for _, p := range passphraseProse {
			if string(lw) == p {
				return false
			}
		}
		if bytes.Contains(lw, []byte("passw")) {
			return false
		}
	}
	return true
}

// passphraseProse are words of the messages and labels that stand where a
// password would ("Please enter your new password", "Must be at least 8
// characters", "Invalid or expired").
var passphraseProse = []string{
	"enter", "your", "the", "must", "be", "is", "are", "at", "least", "characters", "chars", "required", "please",
	"new", "old", "current", "confirm", "invalid", "incorrect", "wrong", "here", "an", "of", "to", "for", "with",
	"and", "not", "or", "will", "should", "can", "this", "that", "field", "value", "set", "use", "type", "input",
	"missing", "empty", "expired", "forgot", "reset", "change", "match", "matches", "length", "minimum", "maximum",
	"too", "short", "long", "weak", "strong", "hidden", "none", "null", "see", "from", "in", "on", "by", "if",
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
	return !nameHasWord(prefix, nameDeny)
}

// nameDeny are words of a key name that say its value is no live secret:
// test fixtures (nonMatchingToken, fakeSecret, invalid_token), published
// values (publicToken) and anti-forgery tokens (csrf-token,
// authenticity_token), which are per-session and shown in every page.
var nameDeny = []string{"non", "nonmatching", "invalid", "fake", "dummy", "mock", "example", "sample", "public", "csrf", "xsrf", "authenticity"}

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

// assignForm: [key name containing keyword] [closing quote] [type]
// [spaces] operator [spaces] [quote] value [closing quote]; or an XML
// element <name>value</name>, the value on the same line or on its own.
// Operators (assignOps): = : := => == and Makefile's ?= ::= :::= +=, PHP's
// .=; spaces after a --flag; a comma or value= after a quoted key
// (setenv("X", "v"), <add key="X" value="v"/>). A type between name and =
// (Go's var x string = "v", TypeScript's x: string = "v") is skipped. See
// rules_context.go for the name and value filters.
func assignForm(cls assignClass, keywords []string) form {
	longest := 0
	for _, k := range keywords {
		longest = max(longest, len(k))
	}
	return form{
		keywords: keywords,
		back:     ctxMaxPrefix + 1 + qualMax,
		ahead:    longest + ctxMaxSuffix + 2 + maxTypeSkip + 2*ctxMaxSpace + maxOpLen + 2 + ctxMaxValue + 2*xmlMaxSpace + 4 + ctxMargin + subscriptLen + nextLineMax,
		check: func(v *view, ks, ke int) result {
			d := v.data
			p := ks
			for p > 0 && ks-p < ctxMaxPrefix && setIdent[d[p-1]] {
				p--
			}
			// $PASSWORD, $SECRET_KEY: a variable reference, not a key (in
			// "$PASSWORD","next" the next string is no value of it),
			// unless it is assigned to ($token = "v", $token .= "v").
			dollar := p > 0 && d[p-1] == '$'
			xml := p > 0 && d[p-1] == '<'
			if p > 0 && d[p-1] == '/' {
				return noMatch // a host or a path segment (https://token.internal:8443/x), no key
			}
			if arnAccountBefore(d, p) {
				return noMatch // a resource type of an ARN (…:123456789012:secret:prod/db-x)
			}
			flag := p < ks && d[p] == '-'
			i := ke
			for i < len(d) && i-ke <= ctxMaxSuffix && setIdent[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			// The suffix first: it rejects most hits (keyboard, tokenizer,
			// passwordless); the prefix's word lists only once a value is
			// there.
			if i-ke > ctxMaxSuffix || !keySuffixOK(cls, d[ke:i], d[ke-1]) {
				return noMatch
			}
			var start, end int
			var quoted, braced bool
			var st resStatus
			if xml {
				start, end, braced, st = xmlValue(v, i)
			} else {
				start, end, quoted, st = assignValue(v, i, flag, dollar, bytes.IndexByte(d[p:i], '.') >= 0)
			}
			if st != resMatch {
				return result{status: st}
			}
			if !nameOK(cls, d[p:ks], d[ke:i], d[ks:ke]) {
				return noMatch
			}
			weak := bareName(d[p:i], d[ks:ke])
			if weak && queryParam(d, p) {
				weak = false // ?key=, &token=: a credential in a URL's query
			}
			if weak {
				lo := max(0, p-qualMax)
				qual, deny := spacedQualifier(d[lo:p], lo == 0 && v.base == 0)
				if deny {
					return noMatch
				}
				weak = !qual
			}
			// A quoted value with spaces is a password, or words of which
			// one may be the token (' v ', 'v | v').
			spaced := quoted && bytes.IndexByte(d[start:end], ' ') >= 0
			if spaced && d[start-1] == '`' {
				return noMatch // `vault read …`: a shell command substitution
			}
			braced = braced || spaced && cls != classPassword
			if cls != classPassword && elided(d, start, end) {
				return noMatch // shown cut for display (ops_eyJ…...)
			}
			if braced && !bracedPlausible(d[start:end], cls, weak) || !braced && !plausibleValue(d[start:end], quoted, cls, weak) {
				return noMatch
			}
			return result{status: resMatch, start: start, end: end}
		},
	}
}

// bracedPlausible: the content of an element value in braces, such as a
// Jenkins credential <secret>{AQAAABAAAAAQ…}</secret>, holds a plausible
// value among its space-separated words; then all of it is replaced.
func bracedPlausible(b []byte, cls assignClass, weak bool) bool {
	if len(b) == 0 || placeholder(b) {
		return false // template syntax, a URL, a PEM block: other rules' or none
	}
	// Over ctxMaxSpaced bytes, words are prose; only a stored ciphertext
	// vouches for them.
	long := len(b) > ctxMaxSpaced
	for len(b) > 0 {
		j := bytes.IndexByte(b, ' ')
		if j < 0 {
			j = len(b)
		}
		if j > 0 && (!long && plausibleValue(b[:j], true, cls, weak) && !snakeName(b[:j]) || jenkinsCipher(b[:j])) {
			return true
		}
		b = b[min(j+1, len(b)):]
	}
	return false
}

// snakeName reports a lower-case snake_case identifier (telegram_api_token):
// among the words of a spaced value it is a name, as in a quoted
// "name = " fragment, not the secret.
func snakeName(w []byte) bool {
	us := false
	for _, c := range w {
		switch {
		case c == '_':
			us = true
		case c < 'a' || c > 'z':
			return false
		}
	}
	return us
}

// jenkinsCipher reports the start of a Jenkins credential ciphertext: the
// base64 of its format byte 1 and a 16-byte IV length (AQAAABAAAA…), as
// Jenkins writes an encrypted <secret>. The braced value it is in is a
// stored credential whatever its other words look like (hex, a name).
func jenkinsCipher(w []byte) bool {
	return len(w) >= 9 && string(w[:9]) == "AQAAABAAA"
}

// qualMax is how many bytes before a bare name spacedQualifier reads: a
// boundary byte, a word of at most 24 bytes and one space.
const qualMax = 26

// spacedQualifier reads the bytes before a bare name (token, secret, key):
// qual when they end in one space after a word of 3 to 24 letters and
// digits (at least one letter) that starts the text (whole: pre starts where
// the text does) or follows a byte that is neither a letter, a digit, '_'
// nor '-', and the word is no article or verb (qualStop): "madkudu token =
// '…'" names a service's token as madkudu_token does. deny when that word
// is one of prefixDeny ("next token = …", a cursor).
func spacedQualifier(pre []byte, whole bool) (qual, deny bool) {
	n := len(pre)
	if n < 4 || pre[n-1] != ' ' {
		return false, false
	}
	i := n - 1
	letter := false
	for i > 0 && setAlnum[pre[i-1]] {
		i--
		letter = letter || setLetters[pre[i]]
	}
	w := pre[i : n-1]
	if len(w) < 3 || len(w) > 24 || !letter {
		return false, false
	}
	if i == 0 && !whole || i > 0 && (setWord[pre[i-1]] || pre[i-1] == '-') {
		return false, false
	}
	for _, x := range prefixDeny {
		if bytes.EqualFold(w, []byte(x)) {
			return false, true
		}
	}
	for _, x := range qualStop {
		if bytes.EqualFold(w, []byte(x)) {
			return false, false
		}
	}
	return true, false
}

// qualStop are words before a bare name that do not name whose it is.
var qualStop = []string{
	"the", "this", "that", "these", "those", "your", "our", "their", "his", "her", "its", "any", "each", "every",
	"new", "old", "same", "other", "some", "set", "get", "use", "using", "used", "with", "for", "and", "not",
	"from", "into", "let", "var", "val", "const", "export", "def", "dim", "string", "str", "final", "static", "public", "private",
}

// keySuffixOK is the part of nameOK that reads the suffix only.
func keySuffixOK(cls assignClass, suffix []byte, last byte) bool {
	if cls == classKey && len(suffix) > 0 && !keyNumber(suffix) {
		return false
	}
	return keyNameOK(nil, suffix, last)
}

// keyBytesAfter are the bytes that may follow the word key where it ends a
// key name that is assigned: a closing quote, a backslash (\"), a space or
// tab, the first byte of an operator, the '>' of an XML element, or the
// first digit of a key's number (sumoKey1, keyNumber).
const keyBytesAfter = "\"'`\\ \t:=?+>0123456789"

// keyForm is assignForm for the key family, triggered by "key" and the byte
// after it (keyBytesAfter), not by every "key" in keyboard, keys, monkey: a
// name must end with the word (keySuffixOK), so no other hit can match, and
// short strings holding key only inside words stay keyword-free.
func keyForm() form {
	f := assignForm(classKey, []string{"key"})
	inner := f.check
	f.keywords = nil
	for i := 0; i < len(keyBytesAfter); i++ {
		f.keywords = append(f.keywords, "key"+keyBytesAfter[i:i+1])
	}
	f.ahead++
	f.check = func(v *view, ks, ke int) result { return inner(v, ks, ks+3) }
	return f
}

// nameOK applies keyNameOK, and for the key class keyNameKeyOK; outside
// the password class a name for a place that holds secrets
// (containerName) is none.
func nameOK(cls assignClass, prefix, suffix, kw []byte) bool {
	if !keyNameOK(prefix, suffix, kw[len(kw)-1]) || cls != classPassword && containerName(prefix, suffix) {
		return false
	}
	return cls != classKey || keyNameKeyOK(prefix, suffix, kw)
}

// Assignment operators, longest first.
var assignOps = []string{":::=", "::=", "?=", "+=", ".=", ":=", "=>", "==", "!=", "=", ":"}

// Limits of the assignment syntaxes.
const (
	maxOpLen    = 4  // longest of assignOps
	maxTypeSkip = 24 // with ctxMaxSpace+2 more: ": " or " ", a type word, spaces, =, one byte
	xmlMaxSpace = 64 // whitespace (or \n \t \r escapes) around an element's value
)

// opLen returns the length of the assignment operator at the start of b, or
// 0. A $variable only takes =, .= and +=: $X: and $X == are no assignments.
func opLen(b []byte, dollar bool) int {
	if len(b) == 0 || !opFirst[b[0]] {
		return 0 // most hits: a word or a space after the name, no operator
	}
	for _, op := range assignOps {
		if len(b) >= len(op) && string(b[:len(op)]) == op {
			if dollar && op != "=" && op != ".=" && op != "+=" {
				return 0
			}
			return len(op)
		}
	}
	return 0
}

// opFirst holds the first bytes of assignOps.
var opFirst = firstBytes(assignOps)

// firstBytes returns the set of the first bytes of words.
func firstBytes(words []string) *byteSet {
	var t byteSet
	for _, w := range words {
		t[w[0]] = true
	}
	return &t
}

// typeWords are the string types written between a name and its = (Go,
// TypeScript, Kotlin, Rust, C++).
var typeWords = []string{"string", "String", "str", "&str", "&'static str", "[]byte", "std::string"}

// typeFirst holds the first bytes of typeWords.
var typeFirst = firstBytes(typeWords)

// typeSkip returns how many bytes at the start of b are a type annotation
// before an = (" string ", ": String "), or 0.
func typeSkip(b []byte) int {
	i := 0
	if i < len(b) && b[i] == ':' {
		i++
	}
	s := i
	for i < len(b) && setCtxSpace[b[i]] {
		i++
	}
	if i == s || i-s > ctxMaxSpace || i == len(b) || !typeFirst[b[i]] {
		return 0
	}
	for _, w := range typeWords {
		if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
			j := i + len(w)
			for j < len(b) && j-i-len(w) < ctxMaxSpace && setCtxSpace[b[j]] {
				j++
			}
			if j < len(b) && b[j] == '=' && (j+1 == len(b) || b[j+1] != '=') {
				return j
			}
		}
	}
	return 0
}

// xmlSpace returns the end of the whitespace at i: spaces, tabs, line
// breaks and their JSON escapes (\n, \t, \r), at most xmlMaxSpace bytes.
func xmlSpace(d []byte, i int) int {
	s := i
	for i < len(d) {
		switch {
		case setSpace[d[i]] && i-s+1 <= xmlMaxSpace:
			i++
		case d[i] == '\\' && i+1 < len(d) && (d[i+1] == 'n' || d[i+1] == 't' || d[i+1] == 'r') && i-s+2 <= xmlMaxSpace:
			i += 2
		default:
			return i
		}
	}
	return i
}

// xmlValue parses from i (just after the element name of "<name") the '>',
// whitespace, the value (up to '<', whitespace or '\\'; or, braced, the
// content of {…} on one line) and whitespace before "</".
func xmlValue(v *view, i int) (start, end int, braced bool, st resStatus) {
	d := v.data
	lim := i + 1 + 2*xmlMaxSpace + ctxMaxValue + 4
	if len(d) < lim && !v.atEnd {
		return 0, 0, false, resMore
	}
	if i >= len(d) || d[i] != '>' {
		return 0, 0, false, resNo
	}
	start = xmlSpace(d, i+1)
	end = start
	j := 0
	if start < len(d) && d[start] == '{' {
		braced = true
		start++
		end = start
		for end < len(d) && end-start <= ctxMaxValue && d[end] != '}' && d[end] != '<' && d[end] != '\n' {
			end++
		}
		if end >= len(d) || d[end] != '}' || end == start || end-start > ctxMaxValue {
			return 0, 0, false, resNo
		}
		j = xmlSpace(d, end+1)
	} else {
		for end < len(d) && end-start <= ctxMaxValue && d[end] != '<' && d[end] != '\\' && !setSpace[d[end]] {
			end++
		}
		if end == start || end-start > ctxMaxValue {
			return 0, 0, false, resNo
		}
		j = xmlSpace(d, end)
	}
	if j+1 >= len(d) || d[j] != '<' || d[j+1] != '/' {
		return 0, 0, false, resNo
	}
	return start, end, braced, resMatch
}

// assignValue parses from i (just after the key name) the optional closing
// quote, the operator and the value; it returns the value's bounds, resMore
// or resNo.
//
// A dotted name glued to ':' and its value (io.jsonwebtoken:jjwt-api,
// com.example.token:1.2) is a Maven coordinate or a qualified name, no
// assignment.
func assignValue(v *view, i int, flag, dollar, dotted bool) (start, end int, quoted bool, st resStatus) {
	d := v.data
	if v.more(i + maxTypeSkip + ctxMaxSpace + 2) {
		return 0, 0, false, resMore
	}
	_, kq := quoteAt(d, i)
	i += kq
	sub := kq > 0 && i < len(d) && d[i] == ']'
	if sub {
		i++ // env["API_KEY"] = "v": the key is a subscript
	}
	if kq == 0 {
		i += typeSkip(d[i:min(len(d), i+maxTypeSkip+ctxMaxSpace+2)])
	}
	s := i
	for i < len(d) && i-s <= ctxMaxSpace && setCtxSpace[d[i]] {
		i++
	}
	if v.more(i + 6) {
		return 0, 0, false, resMore
	}
	if i-s > ctxMaxSpace {
		return 0, 0, false, resNo
	}
	needQuote := false
	if dollar && (kq > 0 || flag) {
		return 0, 0, false, resNo
	}
	n := opLen(d[i:], dollar)
	if sub && (n == 0 || d[i] == ':') {
		return 0, 0, false, resNo
	}
	switch {
	case n == 1 && d[i] == ':' && dotted && kq == 0 && i == s && i+1 < len(d) && !setCtxSpace[d[i+1]] && d[i+1] != '"' && d[i+1] != '\'' && d[i+1] != '`':
		return 0, 0, false, resNo
	case n > 0:
		i += n
	case kq > 0 && i < len(d) && d[i] == ',':
		// setenv("PASSWORD", "value"), ("token", "value"): a quoted key,
		// a comma and a quoted value.
		i++
		needQuote = true
	case kq == 0 && i > s && i+1 < len(d) && d[i] == '-' && d[i+1] == ' ':
		// "svc token - 'v'": a dash between spaces, then a quoted value.
		i++
		needQuote = true
	case kq > 0 && len(d)-i >= 6 && string(d[i:i+6]) == "value=":
		// <add key="ClearTextPassword" value="..."/>: .NET and NuGet
		// configuration.
		i += 6
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
	if n > 0 {
		// const apiKey =\n  "v": a quoted value on the line after the
		// operator.
		j, short := nextLineQuote(d, i)
		if short && !v.atEnd {
			return 0, 0, false, resMore
		}
		i = j
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
		if i < len(d) && d[i] == '\r' && n == 1 {
			// 'v\r': a carriage return left before the closing quote (a
			// value pasted from a CRLF file) ends the value.
			if v.more(i + 1) {
				return 0, 0, false, resMore
			}
			if i+1 < len(d) && d[i+1] == q && i > start && i-start <= ctxMaxValue {
				return start, i, true, resMatch
			}
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
// just "token", "secret" or "key", or their plural.
func bareName(name, kw []byte) bool {
	if len(name) > len(kw)+1 || !containsFold(kw, "token") && !containsFold(kw, "secret") && !(len(kw) == 3 && containsFold(kw, "key")) {
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
		if !weak {
			minLen = 10 // a named token (linkedin_token): short ones need letters and digits
		}
	case classKey:
		minLen, minEntropy = 16, 3.0
	}
	if len(b) < minLen || len(b) > ctxMaxValue || len(b) > ctxMaxSpaced && bytes.IndexByte(b, ' ') >= 0 {
		return false
	}
	if placeholder(b) {
		return false
	}
	if cls != classPassword && bytes.IndexByte(b, ' ') >= 0 {
		return false // words or markup (<xsd:element name=), no token or key
	}
	// A value that is itself an sk- key is left to generic-sk, which comes
	// after this family in RuleID order and would lose on the same span.
	if len(b) > 3 && string(b[:3]) == "sk-" && randomSegment(b[3:], 16) {
		return false
	}
	if !quoted && codeLike(b) || codeRef(b) {
		return false
	}
	if foreignShape(b) {
		return false
	}
	if cls == classPassword && quoted && bytes.IndexByte(b, ' ') > 0 {
		return passphrase(b) // words in quotes in a password slot: a passphrase, or prose
	}
	if cls != classPassword && (camelFiller(b) || editedHex(b) || monotoneLike(b)) {
		return false // words, edited hex, an alphabet walk (shape_value.go)
	}
	// Word-like values are none, but for a password of random letter case
	// and, after a named key, random letters (parsehub token =
	// 'vZrEclFwOqeA'; after a bare one, as words, they are none).
	//
	// A sequence (1234567890abcdef…, abcd1234efgh5678…)
	// after a bare name (token = …) is a placeholder; after a named one
	// (apify_api_token = …, a vendor's credential slot) it is redacted:
	// the slot says what the value is, redacting a made-up one costs the
	// model nothing, and a real key of that shape must not slip through
	// (issue 34). Still kept in any slot: digits only counting up (a
	// numeric id or filler), camel-case words, placeholder words and references
	// (placeholder), masks, edited hex and alphabet walks (the shapes
	// TestValueShapes keeps), a value that breaks its provider's format
	// (foreignShape). Measured in docs/detection.md (s-detect4).
	if wordLike(b) && !(cls == classPassword && randomCase(b)) && !(!weak && cls != classPassword && randomLetters(b)) || (weak || cls == classPassword || allDigits(b)) && sequenceLike(b) || timestampLike(b) || entropy(b) < minEntropy {
		return false
	}
	if numberLike(b) && !(cls != classPassword && !weak && longDigits(b)) {
		return false
	}
	u, l, d := hasClasses(b)
	if weak || cls == classKey {
		if uuidLike(b) && (weak || cls != classKey) || weak && cls != classKey && hexLike(b) {
			return false
		}
		if !(u && l || u && d || l && d) {
			return false
		}
	}
	if cls == classToken && len(b) < 16 && !((u || l) && d || randomLetters(b)) {
		return false
	}
	if cls == classKey && (bytes.IndexByte(b, ' ') >= 0 || (bytes.IndexByte(b, '/') >= 0 || bytes.IndexByte(b, '.') >= 0) && !randomMixed(b)) {
		return false // words (ssh-ed25519 AAAA… user@host), a path, a dotted name: a public or object key, a property
	}
	return true
}

// longDigits: 16 or more digits only (a numeric client id or secret; ids and
// timestamps in logs are shorter).
func longDigits(b []byte) bool {
	if len(b) < 16 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// keyNameKeyOK: for the bare word key, the keyword ends the name (or only a
// key's number follows it, keyNumber) and starts a word of it (after _ - .
// or a digit, at a lower-to-upper change, glued to one of keyGlued:
// licensekey, or to a lone s: Duo's skey); the word
// before it is not one of keyDeny (public_key, sort_key, cacheKey name no
// secret). It allocates nothing: it runs on every "key" in the text.
func keyNameKeyOK(prefix, suffix, kw []byte) bool {
	if len(suffix) > 0 && !keyNumber(suffix) {
		return false
	}
	w := lastWord(prefix)
	if len(prefix) > 0 {
		last := prefix[len(prefix)-1]
		switch {
		case last == '_' || last == '-' || last == '.' || '0' <= last && last <= '9':
		case 'a' <= last && last <= 'z' && kw[0] == 'K':
		default:
			if len(w) == 1 && (w[0] == 's' || w[0] == 'S') {
				return true // skey: a secret key beside an ikey (Duo's names)
			}
			for _, g := range keyGlued {
				if len(w) >= len(g) && bytes.EqualFold(w[len(w)-len(g):], []byte(g)) {
					return true // glued words are never in keyDeny
				}
			}
			return false
		}
	}
	for _, x := range keyDeny {
		if bytes.EqualFold(w, []byte(x)) {
			return false
		}
	}
	return true
}

// lastWord returns the last word of an identifier (as nameHasWord splits
// it), trailing separators dropped.
func lastWord(p []byte) []byte {
	j := len(p)
	for j > 0 && (p[j-1] == '_' || p[j-1] == '-' || p[j-1] == '.') {
		j--
	}
	i := j
	for i > 0 {
		c := p[i-1]
		if c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' {
			break
		}
		i--
		if 'A' <= c && c <= 'Z' && i > 0 && 'a' <= p[i-1] && p[i-1] <= 'z' {
			break // a lower-to-upper change starts the word at c
		}
	}
	return p[i:j]
}

// keyGlued are words that make a secret key when written glued to "key".
var keyGlued = []string{"license", "master", "signing", "encryption", "account", "access", "secret", "private", "client", "server", "service", "session", "shared", "webhook", "auth", "admin", "app", "api", "write", "token"}

// keyDeny are words before "key" that name something else than a secret.
var keyDeny = []string{
	"public", "pub", "primary", "foreign", "sort", "partition", "cache", "object", "map", "hash", "row", "routing",
	"shard", "group", "message", "idempotency", "dedup", "dedupe", "lookup", "column", "index", "unique", "composite",
	"hot", "i18n", "translation", "label", "region", "bucket", "s3", "gpg", "pgp", "ssh", "host", "known", "mapping",
	"dict", "json", "yaml", "event", "metric", "field", "attribute", "cursor", "page", "next", "sequence", "order",
	"item", "entity", "record", "node", "redis", "storage", "state", "registry", "kid", "jwk", "jwks", "lock",
	"cert", "certificate", "verify", "verification", "signature", "short", "music", "sharing", "shortcut", "keyboard",
	"menu", "tab", "toggle", "authorized", "press", "pressed", "up", "down", "primary", "rsa", "ecdsa", "ed25519", "age", "recipient",
}

// foreignShape reports a value shaped as a strict-format provider's token
// that the provider's own rule decides on: a Slack token (xoxb-…, xapp-…:
// rule slack checks its ids), or digits, ':A' and more (a Telegram bot
// token) that is not 5 to 16 digits, ':' and 35 of [A-Za-z0-9_-]. A value
// under a token name that claims such a format and breaks it is a test or
// a made-up value, not a live secret of another kind. So is dapi and a
// body that is not 32 lower-case hex digits (rule databricks-api-token
// decides on dapi tokens; dapi1234…defg5 under DATABRICKS_TOKEN is made up).
func foreignShape(b []byte) bool {
	if len(b) > 4 && string(b[:4]) == "dapi" && !databricksBody(b[4:]) {
		return true
	}
	if len(b) > 5 && b[4] == '-' && (string(b[:3]) == "xox" && bytes.IndexByte([]byte("bpares"), b[3]) >= 0 || string(b[:4]) == "xapp") {
		return true
	}
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(b) || b[i] != ':' || b[i+1] != 'A' {
		return false
	}
	for _, c := range b[i+1:] {
		if !setWordDash[c] {
			return false
		}
	}
	return !(5 <= i && i <= 16 && len(b)-i-1 == 35)
}

// databricksBody: 32 lower-case hex digits, then nothing or '-' and digits
// (dapi…-2, the workspace suffix).
func databricksBody(b []byte) bool {
	if len(b) < 32 {
		return false
	}
	for _, c := range b[:32] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	rest := b[32:]
	if len(rest) == 0 {
		return true
	}
	if rest[0] != '-' || len(rest) == 1 {
		return false
	}
	for _, c := range rest[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
