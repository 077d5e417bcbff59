package scanners

// URL user information: scheme://user:password@host.

// urlCredRules are cli-user-password and url-credentials.
func urlCredRules() []ruleDef {
	pw := base62Alphabet + "!@%^*+=-_"
	// mixed: a password-like value that surely mixes classes.
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
	return []ruleDef{
		{
			id: "cli-user-password", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "password of user:password after a -u or --user flag (curl -u user:password, --user=user:password); the password is replaced, the user stays",
			forms: []form{cliUserForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"curl -u deploy:" + mixed(14, 31) + " https://x.io",
					"curl -k --user elastic:" + mixed(12, 32) + " https://es:9200",
					"wget --user=svc:" + mixed(16, 33) + " https://f.io/a",
					`curl -u "api:` + mixed(18, 34) + `" https://x`,
					`curl -u ":` + mixed(14, 35) + `" https://x`,
					`curl -u "` + fakeChars(base62Alphabet, 24, 36) + `:" https://x`,
				}
				fp = []string{
					"docker run -u 1000:1000 image",
					"curl -u user:password https://x",
					"curl -u <user:password> https://test.com/endpoint",
					"curl -u $USER:$PASS https://x",
					"ps -u root:root",
					`curl -u "admin:" https://x`,
				}
				return
			},
		},
		{
			id: "url-credentials", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  "password in the user information of a URL (any scheme://user:password@host); the password is replaced, user and host stay",
			forms: []form{urlCredForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"https://deploy:" + mixed(16, 1) + "@git.example.com/org/repo.git",
					"wss://svc:" + fakeChars(base62Alphabet, 24, 2) + "@stream.internal:8443/feed",
					"proxy=http://proxyuser:" + fakeChars(base62Alphabet, 12, 3) + "@10.0.0.1:3128",
					"ftp://:" + fakeChars(base62Alphabet, 10, 4) + "@files.example.org",
				}
				fp = []string{
					"https://user:password@example.com",
					"https://example.com:8443/path@v2",
					"postgres://app:${DB_PASSWORD}@db:5432/app",
					"ssh://git@github.com/org/repo.git",
					"https://admin:****@host",
				}
				return
			},
		},
	}
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

// CLI user information limits.
const (
	cliMaxUser = 128
	cliMaxPass = 256
)

var setCLIUser = makeSet("!#-&(-9;-Z^-~\\") // printable, no space, quote, colon, apostrophe or bracket

// cliTokenUser reports a user with an empty password that is a key, not a
// name: a plausible secret mixing upper case, lower case and digits.
func cliTokenUser(u []byte) bool {
	if up, lo, dg := hasClasses(u); !(up && lo && dg) {
		return false
	}
	return u[0] != '$' && u[0] != '<' && plausibleValue(u, true, classSecret, false)
}

// cliUserForm: " -u ", " --user " or " --user=", spaces after a keyword
// that ends in one, an optional quote (also JSON-escaped: \"), a user
// (1..cliMaxUser bytes without space, quote or ':'), ':', and a password
// (1..cliMaxPass bytes without space or quote) that passes the password
// filters and is no URL word (user, password, ...). The quote wraps
// user:password, or, when there is none before the user, the password
// alone (--user kevin:'pw').
func cliUserForm() form {
	return form{
		keywords: []string{" -u ", " --user ", " --user="},
		back:     1,
		ahead:    len(" --user=") + ctxMaxSpace + 2 + cliMaxUser + 3 + cliMaxPass + 2 + ctxMargin,
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ke
			if d[ke-1] == ' ' {
				for i < len(d) && i-ke < ctxMaxSpace && (d[i] == ' ' || d[i] == '\t') {
					i++
				}
			}
			if v.more(i + 1) {
				return result{status: resMore}
			}
			q, n := quoteAt(d, i)
			i += n
			u := i
			for i < len(d) && i-u <= cliMaxUser && setCLIUser[d[i]] && d[i] != '"' && d[i] != '`' && !(n == 2 && d[i] == '\\') {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == u && q == 0 || i-u > cliMaxUser || i >= len(d) || d[i] != ':' {
				return noMatch // an empty user only quoted: -u ":password"
			}
			ps := i + 1
			cq, cn := q, n // the quote that closes the password
			if q == 0 {
				if v.more(ps + 1) {
					return result{status: resMore}
				}
				cq, cn = quoteAt(d, ps)
				ps += cn
			}
			j := ps
			for j < len(d) && j-ps <= cliMaxPass && d[j] > ' ' && d[j] != 0x7f && d[j] != '"' && d[j] != '\'' && d[j] != '`' && d[j] != '[' && d[j] != ']' && !(cn == 2 && d[j] == '\\') {
				j++
			}
			if v.more(j + 1) {
				return result{status: resMore}
			}
			closed := cq == 0 || cn == 1 && j < len(d) && d[j] == cq || cn == 2 && j+1 < len(d) && d[j] == '\\' && d[j+1] == cq
			if j == ps && q != 0 && closed && i > u && cliTokenUser(d[u:i]) {
				return result{status: resMatch, start: u, end: i} // -u "token:": an API key as the user, no password
			}
			if j == ps || j-ps > cliMaxPass || !closed {
				return noMatch
			}
			pass := d[ps:j]
			for _, w := range urlPasswordWords {
				if len(pass) == len(w) && containsFold(pass, w) {
					return noMatch
				}
			}
			if !plausibleValue(pass, cq != 0, classPassword, false) || d[u] == '$' || d[u] == '<' {
				return noMatch
			}
			return result{status: resMatch, start: ps, end: j}
		},
	}
}
