package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func allowPolicy(entries []AllowEntry, minConf string) *Policy {
	pol := DefaultPolicy()
	pol.Rules.Allow = entries
	pol.Rules.MinConfidence = minConf
	pol.Fingerprint.KeyEnv = "MCP_SANITIZE_TEST_FP_KEY"
	return pol
}

// TestAllow: rules.allow keeps the matches its entries describe (by rule,
// fingerprint, tool, server, path, until expiry), records them in evidence
// without their bytes, and redacts the rest.
func TestAllow(t *testing.T) {
	t.Setenv("MCP_SANITIZE_TEST_FP_KEY", "0123456789abcdef0123456789abcdef")
	tok := "ghp_" + strings.Repeat("Ab1x", 9)
	other := "glpat-" + strings.Repeat("Zq9k", 5)
	text := "a " + tok + " b " + other + " c"
	in := textResult(text)
	// The fingerprint evidence shows for tok, under the test key.
	_, ev0 := run(t, allowPolicy(nil, ""), toolInfo, in)
	if len(ev0.Findings) != 2 {
		t.Fatalf("findings %+v", ev0.Findings)
	}
	fp := ev0.Findings[0].Fingerprint
	past := time.Now().Add(-time.Hour).Format(time.RFC3339)
	future := time.Now().Add(time.Hour).Format(time.RFC3339)
	for _, tc := range []struct {
		name    string
		entries []AllowEntry
		info    MessageInfo
		kept    bool
	}{
		{"by rule and tool", []AllowEntry{{Rule: "github-pat", Tool: "search"}}, toolInfo, true},
		{"by fingerprint", []AllowEntry{{Fingerprint: fp}}, toolInfo, true},
		{"by path", []AllowEntry{{Rule: "github-pat", Path: "/content/0"}}, toolInfo, true},
		{"by the text's path", []AllowEntry{{Rule: "github-pat", Path: "/content/0/text"}}, toolInfo, true},
		{"not yet expired", []AllowEntry{{Rule: "github-pat", Expires: future}}, toolInfo, true},
		{"expired", []AllowEntry{{Rule: "github-pat", Expires: past}}, toolInfo, false},
		{"other tool", []AllowEntry{{Rule: "github-pat", Tool: "read_file"}}, toolInfo, false},
		{"other server", []AllowEntry{{Rule: "github-pat", Server: "x"}}, MessageInfo{Kind: KindToolResult, Tool: "search", Server: "y"}, false},
		{"other path", []AllowEntry{{Rule: "github-pat", Path: "/content/1"}}, toolInfo, false},
		{"other fingerprint", []AllowEntry{{Fingerprint: strings.Repeat("ab", 16)}}, toolInfo, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, allowPolicy(tc.entries, ""), tc.info, in)
			got := firstText(t, out)
			if strings.Contains(got, other) {
				t.Fatalf("the other secret survives: %q", got)
			}
			if strings.Contains(got, tok) != tc.kept {
				t.Fatalf("kept %v, want %v: %q", !tc.kept, tc.kept, got)
			}
			evb, _ := json.Marshal(ev)
			if strings.Contains(string(evb), tok) {
				t.Fatalf("evidence holds the secret: %s", evb)
			}
			if tc.kept {
				if ev.SuppressedCount != 1 || len(ev.Suppressed) != 1 || ev.Suppressed[0].Rule != "github-pat" || ev.Suppressed[0].Entry != 0 || ev.Suppressed[0].Pointer != ev0.Findings[0].Pointer {
					t.Fatalf("suppressed %+v", ev.Suppressed)
				}
				if ev.Rules["github-pat"] != 0 || len(ev.Findings) != 1 {
					t.Fatalf("a kept match counted as a redaction: %+v", ev.Rules)
				}
			} else if ev.SuppressedCount != 0 {
				t.Fatalf("suppressed %+v", ev.Suppressed)
			}
		})
	}
	// A secret split over two text blocks is joined; the allow entry still
	// decides.
	two := `{"content":[{"type":"text","text":"a ` + tok[:10] + `"},{"type":"text","text":"` + tok[10:] + ` z"}]}`
	out, ev := run(t, allowPolicy([]AllowEntry{{Rule: "github-pat"}}, ""), toolInfo, two)
	if !strings.Contains(out, tok[10:]) || ev.SuppressedCount != 1 {
		t.Errorf("joined blocks: %s %+v", out, ev.Suppressed)
	}
	out, _ = run(t, allowPolicy(nil, ""), toolInfo, two)
	if strings.Contains(out, tok[10:]) {
		t.Errorf("joined blocks without allow: %s", out)
	}
}

func TestAllowValidate(t *testing.T) {
	for _, tc := range []struct {
		entries []AllowEntry
		minConf string
		ok      bool
	}{
		{[]AllowEntry{{Tool: "search"}}, "", false},
		{[]AllowEntry{{Fingerprint: "xyz"}}, "", false},
		{[]AllowEntry{{Rule: "jwt", Expires: "tomorrow"}}, "", false},
		{[]AllowEntry{{Rule: "jwt", Path: "content"}}, "", false},
		{nil, "sure", false},
		{[]AllowEntry{{Rule: "jwt", Path: "/content", Expires: "2030-01-01T00:00:00Z"}}, "medium", true},
	} {
		pol := DefaultPolicy()
		pol.Rules.Allow, pol.Rules.MinConfidence = tc.entries, tc.minConf
		if err := pol.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v %q: %v", tc.entries, tc.minConf, err)
		}
	}
}

// TestMinConfidence: rules below the level are off; the seed's shapes stay.
func TestMinConfidence(t *testing.T) {
	t.Setenv("MCP_SANITIZE_TEST_FP_KEY", "0123456789abcdef0123456789abcdef")
	val := "hT9pWq2LmX7vB4nR8sY1cZ6dF3gK5jQe"
	low := "token: " + val                      // token-assignment (low)
	sk := "sk-" + strings.Repeat("testtest", 3) // generic-sk (high, the seed's floor)
	in := textResult(low + "\n" + sk)
	out, _ := run(t, allowPolicy(nil, "high"), toolInfo, in)
	got := firstText(t, out)
	if !strings.Contains(got, val) || strings.Contains(got, sk) {
		t.Errorf("minConfidence high: %q", got)
	}
	out, _ = run(t, allowPolicy(nil, ""), toolInfo, in)
	if strings.Contains(firstText(t, out), val) {
		t.Errorf("default: %q", out)
	}
}
