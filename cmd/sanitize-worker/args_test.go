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

const argsTestSchema = `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["q"]}`

func noEnv(string) (string, bool) { return "", false }

func runArgsTest(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runArgsEnv(context.Background(), args, noEnv, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestArgsOffline(t *testing.T) {
	good := writeFile(t, "schema.json", argsTestSchema)
	denied := writeFile(t, "denied.json", `{"$ref":"file:///etc/passwd"}`)
	cases := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   string
		stderr   string
		errCode  string
		noSecret string
	}{
		{"valid", `{"q":"go","limit":2}`, []string{"--tool", "search", "--input-schema", good}, exitOK, `{"valid":true}`, "", "", ""},
		{"valid-tools-call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"go"}}}`, []string{"--tool", "search", "--input-schema", good}, exitOK, `{"valid":true}`, "", "", ""},
		{"type", `{"q":"go","limit":"many"}`, []string{"--tool", "search", "--input-schema", good}, exitRejected, `must be an integer`, "", "ARGS_TYPE", ""},
		{"missing", `{}`, []string{"--tool", "search", "--input-schema", good}, exitRejected, `required parameter`, "", "ARGS_MISSING", ""},
		{"unknown", `{"q":"go","zz":1}`, []string{"--tool", "search", "--input-schema", good}, exitRejected, `is not a parameter`, "", "ARGS_UNKNOWN_PROPERTY", ""},
		{"no-echo", `{"q":"go","limit":"hunter2secret"}`, []string{"--tool", "search", "--input-schema", good, "--max-echo", "-1"}, exitRejected, `must be an integer`, "", "ARGS_TYPE", "hunter2secret"},
		{"other-tool-in-request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other","arguments":{}}}`, []string{"--tool", "search", "--input-schema", good}, exitRejected, `differs from the tool header`, "", "ARGS_MALFORMED", ""},
		{"schema-denied", `{}`, []string{"--tool", "search", "--input-schema", denied}, exitRejected, `SCHEMA_REF_DENIED`, "", "ARGS_SCHEMA_UNUSABLE", "passwd"},
		{"schema-missing-file", `{}`, []string{"--tool", "search", "--input-schema", filepath.Join(t.TempDir(), "none.json")}, exitFailure, "", "cannot read --input-schema", "", ""},
		{"too-large", `{"q":"` + strings.Repeat("a", 100) + `"}`, []string{"--tool", "search", "--input-schema", good, "--max-bytes", "50"}, exitFailure, "", "input larger than 50 bytes", "", ""},
		{"usage-nothing", `{}`, nil, exitUsage, "", "give --input-schema", "", ""},
		{"usage-both", `{}`, []string{"--tool", "t", "--input-schema", good, "--server", "s"}, exitUsage, "", "alternatives", "", ""},
		{"usage-no-tool", `{}`, []string{"--input-schema", good}, exitUsage, "", "--tool is required", "", ""},
		{"usage-bad-server", `{}`, []string{"--server", "a.b"}, exitUsage, "", "--server must be", "", ""},
		{"usage-echo", `{}`, []string{"--tool", "t", "--input-schema", good, "--max-echo", "0"}, exitUsage, "", "--max-echo", "", ""},
		{"usage-extra", `{}`, []string{"--tool", "t", "--input-schema", good, "extra"}, exitUsage, "", "unexpected argument", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runArgsTest(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("stdout %q (want %q)\nstderr %q (want %q)", out, tc.stdout, errOut, tc.stderr)
			}
			if tc.errCode != "" {
				var res struct {
					IsError bool           `json:"isError"`
					Meta    map[string]any `json:"_meta"`
				}
				if err := json.Unmarshal([]byte(out), &res); err != nil || !res.IsError || res.Meta["dev.mcp-sanitize/code"] != tc.errCode {
					t.Fatalf("error result %s", out)
				}
			}
			if tc.noSecret != "" && (strings.Contains(out, tc.noSecret) || strings.Contains(errOut, tc.noSecret)) {
				t.Fatalf("output holds %q", tc.noSecret)
			}
		})
	}
}
