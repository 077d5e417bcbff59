package scanners

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestContextRules: what the generic rules replace (the value only) and what
// they leave alone, in the shapes tools print.
func TestContextRules(t *testing.T) {
	v := fakeChars(base62Alphabet, 20, 11) + "9"
	tok := fakeChars(base62Alphabet, 40, 12)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	const (
		P = "[REDACTED:password-assignment]"
		S = "[REDACTED:secret-assignment]"
		T = "[REDACTED:token-assignment]"
		B = "[REDACTED:basic-auth]"
		R = "[REDACTED:bearer-token]"
		A = "[REDACTED:authorization-header]"
		U = "[REDACTED:url-credentials]"
	)
	tests := []struct{ in, want string }{
		// Assignments: env, YAML, JSON in text, code, shell, flags.
		{"PASSWORD=" + v, "PASSWORD=" + P},
		{"password: " + v + "\nuser: x", "password: " + P + "\nuser: x"},
		{`{"password":"` + v + `","user":"x"}`, `{"password":"` + P + `","user":"x"}`},
		{`{\"password\": \"` + v + `\"}`, `{\"password\": \"` + P + `\"}`},
		{"export DB_PASSWORD=\"" + v + "\"", "export DB_PASSWORD=\"" + P + "\""},
		{"db.password := `" + v + "`", "db.password := `" + P + "`"},
		{"psql --password=" + v + " -h db", "psql --password=" + P + " -h db"},
		{"tool --passwd  " + v, "tool --passwd  " + P},
		{"settings = {'passphrase' => '" + v + "'}", "settings = {'passphrase' => '" + P + "'}"},
		{"the password is password=" + v + ".", "the password is password=" + P + "."},
		{"clientSecret: " + v, "clientSecret: " + S},
		{"AWS_SESSION_TOKEN=" + tok, "AWS_SESSION_TOKEN=" + T},
		{"SLACK_TOKENS=" + tok, "SLACK_TOKENS=" + T},
		{"token: " + tok, "token: " + T},
		{"apikey=" + fakeChars("0123456789abcdef", 32, 13), "apikey=" + S},
		{"api_key: 550e8400-e29b-41d4-a716-446655440000", "api_key: " + S},
		{`os.Setenv("DB_PASSWORD", "` + v + `")`, `os.Setenv("DB_PASSWORD", "` + P + `")`},
		{"AIRTABLE_TOKEN=pat" + v[:14] + "." + fakeChars("0123456789abcdef", 64, 15), "AIRTABLE_TOKEN=[REDACTED:airtable-pat]"}, // the provider rule (lower RuleID) wins the same span
		// Left alone.
		{`os.Setenv("DB_PASSWORD", passwordFromVault)`, `os.Setenv("DB_PASSWORD", passwordFromVault)`},
		{`["password", "token"]`, `["password", "token"]`},
		{`api_key: 'os.environ["API_KEY"]'`, `api_key: 'os.environ["API_KEY"]'`},
		{`{"api_key": "os.environ[\"API_KEY\"]"}`, `{"api_key": "os.environ[\"API_KEY\"]"}`},
		{`"password": "ENV['DB_PASSWORD']"`, `"password": "ENV['DB_PASSWORD']"`},
		{"password=", "password="},
		{"password: \"\"", "password: \"\""},
		{"password = self.password", "password = self.password"},
		{"password: %(db_password)s", "password: %(db_password)s"},
		{"PASSWORD=$DB_PASSWORD", "PASSWORD=$DB_PASSWORD"},
		{"password: <password>", "password: <password>"},
		{"password=xxxxxxxx", "password=xxxxxxxx"},
		{"password=123456789", "password=123456789"},
		{"password: null", "password: null"},
		{"password=qwertyuiop", "password=qwertyuiop"},
		{"reset_password_url=https://x.example/r", "reset_password_url=https://x.example/r"},
		{"passwordHash: " + v, "passwordHash: " + v},
		{"token: " + fakeChars("0123456789abcdef", 40, 14), "token: " + fakeChars("0123456789abcdef", 40, 14)},
		{"cursor_token=" + tok, "cursor_token=" + tok},
		{"password = " + strings.Repeat("a1", 101), "password = " + strings.Repeat("a1", 101)},
		{"password:\n  " + v, "password:\n  " + v},
		// Authorization headers.
		{"Authorization: Basic " + b64("u:"+v), "Authorization: Basic " + B},
		{"authorization: basic " + b64("u:"+v) + "\r\n", "authorization: basic " + B + "\r\n"},
		{"Authorization: Bearer " + tok, "Authorization: Bearer " + R},
		{"-H 'Authorization: Bearer " + tok + "'", "-H 'Authorization: Bearer " + R + "'"},
		{"Authorization: token " + tok, "Authorization: token " + A},
		{"Authorization: Bearer", "Authorization: Bearer"},
		{"Basic " + b64("u:"+v) + "x", "Basic " + b64("u:"+v) + "x"},
		// URLs.
		{"git clone https://bot:" + v + "@github.example/a/b.git", "git clone https://bot:" + U + "@github.example/a/b.git"},
		{"http://u:" + v + "@h/p?q=1", "http://u:" + U + "@h/p?q=1"},
		{"http://u:p@ss" + v + "@h/", "http://u:" + U + "@h/"},
		{"see http://example.com:8080/a@b", "see http://example.com:8080/a@b"},
		{"1http://u:" + v + "@h", "1http://u:" + v + "@h"},
		{`"url": "https:\/\/u:` + v + `@h\/p"`, `"url": "https:\/\/u:` + U + `@h\/p"`},
	}
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	for i, tt := range tests {
		for _, n := range []int{0, 1, 5} {
			got, _ := redactChunks(t, r, tt.in, n)
			if got != tt.want {
				t.Errorf("tests[%d] chunk %d:\n  in %q\n got %q\nwant %q", i, n, tt.in, got, tt.want)
				break
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 3)
		checkAgainstReference(t, c, CatalogOptions{}, strings.Repeat("x ", 150)+tt.in+" tail", 7, 64)
	}
}

func TestValueFilters(t *testing.T) {
	for _, tt := range []struct {
		fn   func([]byte) bool
		in   string
		want bool
	}{
		{sequenceLike, "abcdef", true},
		{sequenceLike, "abc123", true},
		{sequenceLike, "aaaaaaaa", true},
		{sequenceLike, "Zx9!kQ2m", false},
		{uuidLike, "550e8400-e29b-41d4-a716-446655440000", true},
		{uuidLike, "550e8400-e29b-41d4-a716-44665544000g", false},
		{hexLike, strings.Repeat("ab", 20), true},
		{hexLike, strings.Repeat("ab", 21), false},
		{numberLike, "-12.5", true},
		{numberLike, "12a", false},
		{wordLike, "hello World", true},
		{wordLike, "hello1", false},
		{codeLike, "self.password", true},
		{codeLike, "getenv(", true},
		{codeLike, "abc.def1!", false},
		{codeLike, "XUYCk3Lp9QwE.k4rNz7Hq", false}, // a random password with a dot
		{codeLike, "EGGe9Lx2.V7ryQp", false},
		{codeLike, "cfg.Auth0ClientSecret", true},
		{codeLike, "n.password||", true},
		{codeLike, "process.env.REACT_APP_FIREBASE_DEV_PASSWORD", true},
		{codeLike, "settings.default_object_storage_bucket_password", true},
		{codeLike, "pat12345.f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f", false},
		{codeLike, "cfg.Kx7_Qm2vLp9_Zr4TnW8yBc3_Hs6Jd1Fg5", false},
		{codeLike, "opts.token??", true},
		{codeLike, "abc.def1!||", false},
		{codeLike, "XUYCk3Lp9QwE.k4rNz7Hq&&", false},
		{codeLike, "settings.DB_PASSWORD_2", true},
		{codeLike, "app.config.oauth2ClientSecret", true},
		{codeRef, `os.environ["X"]`, true},
		{codeRef, `ENV['X']`, true},
		{codeRef, `Hunter(1)!x`, false},
		{codeRef, "pat12345." + strings.Repeat("ab", 32) + "(", false},
		{placeholder, "${X}", true},
		{placeholder, "%DB_PASS%", true},
		{placeholder, "$HOME", true},
		{placeholder, "$REACT_APP_MATRIX_BASE_URL/classroom/#/forgot_password", true},
		{placeholder, "${HOME}/.config/app/credentials", true},
		{placeholder, "$ecret/x", true},
		{placeholder, "$2b$12$abcdefghijklmnopqrstuv", false},
		{placeholder, "<secret>", true},
		{placeholder, "••••••", true},
		{placeholder, "YourPassword1", true},
		{placeholder, "Zx9!kQ2m", false},
	} {
		if got := tt.fn([]byte(tt.in)); got != tt.want {
			t.Errorf("filter on %q = %v, want %v", tt.in, got, tt.want)
		}
	}
	if e := entropy([]byte("aaaa")); e != 0 {
		t.Errorf("entropy(aaaa) = %v", e)
	}
	if e := entropy([]byte("abcd")); e != 2 {
		t.Errorf("entropy(abcd) = %v", e)
	}
}

// TestPlaceholderWordsOneWalk checks the one-walk placeholder word search
// against a search per word, on strings built from the words' pieces.
func TestPlaceholderWordsOneWalk(t *testing.T) {
	pieces := []string{"a", "X", "7", "-", "_", "$", "{", "%", "*", "Exam", "ple", "CHANGE", "me", "your", "xx", "://", "-----BEGIN", "Sam", "PLE", "dum", "MY", "redact", "ED"}
	naive := func(b []byte) bool {
		for _, w := range placeholderWords {
			if containsFold(b, w) {
				return true
			}
		}
		return false
	}
	x := uint32(1)
	for n := 0; n < 20000; n++ {
		var b []byte
		for k := 0; k < 1+n%7; k++ {
			x = x*1664525 + 1013904223
			b = append(b, pieces[int(x>>16)%len(pieces)]...)
		}
		if one := hasPlaceholderWord(b); one != naive(b) {
			t.Fatalf("%q: one walk %v, per word %v", b, one, !one)
		}
	}
}
