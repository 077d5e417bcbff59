package scanners

import (
	"strings"
	"testing"
)

// TestNamedAssignments: the code forms of an assignment (a subscript key, a
// comparison, the value on the next line, a carriage return before the
// closing quote), numbered and glued key names, a bare name as a URL query
// parameter, random letters and short values after a named token, and long
// values. Each case is also compared with the whole-string reference in
// several chunkings.
func TestNamedAssignments(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	tok := fakeChars(base62Alphabet, 32, 201)
	hex32 := fakeChars("0123456789abcdef", 32, 202)
	uuid := fakeUUID(203)
	// Random letters of both cases (no digit), as some vendors issue.
	letters := "vQrEclFwOqeAzTmbWtVk"
	short := "q7wz3mxk9p" // 10 bytes, letters and digits
	long := fakeChars(base62Alphabet+"._-", 700, 205)
	const (
		S = "[REDACTED:secret-assignment]"
		T = "[REDACTED:token-assignment]"
		K = "[REDACTED:key-assignment]"
	)
	tests := []struct{ in, want string }{
		// Code: a subscript key, a comparison, the value on the next line.
		{`os.environ["OPENAI_API_KEY"] = '` + hex32 + `'`, `os.environ["OPENAI_API_KEY"] = '` + S + `'`},
		{`env['AUTH_TOKEN'] = "` + tok + `"`, `env['AUTH_TOKEN'] = "` + T + `"`},
		{`if svcKey != "` + tok + `" {`, `if svcKey != "` + K + `" {`},
		{"const scraperApiKey =\n  \"" + tok + "\";", "const scraperApiKey =\n  \"" + S + "\";"},
		{`const scraperApiKey =\n    \"` + tok + `\";`, `const scraperApiKey =\n    \"` + S + `\";`},
		{"svc token = '" + tok + "\r'", "svc token = '" + T + "\r'"},
		// Key names: numbered, glued to s (Duo) or write, a query parameter.
		{"sumoKey1 = '" + tok + "'", "sumoKey1 = '" + K + "'"},
		{"svc_key12: " + tok, "svc_key12: " + K},
		{"DUO_SKEY=" + tok, "DUO_SKEY=" + K},
		{`"duo_skey": "` + tok + `"`, `"duo_skey": "` + K + `"`},
		{`writekey := "` + tok + `"`, `writekey := "` + K + `"`},
		{`base_url: "https://api.example.com/v1/user?key=` + uuid + `"`, `base_url: "https://api.example.com/v1/user?key=` + K + `"`},
		{"https://api.example.com/v1?a=1&token=" + uuid, "https://api.example.com/v1?a=1&token=" + T},
		// Random letters and 10-byte values after a named token.
		{"svc token = '" + letters + "'", "svc token = '" + T + "'"},
		{"crawl_token: " + letters, "crawl_token: " + T},
		// A password of random letters in both cases is no word.
		{"password: " + letters, "password: [REDACTED:password-assignment]"},
		{"svc token = '" + short + "'", "svc token = '" + T + "'"},
		// A long token, and its later occurrence on the line.
		{"svc token = '" + long + "' | '" + long + "'", "svc token = '" + T + "' | '" + T + "'"},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 5} {
			got, _ := redactChunks(t, r, tt.in, n)
			if got != tt.want {
				t.Errorf("chunk %d: %q\n got %q\nwant %q", n, tt.in, got, tt.want)
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 3)
		checkAgainstReference(t, c, CatalogOptions{}, strings.Repeat("x ", 150)+tt.in+" tail", 7, 64)
	}
	keep := []string{
		// A subscript is read, not assigned; a key name is not a subscript
		// of a name ending in the word (monkey).
		`token = os.environ["API_TOKEN"]`,
		`x = cfg["api_key"]: "` + tok + `"`,
		// Identifiers, words and constants after a named token: no random letters.
		"svc token = 'getAccessTokenFromCache'",
		"svc token = 'XMLHttpRequestFactory'",
		"svc token = 'BEARERTOKENVALUE'",
		"svc_token = 'abcdefghijkl'",
		// Random letters after a bare name.
		"token: " + letters,
		// Names that end in key and something else; a letter after key.
		"monkey1 = " + tok,
		"sumoKey123 = " + tok,
		"whiskey = " + tok,
		"keyx1 = " + tok,
		// A query parameter whose value is no credential.
		"https://example.com/search?key=value&token=abc",
		// The next line holds no quoted value; a long value with spaces.
		"api_key =\n  other_name",
		`api_key = "` + strings.Repeat("word ", 60) + tok + `"`,
		// Over the limit of a value.
		"svc token = '" + fakeChars(base62Alphabet, ctxMaxValue+1, 206) + "'",
	}
	for _, s := range keep {
		for _, n := range []int{0, 1, 5} {
			if got, fs := redactChunks(t, r, s, n); got != s {
				t.Errorf("chunk %d: %q changed to %q (%v)", n, s, got, ruleNames(c, fs))
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, s, 1, 3)
	}
}

// TestRandomLetters: what randomLetters reads as random letters.
func TestRandomLetters(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"vZrEclFwOqeA", true},
		{"SSVmFDNCFfOHKXQAEckx", true},
		{"wjXKCFzOWEPRqhTmmbWtVQ", true},
		{"vZrEclFwOqe", false},             // 11 bytes
		{"getAccessTokenFromCache", false}, // camel case: runs of 3 to 5
		{"XMLHttpRequest", false},
		{"ABCDEFGHIJKLMNOP", false}, // one case
		{"abcdefghijklmnop", false},
		{"vZrEclFwOqeA1", false}, // a digit: not letters only
		{"AbAbAbAbAbAb", true},   // alternating case (sequenceLike decides on repeats)
		{"aBCDEFGHIJKLm", false}, // two lower-case letters
	}
	for _, tt := range tests {
		if got := randomLetters([]byte(tt.in)); got != tt.want {
			t.Errorf("randomLetters(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
