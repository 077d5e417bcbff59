package scanners

import (
	"encoding/base64"
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
	b64v := fakeChars(base62Alphabet+"+/", 30, 3) + "=="
	ico := fakeChars(base62Alphabet, 32, 12)
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
		{"kubernetes secret, kind first", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  extra: " + b64v + "\n", b64v},
		{"kubernetes secret, kind after", "apiVersion: v1\ndata:\n  extra: " + b64v + "\nmetadata:\n  name: db\nkind: Secret\n", b64v},
		{"kubernetes secret, JSON-escaped", `{"content": "kind: \"Secret\"\n\tdata:\n\t  key.pem: |\n\t    ` + b64v + `"}`, b64v},
		{"kubernetes secret, quoted value", "kind: 'secret'\ndata:\n  token: '" + b64v + "'\n", b64v},
		{"kubernetes configmap", "kind: ConfigMap\ndata:\n  extra: " + b64v + "\n", ""},
		{"kubernetes secret, kind far from data", "kind: Secret\n" + strings.Repeat("# x\n", 80) + "data:\n  extra: " + b64v + "\n", ""},
		{"kubernetes secret, kind in a word", "subkind: Secret\ndata:\n  extra: " + b64v + "\n", ""},
		{"kubernetes secret, metadata only", "kind: Secret\nmetadata:\n  extra: " + b64v + "\n", ""},
		{"kubernetes secret, a value on the data line", "kind: Secret\ndata: extra: " + b64v + "\n", ""},
		{"slack workflow trigger", "https://hooks.slack.com/triggers/" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 56, 4), "?"},
		{"basic credentials with a Latin-1 byte in the password", "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("svc:"+fakeChars(base62Alphabet, 10, 8)+"\xe9"+fakeChars(base62Alphabet, 10, 9))), "?"},
		{"basic credentials with a control byte", "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("svc:"+fakeChars(base62Alphabet, 10, 10)+"\x01"+fakeChars(base62Alphabet, 10, 11))), ""},
		{"a token at a line start in JSON-escaped text", `"content": "deploy:\nico-` + ico + `\nfly deploy"`, ico},
		{"a token after an escaped tab", `"content": "key:\tico-` + ico + `"`, ico},
		{"a token glued to a word", `"content": "xico-` + ico + `"`, ""},
		{"a token after an escaped backslash and n", `"content": "C:\\nico-` + ico + `"`, ""},
		{"stripe rk_prod_", "rk_prod_" + fakeChars(base62Alphabet, 99, 5), "?"},
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
