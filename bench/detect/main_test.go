package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
)

// TestReportShowsNoSecret runs the whole report on a small corpus and checks
// its structure and that no planted secret appears in it (examples mask
// them). It asserts nothing about the catalog's recall.
func TestReportShowsNoSecret(t *testing.T) {
	dir := t.TempDir()
	for _, asJSON := range []bool{false, true} {
		var out, errb bytes.Buffer
		o := options{seed: 3, records: 120, out: dir, gitleaks: "none", jsonOut: asJSON, runs: 1, glRecs: 50, examples: 5}
		if err := run(o, &out, &errb); err != nil {
			t.Fatal(err)
		}
		recs := bench.GenerateCorpus(bench.CorpusOptions{Seed: 3, Records: 120})
		for _, r := range recs {
			for _, l := range r.Labels {
				if l.Kind != bench.LabelSecret {
					continue
				}
				for _, x := range append([]string{l.Exact, l.Inner}, l.Needles...) {
					if len(x) >= 8 && (bytes.Contains(out.Bytes(), []byte(x)) || bytes.Contains(errb.Bytes(), []byte(x))) {
						t.Fatalf("the report shows (part of) a planted %s", l.Type)
					}
				}
			}
		}
		if asJSON {
			var res Result
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			tot := res.Ours.Totals
			if tot.Records != 120 || tot.Secrets == 0 || tot.Decoys == 0 || res.OursMBps <= 0 || res.Rules == 0 {
				t.Fatalf("totals %+v, %.1f MB/s, %d rules", tot, res.OursMBps, res.Rules)
			}
			if res.Gitleaks != nil || !strings.Contains(res.GitleaksMsg, "skipped") {
				t.Fatalf("gitleaks ran or was not reported skipped: %q", res.GitleaksMsg)
			}
			continue
		}
		md := out.String()
		for _, want := range []string{"# Detection report", "| recall (secrets found / planted) |", "## Secrets by family and type", "## Findings per rule", "## Decoys", "skipped"} {
			if !strings.Contains(md, want) {
				t.Fatalf("report lacks %q", want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, bench.CorpusFile)); err != nil {
		t.Fatal("-out did not keep the corpus")
	}
}

// TestGitleaksPlumbing runs the gitleaks step with a stand-in binary that
// reports one planted secret and one untargeted string, and checks the
// scoring and the skip message for a missing binary.
func TestGitleaksPlumbing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	if bin, note := findGitleaks(filepath.Join(t.TempDir(), "absent")); bin != "" || !strings.Contains(note, gitleaksInstall) {
		t.Fatalf("missing binary: %q, %q", bin, note)
	}
	recs := bench.GenerateCorpus(bench.CorpusOptions{Seed: 4, Records: 30})
	var target bench.Label
	for _, r := range recs {
		for _, l := range r.Labels {
			if l.Kind == bench.LabelSecret && target.Exact == "" && !strings.ContainsAny(l.Exact, "\"\\\n") {
				target = l
			}
		}
	}
	if target.Exact == "" {
		t.Fatal("no plain secret in the corpus")
	}
	dir := t.TempDir()
	if _, _, err := bench.WriteRaw(dir, recs); err != nil {
		t.Fatal(err)
	}
	report := `[{"RuleID":"x","File":"` + filepath.Join(dir, bench.RawTextDir, "000000.txt") + `","Secret":"not-planted-anywhere","Match":"not-planted-anywhere"},` +
		`{"RuleID":"y","File":"` + filepath.Join(dir, bench.RawTextDir, fileName(target.Record)) + `","Secret":"` + target.Exact + `","Match":"` + target.Exact + `"}]`
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --report-path ]; then shift; cat > \"$1\" <<'EOF'\n" + report + "\nEOF\nfi; shift; done\n"
	bin := filepath.Join(t.TempDir(), "gitleaks")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	gr, err := runGitleaks(bin, dir, "text", "", recs)
	if err != nil {
		t.Fatal(err)
	}
	if gr.Score.Found != 1 || gr.Score.FalsePositives != 1 || gr.Score.Findings != 2 || gr.DecodeDepth != "5 (default)" {
		t.Fatalf("%+v", gr.Score)
	}
}

func fileName(i int) string { return fmt.Sprintf("%06d.txt", i) }
