package scanners

import "bytes"

// The assignment family: a value assigned to a name that says it is a
// secret (password=, api_key:, "token": "..."); see rules_context.go.

// assignRules are password-, secret- and token-assignment.
func assignRules() []ruleDef {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	pw := base62Alphabet + "!@%^*+=-_"
	// mixed: a password-like value that surely mixes classes.
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
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
