package scanners

import (
	"strings"
	"testing"
)

// TestSuppress: a match the suppress func allows stays in the text and is
// reported Suppressed with the fingerprint it would have had; others are
// replaced as usual, plain or encoded, whole or in chunks, with the
// fingerprint they have without a suppress func.
func TestSuppress(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	a := withCRC("ghp_", fakeChars(base62Alphabet, 30, 1))
	b := withCRC("ghp_", fakeChars(base62Alphabet, 30, 2))
	in := "keep " + a + " drop " + b + " end"
	_, fs := redactChunks(t, r, in, 0)
	if len(fs) != 2 {
		t.Fatalf("findings %v", fs)
	}
	keep, drop := fs[0].Fingerprint, fs[1].Fingerprint
	r.SetSuppress(func(rule RuleID, fp [16]byte) bool { return c.RuleName(rule) == "github-pat" && fp == keep })
	for _, chunk := range []int{0, 1, 7} {
		out, fs := redactChunks(t, r, in, chunk)
		if want := "keep " + a + " drop [REDACTED:github-pat] end"; out != want {
			t.Errorf("chunk %d: %q, want %q", chunk, out, want)
		}
		// The replaced match keeps its fingerprint: the one suppress was
		// asked about (hashed once) is the one its finding carries.
		if len(fs) != 2 || !fs[0].Suppressed || fs[0].Fingerprint != keep || fs[1].Suppressed || fs[1].Fingerprint != drop {
			t.Errorf("chunk %d: findings %+v", chunk, fs)
		}
	}
	// Encoded: the decoded secret's fingerprint decides.
	enc := "blob " + b64std("token: "+a) + " end"
	out, fs := redactChunks(t, r, enc, 3)
	if out != enc || len(fs) != 1 || !fs[0].Suppressed || fs[0].Encoding != EncodingBase64 {
		t.Errorf("encoded: %q %+v", out, fs)
	}
	r.SetSuppress(nil)
	if out, _ := redactChunks(t, r, in, 0); strings.Contains(out, a) {
		t.Errorf("without suppress: %q", out)
	}
}
