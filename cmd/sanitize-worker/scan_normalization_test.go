package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanNormalizationFlag(t *testing.T) {
	in := `{"content":[{"type":"text","text":"x²-résumé.txt <system>"}]}`
	for _, tc := range []struct{ mode, text string }{
		{"", "x2-résumé.txt [REMOVED_PSEUDO_INSTRUCTION_TAG]"},
		{"nfkc", "x2-résumé.txt [REMOVED_PSEUDO_INSTRUCTION_TAG]"},
		{"lossless", "x²-résumé.txt [REMOVED_PSEUDO_INSTRUCTION_TAG]"},
	} {
		ev := filepath.Join(t.TempDir(), "ev.json")
		args := []string{"scan", "--evidence", ev}
		if tc.mode != "" {
			args = append(args, "--normalization", tc.mode)
		}
		code, out, errs := runCLI(t, in, args...)
		if code != exitOK || !strings.Contains(out, tc.text) {
			t.Fatalf("%q: exit %d, output %s, stderr %s", tc.mode, code, out, errs)
		}
		b, err := os.ReadFile(ev)
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]any
		want := tc.mode
		if want == "" {
			want = "nfkc"
		}
		if err := json.Unmarshal(b, &e); err != nil || e["normalization"] != want {
			t.Fatalf("%q: evidence %s", tc.mode, b)
		}
	}
	if code, _, errs := runCLI(t, in, "scan", "--normalization", "nfc"); code != exitUsage || errs == "" {
		t.Errorf("--normalization nfc: exit %d, stderr %q", code, errs)
	}
}
