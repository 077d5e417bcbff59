package scanners

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
	classKey
)

// Limits of the context rules.
const (
	ctxMaxPrefix = 48   // bytes of key name before the keyword that are looked at
	ctxMaxSuffix = 24   // bytes of key name after the keyword
	ctxMaxSpace  = 8    // spaces or tabs around an operator
	ctxMaxValue  = 1024 // longest assigned value considered (a long OAuth or session token)
	ctxMaxSpaced = 200  // longest assigned value with a space in it (words, a passphrase)
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

// contextRules are the generic rules for unprefixed secrets, in RuleID
// order: the assignment family (rules_context_assign.go), the HTTP
// authorization family (rules_context_http.go), URL user information
// (rules_context_url.go) and a value after a service's name
// (rules_context_service.go).
func contextRules() []ruleDef {
	var rs []ruleDef
	rs = append(rs, assignRules()...)
	rs = append(rs, httpAuthRules()...)
	rs = append(rs, urlCredRules()...)
	rs = append(rs, serviceRules()...)
	return rs
}
