package scanners

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestASCIIBuildsNoNormTable runs itself in a fresh test process (the
// table is built once per process, and other tests build it): text of
// ASCII only, in chunks, with controls, escape sequences and every mode of
// the Normalizer, never builds the NFKC table; the first rune outside
// ASCII does, and the output is the same as with the table built first.
func TestASCIIBuildsNoNormTable(t *testing.T) {
	if os.Getenv("SCANNERS_LAZY_NORM_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestASCIIBuildsNoNormTable$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SCANNERS_LAZY_NORM_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("child process: %v\n%s", err, out)
		}
		return
	}
	if normTabBuilt.Load() {
		t.Fatal("the NFKC table was built at package initialization")
	}
	ascii := []string{
		"ok: 3 files changed\n",
		"tab\there\r\nctl\x01\x7fdel \x1b[31mred\x1b[0m \x1b]0;title\x07 end",
		"half an escape \x1b",
		"[1m and the rest",
	}
	type mode struct {
		name  string
		setup func(*Normalizer)
	}
	modes := []mode{
		{"nfkc", func(*Normalizer) {}},
		{"strip only", func(n *Normalizer) { n.DisableNFKC = true }},
		{"edits", func(n *Normalizer) { n.RecordEdits = true }},
	}
	run := func(m mode, chunks []string) string {
		var n Normalizer
		m.setup(&n)
		var dst []byte
		for i, c := range chunks {
			dst = n.Append(dst, []byte(c), i == len(chunks)-1)
		}
		return string(dst)
	}
	var before []string
	for _, m := range modes {
		before = append(before, run(m, ascii))
	}
	if normTabBuilt.Load() {
		t.Fatal("normalizing ASCII text built the NFKC table")
	}
	withRune := append(append([]string{}, ascii...), "caf\u00e9 \uff21")
	for _, m := range modes {
		run(m, withRune)
	}
	if !normTabBuilt.Load() {
		t.Fatal("a rune outside ASCII did not build the NFKC table")
	}
	for i, m := range modes {
		if got := run(m, ascii); got != before[i] {
			t.Fatalf("%s: ASCII text normalized to %q without the table, %q with it", m.name, before[i], got)
		}
	}
}
