package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResourcesWorkedExample runs the commands of docs/resources.md's
// worked example: keygen, uri, sign, verify (and verify of changed
// content and of another path, which must be refused).
func TestResourcesWorkedExample(t *testing.T) {
	dir := t.TempDir()
	run := func(stdin string, args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := runResources(context.Background(), args, strings.NewReader(stdin), &out, &errb)
		if errb.Len() > 0 && code == exitOK {
			t.Logf("stderr: %s", errb.String())
		}
		return out.String(), code
	}
	key := filepath.Join(dir, "broker.key")
	out, code := run("", "keygen", "--out", key, "--id", "broker-1")
	if code != exitOK || !strings.Contains(out, "broker-1: ") {
		t.Fatalf("keygen: %d %s", code, out)
	}
	pub := strings.TrimSpace(out[strings.Index(out, "broker-1: ")+len("broker-1: "):])
	if _, code := run("", "keygen", "--out", key); code != exitFailure {
		t.Fatal("keygen replaced an existing key file")
	}
	policy := filepath.Join(dir, "policy.yaml")
	os.WriteFile(policy, []byte(`version: "ex-1"
resources:
  schemes: [{name: aidefend-file, kind: root}]
  roots: {docs: {rootId: root-docs-1, mimeType: text/markdown}}
  adapterBuildSha256: "`+strings.Repeat("ab", 32)+`"
  brokerKeys: {broker-1: `+pub+`}
`), 0o600)
	content := filepath.Join(dir, "intro.md")
	os.WriteFile(content, []byte("# Guide\n"), 0o600)

	out, code = run("", "uri", "--policy", policy, "AIDEFEND-FILE://Docs/guide/intro.md", "aidefend-file://docs/%2e%2e/x")
	if code != exitFailure || !strings.Contains(out, "aidefend-file://docs/guide/intro.md\troot-docs-1\tguide/intro.md\n") || !strings.Contains(out, "refused\turi-dot-segment") {
		t.Fatalf("uri: %d %s", code, out)
	}
	rec, code := run("", "sign", "--policy", policy, "--key", key, "--uri", "aidefend-file://docs/guide/intro.md", "--content", content)
	if code != exitOK {
		t.Fatalf("sign: %d", code)
	}
	if out, code = run(rec, "verify", "--policy", policy, "--uri", "aidefend-file://docs/guide/intro.md", "--content", content); code != exitOK || !strings.HasPrefix(out, "ok\treceiptSha256=") {
		t.Fatalf("verify: %d %s", code, out)
	}
	os.WriteFile(content, []byte("# Guide!\n"), 0o600)
	if out, code = run(rec, "verify", "--policy", policy, "--uri", "aidefend-file://docs/guide/intro.md", "--content", content); code != exitFailure || out != "refused\treceipt-content\n" {
		t.Fatalf("verify of changed content: %d %s", code, out)
	}
	if _, code = run("", "nope"); code != exitUsage {
		t.Fatal("unknown subcommand accepted")
	}
}
