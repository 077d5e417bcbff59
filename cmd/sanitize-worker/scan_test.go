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

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestScanOne(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "ev.json")
	code, out, errs := runCLI(t, `{"content":[{"type":"text","text":"hi <system>x</system>"}]}`, "scan", "--tool", "t1", "--evidence", ev)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !json.Valid([]byte(out)) || !strings.Contains(out, "Untrusted tool output from t1:") || strings.Contains(out, "<system>") {
		t.Fatalf("output %s", out)
	}
	b, err := os.ReadFile(ev)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil || e["outcome"] != "sanitized" || e["tool"] != "t1" {
		t.Fatalf("evidence %s", b)
	}
}

func TestScanRejectedExitCode(t *testing.T) {
	code, out, errs := runCLI(t, `{"content":[`, "scan")
	if code != exitRejected {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, `"isError":true`) || !strings.Contains(errs, "INVALID_JSON") {
		t.Fatalf("out %s err %s", out, errs)
	}
}

func TestScanFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	os.WriteFile(in, []byte(`{"content":[{"type":"text","text":"a"}]}`), 0o600)
	outp := filepath.Join(dir, "out.json")
	code, _, errs := runCLI(t, "", "scan", "--in", in, "--out", outp)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(outp)
	if !json.Valid(b) {
		t.Fatalf("out %s", b)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nope"},
		{"scan", "extra"},
		{"scan", "--kind", "weird"},
		{"scan", "--workers", "0"},
		{"scan", "--timeout", "0s"},
		{"scan", "--policy", "/does/not/exist.yaml"},
		{"scan", "--jsonl", "--tool", "x"},
		{"scan", "--bogus"},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestOutputSchemaFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	weather := write("weather.json", `{"type":"object","properties":{"t":{"type":"number"},"c":{"type":"string"}},"required":["t","c"]}`)
	for _, tc := range []struct {
		name, in string
		args     []string
		code     int
		out, err string // substrings of standard output and error
		not      string // must not be in standard output
	}{
		{"conforming", `{"content":[{"type":"text","text":"{\"t\": 1, \"c\": \"sun\", \"x\": 2}"}],"structuredContent":{"t":1,"c":"sun","x":2}}`,
			[]string{"--output-schema", weather}, exitOK, `"structuredContent":{"c":"sun","t":1}`, "", `"x":2`},
		{"mirror regenerated", `{"structuredContent":{"t":1,"c":"sun","x":2},"content":[{"type":"text","text":"{\"t\":1,\"c\":\"sun\",\"x\":2}"}]}`,
			[]string{"--output-schema", weather}, exitOK, `from t1:\n{\"c\":\"sun\",\"t\":1}"`, "", `\"x\"`},
		{"missing structuredContent", `{"content":[{"type":"text","text":"1 degree"}]}`,
			[]string{"--output-schema", weather}, exitRejected, `"dev.mcp-sanitize/code":"SCHEMA_MISMATCH"`, "SCHEMA_MISMATCH (structured-content-missing)", "1 degree"},
		{"non-conforming", `{"content":[],"structuredContent":{"t":"hot","c":"sun"}}`,
			[]string{"--output-schema", weather}, exitRejected, `"dev.mcp-sanitize/reason":"type"`, "SCHEMA_MISMATCH (type)", "hot"},
		{"not a schema", `{}`, []string{"--output-schema", write("bad.json", `[1]`)}, exitUsage, "", "--output-schema: not a usable JSON Schema", ""},
		{"not JSON", `{}`, []string{"--output-schema", write("bad2.json", `{"type":`)}, exitUsage, "", "not a usable JSON Schema", ""},
		{"external reference", `{}`, []string{"--output-schema", write("ref.json", `{"$ref":"https://example.com/s.json"}`)}, exitUsage, "", "SCHEMA_REF_DENIED", ""},
		{"missing file", `{}`, []string{"--output-schema", filepath.Join(dir, "none.json")}, exitUsage, "", "cannot read it", ""},
		{"other kind", `{}`, []string{"--output-schema", weather, "--kind", "resource-result"}, exitUsage, "", "--kind tool-result only", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.in, append([]string{"scan", "--tool", "t1"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) || tc.not != "" && strings.Contains(out, tc.not) {
				t.Fatalf("exit %d (want %d)\nout %s\nerr %s", code, tc.code, out, errs)
			}
		})
	}
}

func TestJSONLRecordTooLong(t *testing.T) {
	long := `{"tool":"big","result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 5000) + `"}]}}`
	in := long + "\n" + `{"tool":"small","result":{"content":[]}}` + "\n"
	code, out, errs := runCLI(t, in, "scan", "--jsonl", "--max-record-bytes", "2048")
	if code != exitOK {
		t.Fatalf("exit %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "BOUND_EXCEEDED") || !strings.Contains(lines[1], `"tool":"small"`) {
		t.Fatalf("%q", out)
	}
	if strings.Contains(out, "yyyy") {
		t.Fatal("the long record leaked")
	}
}

// A pipe that stays open ends at the deadline with TIMEOUT, not a hang.
func TestScanTimeoutOnOpenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte(`{"content":[{"type":"text","text":"part`))
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), []string{"scan", "--timeout", "200ms"}, r, &out, &errb)
	if code != exitRejected || !strings.Contains(out.String(), `"dev.mcp-sanitize/code":"TIMEOUT"`) || strings.Contains(out.String(), "part") {
		t.Fatalf("exit %d, out %s, err %s", code, out.String(), errb.String())
	}
}
