package pipeline

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// TestEncodedSecretEvidence: a secret inside a base64 run in text is
// redacted (the whole run) and its finding says how it was encoded;
// rules.disableDecoding turns that off.
func TestEncodedSecretEvidence(t *testing.T) {
	tok := fakeGitHubToken(9)
	blob := base64.StdEncoding.EncodeToString([]byte("registry auth: " + tok))
	in := textResult("config " + blob + " end")
	out, ev := run(t, nil, toolInfo, in)
	if strings.Contains(out, blob) || !strings.Contains(out, "[REDACTED:github-pat]") {
		t.Fatalf("blob not redacted: %s", out)
	}
	if len(ev.Findings) != 1 || ev.Findings[0].Encoding != "base64" || ev.Findings[0].Checksum != "valid" || ev.Findings[0].Length != len(blob) {
		t.Fatalf("findings %+v", ev.Findings)
	}
	pol := DefaultPolicy()
	pol.Rules.DisableDecoding = true
	out, ev = run(t, pol, toolInfo, in)
	if !strings.Contains(out, blob) || len(ev.Findings) != 0 {
		t.Fatalf("decoding off: %s %+v", out, ev.Findings)
	}
}

// TestInvalidChecksumPolicy: "redact" (default) replaces a token whose
// checksum fails, "keep" leaves it; other values are rejected.
func TestInvalidChecksumPolicy(t *testing.T) {
	tok := fakeGitHubToken(4)
	bad := tok[:len(tok)-1] + "x"
	if tok[len(tok)-1] == 'x' {
		bad = tok[:len(tok)-1] + "y"
	}
	in := textResult("t " + bad)
	out, ev := run(t, nil, toolInfo, in)
	if strings.Contains(out, bad) || len(ev.Findings) != 1 || ev.Findings[0].Checksum != "invalid" {
		t.Fatalf("default: %s %+v", out, ev.Findings)
	}
	pol, err := ParsePolicy([]byte("rules:\n  invalidChecksum: keep\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, _ = run(t, pol, toolInfo, in)
	if !strings.Contains(out, bad) {
		t.Fatalf("keep: %s", out)
	}
	if _, err := ParsePolicy([]byte("rules:\n  invalidChecksum: drop\n")); !errors.Is(err, ErrPolicy) {
		t.Fatalf("bad value accepted: %v", err)
	}
}
