package peertest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestPeersLossless sanitizes every response of the real servers again
// under `normalization: lossless` (issue 18 item 4) and checks that
// nothing but the removed characters, our labels and the markers changed:
// a listed file name reads back (it names a file on disk), full-width
// punctuation and superscripts come back as written, and the planted
// secrets, tags and invisible characters are still gone.
func TestPeersLossless(t *testing.T) {
	c := collect(t)
	eng, err := pipeline.NewEngine(&pipeline.Policy{Normalization: pipeline.NormalizationLossless})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	listed := map[string]bool{} // exchanges that list x²-résumé.txt, by label
	for _, x := range c.exchanges {
		san, ev := sanitize(t, eng, x.raw, x.info)
		if ev.Normalization != pipeline.NormalizationLossless {
			t.Fatalf("%s: evidence says normalization %q", x, ev.Normalization)
		}
		raw, err := parse(x.raw)
		if err != nil || raw.isError() {
			continue
		}
		o := peertest.Options{Normalize: peertest.Lossless}
		if x.kind == pipeline.KindToolResult {
			o.ToolResult, o.Label = true, label(eng, x.name)
		}
		r, err := peertest.Compare(x.raw, san, o)
		if err != nil {
			t.Errorf("%s: %v", x, err)
			continue
		}
		for _, d := range r.Diffs {
			t.Errorf("lossless: %s: %s", x, d)
			failed++
		}
		if got := checkPlanted(c, &exchange{server: x.server, method: x.method, name: x.name, label: x.label, kind: x.kind, raw: x.raw, san: san, ev: ev}); len(got) > 0 {
			t.Errorf("lossless: %s: planted items: %v", x, got)
		}
		if x.server == "filesystem" && strings.Contains(string(x.raw), "résumé") {
			// The name as the model sees it must name the file on disk.
			if strings.Contains(string(san), "x²-résumé.txt") {
				listed[x.label] = true
			} else {
				t.Errorf("lossless: %s: the name x²-résumé.txt is not listed as it is", x)
			}
			if strings.Contains(string(x.san), "x²-résumé.txt") {
				t.Errorf("nfkc: %s: the name kept its superscript; the documented default folds it", x)
			}
		}
	}
	for _, want := range []string{"list_directory", "search_files"} {
		if !listed[want] {
			t.Errorf("no %s response listed x²-résumé.txt", want)
		}
	}
	if _, err := os.Stat(c.path("x²-résumé.txt")); err != nil {
		t.Errorf("the name the lossless mode lists does not read back: %v", err)
	}
	if _, err := os.Stat(c.path("x2-résumé.txt")); err == nil {
		t.Errorf("x2-résumé.txt exists: the round trip proves nothing")
	}
	t.Logf("lossless: %d exchanges, %d differences", len(c.exchanges), failed)
}
