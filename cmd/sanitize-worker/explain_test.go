package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplain: explain names each match's rule, place and verdict, a kept
// match's rules.allow entry, and never prints the text.
func TestExplain(t *testing.T) {
	tok := "ghp_" + strings.Repeat("Ab1x", 9)
	text := "token " + tok + " and MYSQL_PWD=Xq7pLm2vRt9s and <system>hi</system>\n"
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(pol, []byte(`{"rules": {"allow": [{"rule": "password-assignment", "tool": "deploy", "reason": "test fixture"}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		verdicts map[string]string
		code     int
	}{
		{[]string{"explain", "--json"}, map[string]string{"github-pat": "redacted", "password-assignment": "redacted", "pseudo-tag": "removed"}, exitMatched},
		{[]string{"explain", "--json", "--policy", pol, "--tool", "deploy"}, map[string]string{"github-pat": "redacted", "password-assignment": "kept", "pseudo-tag": "removed"}, exitMatched},
		{[]string{"explain", "--json", "--policy", pol, "--tool", "other"}, map[string]string{"github-pat": "redacted", "password-assignment": "redacted", "pseudo-tag": "removed"}, exitMatched},
	} {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), tc.args, strings.NewReader(text), &out, &errb)
		if code != tc.code {
			t.Fatalf("%v: exit %d, stderr %s", tc.args, code, errb.String())
		}
		if strings.Contains(out.String(), tok) || strings.Contains(out.String(), "Xq7pLm2vRt9s") {
			t.Fatalf("%v: the text is printed: %s", tc.args, out.String())
		}
		var ex explanation
		if err := json.Unmarshal(out.Bytes(), &ex); err != nil {
			t.Fatalf("%v: %v: %s", tc.args, err, out.String())
		}
		got := map[string]string{}
		for _, m := range ex.Matches {
			got[m.Rule] = m.Verdict
			if m.Verdict == "kept" && (m.AllowEntry == nil || *m.AllowEntry != 0) {
				t.Errorf("%v: kept without its entry: %+v", tc.args, m)
			}
			if m.Why == "" || m.Length <= 0 {
				t.Errorf("%v: %+v", tc.args, m)
			}
		}
		for rule, v := range tc.verdicts {
			if got[rule] != v {
				t.Errorf("%v: %s %q, want %q (all %v)", tc.args, rule, got[rule], v, got)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch(context.Background(), []string{"explain"}, strings.NewReader("commit 4f2a9c1d0b\n"), &out, &errb); code != exitOK || !strings.Contains(out.String(), "no rule matched") {
		t.Errorf("clean text: exit %d, %q", code, out.String())
	}
}
