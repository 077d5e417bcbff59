package errsan

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSanitize is the differential check: whatever the input, no line of
// the result holds a path or a frame by the test's own definition
// (refLeak, written apart from Check), every line passes Check, and the
// result stays within its bounds and is valid UTF-8.
func FuzzSanitize(f *testing.F) {
	for _, tc := range sdkCases {
		f.Add(tc.in)
	}
	f.Add("at x (/a/b/c.js:1:2)\n/usr/lib/x /[path]/y ~/.ssh/id_rsa ..\\win\\x")
	f.Add(`\\srv\share C:\x file:/etc/passwd node:internal/x`)
	s, err := New(Options{MaxBytes: 512, MaxLines: 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, rep := s.Sanitize(in)
		if len(out) > 512 {
			t.Fatalf("%d bytes over the bound", len(out))
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		if n := strings.Count(out, "\n"); n >= 16 {
			t.Fatalf("%d lines", n+1)
		}
		for _, l := range strings.Split(out, "\n") {
			if refLeak(l) || Check(l) {
				t.Fatalf("a path or frame survived in %q (from %q)", l, in)
			}
		}
		if out == in && rep.Removed() {
			t.Fatalf("reported a removal but returned the input: %+v", rep)
		}
	})
}
