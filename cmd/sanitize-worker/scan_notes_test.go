package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
)

// TestScanUnknownKindListsKinds: an unknown --kind is a usage error that
// lists every valid kind.
func TestScanUnknownKindListsKinds(t *testing.T) {
	code, _, errs := runCLI(t, "{}", "scan", "--kind", "bogus")
	if code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, k := range kindNames() {
		if !strings.Contains(errs, k) {
			t.Errorf("%q does not list %s", errs, k)
		}
	}
	if !strings.Contains(errs, `unknown --kind "bogus"`) {
		t.Errorf("%q", errs)
	}
}

var fingerprintRE = regexp.MustCompile(`"fingerprint":"([^"]+)"`)

// TestScanFingerprintNote: without a key the note comes once per process,
// with the variable that configures a key; with that variable set there is
// no note and fingerprints match across runs; a short key is a usage error.
func TestScanFingerprintNote(t *testing.T) {
	fingerprintNote = sync.Once{}
	tok := testtokens.GitHub("ghp_", 7)
	in := `{"content":[{"type":"text","text":"token ` + tok + `"}]}`
	dir := t.TempDir()
	ev := filepath.Join(dir, "ev.json")
	scan := func() (string, string) {
		t.Helper()
		code, _, errs := runCLI(t, in, "scan", "--evidence", ev)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, _ := os.ReadFile(ev)
		m := fingerprintRE.FindSubmatch(b)
		if m == nil {
			t.Fatalf("no fingerprint in %s", b)
		}
		return errs, string(m[1])
	}
	t.Setenv(fingerprintKeyEnv, "") // present but unusable below; absent first
	os.Unsetenv(fingerprintKeyEnv)
	errs1, fp1 := scan()
	errs2, _ := scan()
	if strings.Count(errs1, "note:") != 1 || !strings.Contains(errs1, fingerprintKeyEnv) {
		t.Errorf("first scan: %q", errs1)
	}
	if errs2 != "" {
		t.Errorf("second scan in the process: %q", errs2)
	}

	fingerprintNote = sync.Once{}
	t.Setenv(fingerprintKeyEnv, "0123456789abcdef0123456789abcdef")
	errs3, fp3 := scan()
	_, fp4 := scan()
	if errs3 != "" {
		t.Errorf("a key is configured, still: %q", errs3)
	}
	if fp3 != fp4 || fp3 == fp1 {
		t.Errorf("configured key: %s, %s (random %s)", fp3, fp4, fp1)
	}

	t.Setenv(fingerprintKeyEnv, "tiny-value")
	if code, _, errs := runCLI(t, in, "scan"); code != exitUsage || !strings.Contains(errs, fingerprintKeyEnv) || strings.Contains(errs, "tiny-value") {
		t.Errorf("short key: exit %d %q", code, errs)
	}
}
