package records

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
)

// duration matches the one member of evidence that differs from run to run.
var duration = regexp.MustCompile(`"durationNanos":[0-9]+`)

// TestRunSchemaMemo: a worker that meets an outputSchema text again (memo
// hit), a text that failed (never remembered) or more distinct texts than
// the memo holds answers every record as a fresh worker answers it alone.
func TestRunSchemaMemo(t *testing.T) {
	tok := testtokens.GitHub("ghp_", 33)
	schemas := map[string]string{
		"echo-redacted": `{"type":"object","description":"key <b>` + tok + `</b>","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`,
		"collision":     `{"type":"object","properties":{"n\u200b":{"type":"integer"},"n":{"type":"integer"}}}`,
		"ref-denied":    `{"$ref":"https://example.com/s.json"}`,
		"bad-regex":     `{"type":"object","patternProperties":{"(?=x)":{}}}`,
	}
	results := []string{
		`{"content":[{"type":"text","text":"{\"n\":2}"}],"structuredContent":{"n":2}}`,
		`{"content":[],"structuredContent":{"n":0}}`,
		`{"content":[],"structuredContent":{"n":"two","x":1}}`,
		`{"content":[]}`,
	}
	var lines []string
	add := func(tool, sch, res string) {
		lines = append(lines, fmt.Sprintf(`{"tool":%q,"outputSchema":%s,"result":%s}`, tool, sch, res))
	}
	for round := 0; round < 3; round++ {
		for _, name := range []string{"echo-redacted", "collision", "ref-denied", "bad-regex"} {
			for _, res := range results {
				add(name, schemas[name], res)
			}
		}
		// More distinct texts than the memo holds: it starts again.
		for i := 0; i < maxMemoSchemas+5; i++ {
			add("many", fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}}}`, i), results[i%len(results)])
		}
	}
	dir := t.TempDir()
	evp := filepath.Join(dir, "ev.jsonl")
	err, out, errs := runRecords(t, strings.Join(lines, "\n")+"\n", Options{Workers: 1}, evp)
	if err != nil {
		t.Fatalf("run: %v: %s", err, errs)
	}
	evb, _ := os.ReadFile(evp)
	gotOut := strings.Split(strings.TrimRight(out, "\n"), "\n")
	gotEv := strings.Split(strings.TrimRight(string(evb), "\n"), "\n")
	if len(gotOut) != len(lines) || len(gotEv) != len(lines) {
		t.Fatalf("%d lines, %d evidence lines for %d records", len(gotOut), len(gotEv), len(lines))
	}
	alone := map[string][2]string{}
	for i, line := range lines {
		want, ok := alone[line]
		if !ok {
			one := filepath.Join(dir, "one.jsonl")
			err, o, errs := runRecords(t, line+"\n", Options{Workers: 1}, one)
			if err != nil {
				t.Fatalf("record %d alone: %v: %s", i+1, err, errs)
			}
			e, _ := os.ReadFile(one)
			want = [2]string{strings.TrimRight(o, "\n"), strings.TrimRight(string(e), "\n")}
			alone[line] = want
		}
		if gotOut[i] != want[0] {
			t.Errorf("record %d:\n got %s\nwant %s", i+1, gotOut[i], want[0])
		}
		if g, w := duration.ReplaceAllString(gotEv[i], ""), duration.ReplaceAllString(want[1], ""); g != w {
			t.Errorf("record %d evidence:\n got %s\nwant %s", i+1, gotEv[i], want[1])
		}
		if strings.Contains(gotOut[i], tok) {
			t.Errorf("record %d echoes the token", i+1)
		}
	}
}
