package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestIdentifierSecrets: a secret in the tool name, server, tenant or
// request id never reaches the label or the evidence; a plain name stays.
func TestIdentifierSecrets(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("Ab1x", 9)
	sk := "sk-proj-" + strings.Repeat("Zq9_", 8)
	aws := "AKIA" + "QZ7YB3XN5W2LR4TJ"
	for _, tc := range []struct {
		name        string
		info        MessageInfo
		secrets     []string
		label, tool string
		n           int64
	}{
		{"tool is a token", MessageInfo{Kind: KindToolResult, Tool: ghp}, []string{ghp}, "Untrusted tool output from REDACTED:github-pat:\n", "REDACTED:github-pat", 1},
		{"token inside a tool name", MessageInfo{Kind: KindToolResult, Tool: "call_" + sk}, []string{sk[3:]}, "Untrusted tool output from call_REDACTED:generic-sk:\n", "call_REDACTED:generic-sk", 1},
		{"token after look-alikes", MessageInfo{Kind: KindToolResult, Tool: "ｇｈｐ_" + ghp[4:]}, []string{ghp[4:]}, "Untrusted tool output from REDACTED:github-pat:\n", "REDACTED:github-pat", 1},
		{"server, tenant, request id", MessageInfo{Kind: KindToolResult, Tool: "search", Server: aws, Tenant: ghp, RequestID: sk}, []string{aws, ghp[4:], sk[3:]}, "Untrusted tool output from search:\n", "search", 3},
		{"plain names stay", MessageInfo{Kind: KindToolResult, Tool: "get-task-list-for-the-whole-team", Server: "github-mcp"}, nil, "Untrusted tool output from get-task-list-for-the-whole-team:\n", "get-task-list-for-the-whole-team", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, tc.info, textResult("hello"))
			evb, _ := json.Marshal(ev)
			for _, s := range tc.secrets {
				if strings.Contains(out, s) || strings.Contains(string(evb), s) {
					t.Errorf("secret %q survives: out %s evidence %s", s, out, evb)
				}
			}
			if got := firstText(t, out); !strings.HasPrefix(got, tc.label) {
				t.Errorf("text %q, want the label %q", got, tc.label)
			}
			if ev.Tool != tc.tool || ev.IdentifierSecrets != tc.n {
				t.Errorf("evidence tool %q identifierSecrets %d, want %q %d", ev.Tool, ev.IdentifierSecrets, tc.tool, tc.n)
			}
		})
	}
}
