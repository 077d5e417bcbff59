package resuri

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzParse holds the properties of an accepted URI for any input: its
// canonical form parses to itself (the same canonical form, root and
// relative path), and no segment is empty, a dot segment, or holds a
// separator, a NUL, an escape or a character outside NFC.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	for _, c := range rejectCases {
		if len(c.in) < 512 {
			f.Add(c.in)
		}
	}
	p := testParser(f)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := p.Parse(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		again, err := p.Parse(u.Canonical)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", u.Canonical, s, err)
		}
		if again.Canonical != u.Canonical || again.RootID != u.RootID || again.RelativePath != u.RelativePath {
			t.Fatalf("canonical %q of %q parses to %q", u.Canonical, s, again.Canonical)
		}
		if len(u.Canonical) > 3*len(s)+16 {
			t.Fatalf("canonical form grew beyond bound: %d from %d", len(u.Canonical), len(s))
		}
		for _, seg := range u.Segments {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "/\\\x00") ||
				hasEscape(seg) || !utf8.ValidString(seg) || !norm.NFC.IsNormalString(seg) {
				t.Fatalf("segment %q of %q accepted", seg, s)
			}
		}
		if (u.Kind == KindRoot || u.Kind == KindFile) && (u.RootID == "" || u.RelativePath == "") {
			t.Fatalf("local URI %q without root or path", s)
		}
	})
}

// FuzzTemplate expands any template with fixed variables: whatever it
// expands to is accepted only as a URI Parse accepts.
func FuzzTemplate(f *testing.F) {
	f.Add("aidefend-file://docs/{name}", "intro.md")
	f.Add("aidefend-file://docs{/p*}", "a")
	f.Add("aidefend-file://docs/{+path}", "a/../b")
	f.Add("https://example.com/{?q}", "x y")
	p := testParser(f)
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		tm, err := p.ParseTemplate(tmpl)
		if err != nil {
			return
		}
		vars := map[string]any{}
		for i, n := range tm.Names() {
			switch i % 3 {
			case 0:
				vars[n] = val
			case 1:
				vars[n] = []string{val, "x"}
			default:
				vars[n] = map[string]string{"k": val}
			}
		}
		u, err := p.Expand(tm, vars)
		if err != nil {
			return
		}
		if _, err := p.Parse(u.Canonical); err != nil {
			t.Fatalf("expansion canonical %q does not parse: %v", u.Canonical, err)
		}
	})
}
