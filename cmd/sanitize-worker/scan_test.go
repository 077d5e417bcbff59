package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	good := filepath.Join(dir, "s.json")
	os.WriteFile(good, []byte(`{"type":"object"}`), 0o600)
	bad := filepath.Join(dir, "b.json")
	os.WriteFile(bad, []byte(`[1]`), 0o600)
	if code, _, errs := runCLI(t, `{"content":[]}`, "scan", "--output-schema", good); code != exitOK {
		t.Fatalf("exit %d %s", code, errs)
	}
	if code, _, _ := runCLI(t, `{"content":[]}`, "scan", "--output-schema", bad); code != exitUsage {
		t.Fatalf("exit %d", code)
	}
}

func TestJSONLOrderAndBadRecords(t *testing.T) {
	var in strings.Builder
	const n = 300
	for i := 0; i < n; i++ {
		switch {
		case i%50 == 7:
			in.WriteString("{not json\n")
		case i%50 == 8:
			in.WriteString(`{"tool":"x"}` + "\n")
		case i%50 == 9:
			in.WriteString("\n") // blank lines are not records
			fallthrough
		default:
			fmt.Fprintf(&in, `{"tool":"tool-%d","outputSchema":null,"result":{"content":[{"type":"text","text":"record %d %s"}]}}`+"\n", i, i, strings.Repeat("x", i*37%2000))
		}
	}
	dir := t.TempDir()
	ev := filepath.Join(dir, "ev.jsonl")
	code, out, errs := runCLI(t, in.String(), "scan", "--jsonl", "--workers", "4", "--evidence", ev)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		var r struct {
			Tool   string          `json:"tool"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		switch {
		case i%50 == 7 || i%50 == 8:
			if !strings.Contains(string(r.Result), `"isError":true`) {
				t.Fatalf("line %d: bad record without an error result: %s", i, l)
			}
		default:
			if r.Tool != fmt.Sprintf("tool-%d", i) || !strings.Contains(string(r.Result), fmt.Sprintf("record %d ", i)) {
				t.Fatalf("line %d out of order: %s", i, l[:min(len(l), 200)])
			}
		}
	}
	evb, _ := os.ReadFile(ev)
	if got := strings.Count(string(evb), "\n"); got != n {
		t.Fatalf("%d evidence lines, want %d", got, n)
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
