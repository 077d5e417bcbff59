package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanGuardedResource is the scan of docs/resources.md's worked
// example: a resources/read result with the broker's receipt passes the
// guard given the request (--request-params), a principal and an
// allow-list; without the allow-list, for a traversal, for another path
// or for changed content it is refused with the one public error.
func TestScanGuardedResource(t *testing.T) {
	dir := t.TempDir()
	res := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := runResources(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("resources %v: %d %s", args, code, errb.String())
		}
		return out.String()
	}
	key := filepath.Join(dir, "broker.key")
	out := res("keygen", "--out", key, "--id", "broker-1")
	pub := strings.TrimSpace(out[strings.Index(out, "broker-1: ")+len("broker-1: "):])
	policy := filepath.Join(dir, "policy.yaml")
	os.WriteFile(policy, []byte(`version: "ex-1"
resources:
  schemes: [{name: aidefend-file, kind: root}]
  roots: {docs: {rootId: root-docs-1, mimeType: text/markdown}}
  adapterBuildSha256: "`+strings.Repeat("ab", 32)+`"
  brokerKeys: {broker-1: `+pub+`}
`), 0o600)
	content := filepath.Join(dir, "intro.md")
	os.WriteFile(content, []byte("# Guide\nHello.\n"), 0o600)
	rec := strings.TrimSpace(res("sign", "--policy", policy, "--key", key, "--uri", "aidefend-file://docs/guide/intro.md", "--content", content))
	result := func(text string) string {
		return `{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"aidefend-file://docs/guide/intro.md","text":"` + text +
			`","_meta":{"aidefend_path_broker_receipt":` + rec + `}}]}}`
	}
	params := filepath.Join(dir, "params.json")
	os.WriteFile(params, []byte("{\n  \"uri\": \"AIDEFEND-FILE://Docs/guide/intro.md\"\n}\n"), 0o600)
	base := []string{"scan", "--kind", "resource-result", "--policy", policy, "--principal", "alice"}
	cases := []struct {
		name string
		body string
		args []string
		code int
	}{
		{"allowed", result(`# Guide\nHello.\n`), []string{"--allow-resource", "aidefend-file://docs/guide/", "--request-params", `{"uri":"aidefend-file://docs/guide/intro.md"}`}, exitOK},
		{"params from a file", result(`# Guide\nHello.\n`), []string{"--allow-resource", "aidefend-file://docs/guide/intro.md", "--request-params", "@" + params}, exitOK},
		{"no allow-list", result(`# Guide\nHello.\n`), []string{"--request-params", `{"uri":"aidefend-file://docs/guide/intro.md"}`}, exitRejected},
		{"no request", result(`# Guide\nHello.\n`), []string{"--allow-resource", "aidefend-file://docs/"}, exitRejected},
		{"traversal", result(`# Guide\nHello.\n`), []string{"--allow-resource", "aidefend-file://docs/", "--request-params", `{"uri":"aidefend-file://docs/guide/../intro.md"}`}, exitRejected},
		{"changed content", result(`# Guide\nHello!\n`), []string{"--allow-resource", "aidefend-file://docs/", "--request-params", `{"uri":"aidefend-file://docs/guide/intro.md"}`}, exitRejected},
		{"another path", result(`# Guide\nHello.\n`), []string{"--allow-resource", "aidefend-file://docs/", "--request-params", `{"uri":"aidefend-file://docs/guide/other.md"}`}, exitRejected},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.body, append(append([]string{}, base...), c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s %s", code, c.code, out, errs)
			}
			if c.code == exitOK {
				if !strings.Contains(out, "Hello.") || !strings.Contains(out, "aidefend_path_broker_receipt_sha256") || strings.Contains(out, `"signature"`) {
					t.Fatalf("output %s", out)
				}
				return
			}
			if !strings.Contains(out, "RESOURCE_UNAVAILABLE") || strings.Contains(out, "Hello") || strings.Contains(out, "intro.md") {
				t.Fatalf("refusal %s", out)
			}
		})
	}
	for _, bad := range [][]string{
		{"--request-params", "[1]"}, {"--request-params", "@" + filepath.Join(dir, "none.json")},
		{"--allow-resource", "aidefend-file://docs/../"}, {"--principal", "al ice"},
	} {
		if code, _, _ := runCLI(t, result("x"), append(append([]string{}, base...), bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want usage", bad, code)
		}
	}
}

// TestProxyCommandGuards runs `sanitize-worker proxy` with a resources
// policy in front of a shell server that answers a resources/read: with
// --principal and --allow-resource the page passes; without the
// allow-list the proxy warns at startup and the page is refused with the
// one public error. Bad guard flags are usage errors.
func TestProxyCommandGuards(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	os.WriteFile(policy, []byte(`version: "px-1"
resources:
  schemes: [{name: https, kind: https, hosts: [docs.example.com]}]
`), 0o600)
	script := `read line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"https://docs.example.com/a.html","text":"the page"}]}}'`
	req := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"https://DOCS.example.com/a.html"}}` + "\n"
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), append(append([]string{"proxy", "--policy", policy}, args...), "--", sh, "-c", script), strings.NewReader(req), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("--principal", "alice", "--scopes", "docs:read,extra", "--allow-resource", "https://docs.example.com/")
	if code != 0 || !strings.Contains(out, "the page") || !strings.Contains(out, `"uri":"https://docs.example.com/a.html"`) {
		t.Fatalf("allowed: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = run("--principal", "alice")
	if code != 0 || strings.Contains(out, "the page") || !strings.Contains(out, "RESOURCE_UNAVAILABLE") || !strings.Contains(errs, "every resources/read is refused") {
		t.Fatalf("no allow-list: exit %d: %s %s", code, out, errs)
	}
	for _, bad := range [][]string{
		{"--principal", "al ice"}, {"--allow-resource", "https://x/../"}, {"--scopes", "a\tb\x01"},
		{"--nats-url", "nats://127.0.0.1:1", "--allow-resource", "https://docs.example.com/"},
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"proxy"}, bad...), "--", sh, "-c", "exit 0")
		if code := dispatch(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want usage: %s", bad, code, errb.String())
		}
	}
}
