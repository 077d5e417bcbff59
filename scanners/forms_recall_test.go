package scanners

import (
	"strings"
	"testing"
)

// TestRecallForms: syntaxes of credentials that rules read beyond their
// first forms (curl's --user variants, ...), each through the Redactor and
// against the reference model, beside the forms that stay no secret. The
// values are synthetic (fakeChars).
func TestRecallForms(t *testing.T) {
	pw := base62Alphabet + "!@#%^*~"
	pass := fakeChars(pw, 14, 1) + "7!"
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	cases := []struct {
		name, in, secret string // secret "": nothing is redacted
	}{
		{"curl --user with two spaces", "curl -X POST --user  'ops:" + pass + "' https://x", pass},
		{"curl --user, the password quoted alone", "curl --user kevin:'" + pass + "' -iX PATCH", pass},
		{"curl -u in JSON-escaped quotes", `curl -s --user \"j.smith:` + pass + `\" \"https://x\"`, pass},
		{"curl -u, an empty user in escaped quotes", `curl -u \":` + pass + `\" https://x`, pass},
		{"curl -u, a password of random letters", "curl -k \\\n  -u developer:" + fakeChars(letters, 16, 2), "?"},
		{"curl -u, a password of words", "curl -u developer:correcthorsebattery https://x", ""},
		{"curl -u, a password in camel-case words", "curl -u developer:CorrectHorseBattery https://x", ""},
		{"curl -u, the escaped quote not closed", `curl -u \"ops:` + pass + ` https://x`, ""},
		{"curl -u, the password quote not closed", "curl -u ops:'" + pass + " https://x", ""},
		{"curl -u, too many spaces", "curl -u          ops:" + pass, ""},
	}
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkAgainstReference(t, c, CatalogOptions{}, tc.in, 1, 7)
			out, _ := redactChunks(t, r, tc.in, 0)
			switch tc.secret {
			case "":
				if out != tc.in {
					t.Errorf("%q: redacted to %q, want unchanged", tc.in, out)
				}
			case "?":
				if out == tc.in {
					t.Errorf("%q: unchanged, want redacted", tc.in)
				}
			default:
				if out == tc.in || strings.Contains(out, tc.secret) {
					t.Errorf("%q: out %q still holds the secret", tc.in, out)
				}
			}
		})
	}
}
