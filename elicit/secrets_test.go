package elicit

import (
	"encoding/json"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// The URL guard finds credentials with the scanners' catalog. Each case is a
// well-formed example of a shape the guard refused before it used the
// catalog (JWT, GitHub, GitLab, Slack, OpenAI, AWS and Google keys), short
// enough that the entropy rule alone would not refuse it where noted.
func TestURLSecretsFromCatalog(t *testing.T) {
	tests := []struct{ name, value string }{
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"},
		{"github-pat-classic", testtokens.GitHub("ghp_", 1)},
		{"github-pat-fine", "github_pat_" + testtokens.Random(2, testtokens.Base62, 22) + "_" + testtokens.Random(3, testtokens.Base62, 59)},
		{"gitlab-pat", "glpat-" + testtokens.Random(4, testtokens.Base62, 20)},
		{"slack-bot", "xoxb-" + testtokens.Random(5, testtokens.Digits, 12) + "-" + testtokens.Random(6, testtokens.Digits, 13) + "-" + testtokens.Random(7, testtokens.Base62, 24)},
		{"slack-user", "xoxp-" + testtokens.Random(8, testtokens.Digits, 11) + "-" + testtokens.Random(9, testtokens.Digits, 11) + "-" + testtokens.Random(10, testtokens.Digits, 12) + "-" + testtokens.Random(11, testtokens.Hex, 32)},
		{"openai", "sk-" + testtokens.Random(12, testtokens.Base62, 48)},
		{"aws-access-key", "AKIAZ3MSJV4WWGPVMRMB"},
		{"google-api-key", "AIza" + testtokens.Random(13, testtokens.Base62, 35)},
		{"homoglyph-prefix", "АKIAZ3MSJV4WWGPVMRMB"}, // Cyrillic А
		{"zero-width", "AKIA\u200bZ3MSJV4WWGPVMRMB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !catalogSecret(tt.value) {
				t.Fatalf("catalog finds no secret in the %s example", tt.name)
			}
			u := "https://auth.example.com/connect?x=" + tt.value
			params, _ := json.Marshal(map[string]string{"mode": "url", "message": "Continue in the browser", "url": u, "elicitationId": "elic-0123456789"})
			if _, err := CheckURLRequest(params); statekeys.ReasonOf(err) != statekeys.ReasonURLSecret {
				t.Fatalf("got %s, want %s", statekeys.ReasonOf(err), statekeys.ReasonURLSecret)
			}
		})
	}
	for _, s := range []string{"elic-0123456789", "3f2b8c1e-4d5a-4b7e-9c3f-1a2b3c4d5e6f", "connect", "en", "settings"} {
		if catalogSecret(s) {
			t.Errorf("%q taken for a secret", s)
		}
	}
}

// Labels made only of look-alike letters are folded too (the scanners'
// Normalizer folds them only inside mixed-script words).
func TestSensitiveTextAllLookalikes(t *testing.T) {
	for _, s := range []string{"ОТР", "Enter the ОТР", "ІВАN"} { // Cyrillic О Т Р, І В А
		if _, hit := sensitiveText(s); !hit {
			t.Errorf("%q not detected", s)
		}
	}
}

// labelLookalikes only adds to the scanners' table, and each of its letters
// still unmasks a disguised label.
func TestLabelLookalikesExtendScanners(t *testing.T) {
	tests := []struct {
		r     rune
		label string
	}{
		{'α', "pαssword"}, {'ι', "ιban"}, {'κ', "api κey"}, {'ν', "cνv"}, {'ρ', "ρassword"}, {'τ', "τoken"},
		{'в', "вiometric"}, {'к', "api кey"}, {'м', "мnemonic"}, {'н', "нealth record"}, {'т', "тoken"},
	}
	seen := map[rune]bool{}
	for _, tt := range tests {
		seen[tt.r] = true
		if _, ok := labelLookalikes[tt.r]; !ok {
			t.Errorf("%q is not in labelLookalikes", tt.r)
		}
		if _, ok := scanners.ConfusableLatin(tt.r); ok {
			t.Errorf("%q is in the scanners' table too", tt.r)
		}
		if _, hit := sensitiveText(tt.label); !hit {
			t.Errorf("%q (%U) not detected", tt.label, tt.r)
		}
	}
	for r := range labelLookalikes {
		if !seen[r] {
			t.Errorf("%q has no example here", r)
		}
	}
}
