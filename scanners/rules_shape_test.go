package scanners

import (
	"strings"
	"testing"
)

// TestStrictShapes: values that claim a strict provider format and break
// it are left alone, by the provider's rule and by the assignment rules;
// the well-formed values beside them are still redacted. The values are
// synthetic (fakeChars).
func TestStrictShapes(t *testing.T) {
	wd := base62Alphabet + "_-"
	digits := "0123456789"
	hex := "0123456789abcdef"
	cases := []struct {
		name, in string
		redact   bool
	}{
		{"telegram well-formed under a token name", `telegram_api_token = "` + fakeChars(digits, 9, 1) + ":A" + fakeChars(wd, 34, 2) + `"`, true},
		{"telegram short id", `telegram_api_token = "` + fakeChars(digits, 4, 3) + ":A" + fakeChars(wd, 34, 4) + `"`, false},
		{"telegram long id", `telegram_api_token = "` + fakeChars(digits, 17, 5) + ":A" + fakeChars(wd, 34, 6) + `"`, false},
		{"telegram long secret", `telegram_api_token = "` + fakeChars(digits, 8, 7) + ":A" + fakeChars(wd, 41, 8) + `"`, false},
		{"slack well-formed bot token", "xoxb-" + fakeChars(digits, 12, 9) + "-" + fakeChars(digits, 13, 10) + "-" + fakeChars(base62Alphabet, 24, 11), true},
		{"slack short ids", "xoxb-" + fakeChars(digits, 5, 12) + "-" + fakeChars(hex, 7, 13), false},
		{"slack four-digit groups", `"token3": "xoxp-` + fakeChars(digits, 4, 14) + "-" + fakeChars(digits, 4, 15) + "-" + fakeChars(digits, 4, 16) + "-" + fakeChars(hex, 32, 17) + `"`, false},
		{"slack filler after the ids", `"token4": "xoxp-` + fakeChars(digits, 12, 18) + "-" + fakeChars(digits, 12, 19) + "-" + fakeChars(digits, 12, 20) + "-" + strings.Repeat("#", 20) + `"`, false},
		{"slack version digit only", "xoxe-1-" + fakeChars(base62Alphabet, 140, 21), true},
		{"pem without a body", "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----", false},
		{"pkcs8 without a body: the seed's floor", "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----", true},
		{"pem empty", "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----", false},
		{"pem with a body", "-----BEGIN PRIVATE KEY-----\n" + fakeChars(base62Alphabet, 64, 22) + "\n-----END PRIVATE KEY-----", true},
		{"huggingface camel-case selector", "- (id)hf_preferredLayoutAttributesForDisplayConfiguration;", false},
		{"huggingface random", "hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 23), true},
		{"terraform filler", `token = "` + strings.Repeat("x", 14) + ".atlasv1." + strings.Repeat("x", 67) + `"`, false},
		{"jenkins ciphertext beside hex", "<secret>{AQAAABAAA " + fakeChars(hex, 32, 25) + "}</secret>", true},
		{"jenkins ciphertext after a name", "<secret>{svc AQAAABAAA " + fakeChars(hex, 64, 26) + "}</secret>", true},
		{"braced words, no ciphertext", "<secret>{see the vault}</secret>", false},
		{"azure client secret filler", "client_secret=" + fakeChars(base62Alphabet, 3, 27) + "8Q~" + strings.Repeat("x", 34), false},
		{"azure client secret random", "client_secret=" + fakeChars(base62Alphabet, 3, 28) + "8Q~" + fakeChars(base62Alphabet, 34, 29), true},
		{"a quoted name fragment as the value", `telegram_api_token = "telegram_api_token = "x""`, false},
		{"okta filler under an okta name", "oktaKey = 00" + strings.Repeat("0", 33) + "QRSTUVW", false},
		{"okta random under an okta name", "oktaKey = 00" + fakeChars(wd, 40, 24), true},
	}
	r := newTestCatalog(t, CatalogOptions{}).NewRedactor(testKey)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := redactChunks(t, r, tc.in, 0)
			if got := out != tc.in; got != tc.redact {
				t.Errorf("%q: redacted %v, want %v (out %q)", tc.in, got, tc.redact, out)
			}
		})
	}
}
