package resuri

import (
	"errors"
	"strings"
	"testing"
)

func testParser(t testing.TB) *Parser {
	t.Helper()
	p, err := New(Options{
		Schemes: []Scheme{
			{Name: "aidefend-file", Kind: KindRoot},
			{Name: "file", Kind: KindFile},
			{Name: "https", Kind: KindHTTPS, AllowQuery: true},
			{Name: "tickets", Kind: KindCustom, Hosts: []string{"support"}},
		},
		Roots:     map[string]string{"docs": "root-docs-1", "team-a": "root-team-a"},
		FileRoots: map[string]string{"/srv/docs": "root-srv-docs", "/srv/docs/private": "root-private"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// parseCases are accepted URIs and their canonical forms.
var parseCases = []struct {
	name, in, canonical, root, rel string
}{
	{"root alias", "aidefend-file://docs/guide/intro.md", "aidefend-file://docs/guide/intro.md", "root-docs-1", "guide/intro.md"},
	{"scheme and alias case folded", "AIDEFEND-FILE://Docs/Guide.md", "aidefend-file://docs/Guide.md", "root-docs-1", "Guide.md"},
	{"escapes decoded and re-escaped", "aidefend-file://docs/a%20b/%c3%a9t%C3%A9.txt", "aidefend-file://docs/a%20b/%C3%A9t%C3%A9.txt", "root-docs-1", "a b/été.txt"},
	{"raw UTF-8 (IRI) escaped", "aidefend-file://docs/été.txt", "aidefend-file://docs/%C3%A9t%C3%A9.txt", "root-docs-1", "été.txt"},
	{"unreserved escapes decoded", "aidefend-file://docs/%41%2D%7e", "aidefend-file://docs/A-~", "root-docs-1", "A-~"},
	{"sub-delims escaped as encodeURIComponent", "aidefend-file://docs/a;b=c", "aidefend-file://docs/a%3Bb%3Dc", "root-docs-1", "a;b=c"},
	{"dots inside a name", "aidefend-file://docs/.profile", "aidefend-file://docs/.profile", "root-docs-1", ".profile"},
	{"file under root", "file:///srv/docs/a/b.txt", "file:///srv/docs/a/b.txt", "root-srv-docs", "a/b.txt"},
	{"file localhost", "file://LOCALHOST/srv/docs/b.txt", "file:///srv/docs/b.txt", "root-srv-docs", "b.txt"},
	{"file longest root", "file:///srv/docs/private/k.txt", "file:///srv/docs/private/k.txt", "root-private", "k.txt"},
	{"https host folded, 443 dropped", "HTTPS://Example.COM:443/a/b", "https://example.com/a/b", "", "a/b"},
	{"https port kept", "https://example.com:8443/a", "https://example.com:8443/a", "", "a"},
	{"https root", "https://example.com", "https://example.com/", "", ""},
	{"https query hex upper-cased", "https://example.com/s?q=a%2fb", "https://example.com/s?q=a%2Fb", "", "s"},
	{"custom", "tickets://SUPPORT/TICKET-12345", "tickets://support/TICKET-12345", "", "TICKET-12345"},
}

func TestParseAccepts(t *testing.T) {
	p := testParser(t)
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			u, err := p.Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if u.Canonical != c.canonical || u.RootID != c.root || u.RelativePath != c.rel {
				t.Fatalf("Parse(%q) = %q root %q rel %q, want %q %q %q", c.in, u.Canonical, u.RootID, u.RelativePath, c.canonical, c.root, c.rel)
			}
			again, err := p.Parse(u.Canonical)
			if err != nil || again.Canonical != u.Canonical || again.RelativePath != u.RelativePath {
				t.Fatalf("canonical form %q does not parse to itself: %v %q", u.Canonical, err, again.Canonical)
			}
		})
	}
}

// rejectCases are the attack classes of G003, each with the reason.
var rejectCases = []struct {
	class, name, in string
	want            Reason
}{
	// Traversal.
	{"traversal", "dot-dot", "aidefend-file://docs/../etc/passwd", ReasonDotSegment},
	{"traversal", "dot", "aidefend-file://docs/./a", ReasonDotSegment},
	{"traversal", "trailing dot-dot", "aidefend-file://docs/a/..", ReasonDotSegment},
	{"traversal", "encoded dot-dot", "aidefend-file://docs/%2e%2e/secret", ReasonDotSegment},
	{"traversal", "mixed encoded dot-dot", "aidefend-file://docs/.%2E/secret", ReasonDotSegment},
	{"traversal", "file dot-dot out of root", "file:///srv/docs/../../etc/passwd", ReasonDotSegment},
	{"traversal", "empty segment", "aidefend-file://docs/a//b", ReasonEmptySegment},
	{"traversal", "trailing slash", "aidefend-file://docs/a/", ReasonEmptySegment},
	{"traversal", "no path", "aidefend-file://docs", ReasonEmptySegment},
	{"traversal", "root only", "aidefend-file://docs/", ReasonEmptySegment},
	// Double encoding.
	{"double encoding", "double-encoded dot-dot", "aidefend-file://docs/%252e%252e/x", ReasonDoubleEncoding},
	{"double encoding", "double-encoded slash", "aidefend-file://docs/a%252fb", ReasonDoubleEncoding},
	{"double encoding", "double-encoded NUL", "aidefend-file://docs/a%2500", ReasonDoubleEncoding},
	{"double encoding", "bad escape", "aidefend-file://docs/a%zz", ReasonBadEncoding},
	{"double encoding", "truncated escape", "aidefend-file://docs/a%2", ReasonBadEncoding},
	{"double encoding", "overlong UTF-8 slash", "aidefend-file://docs/a%c0%afb", ReasonBadEncoding},
	{"double encoding", "invalid UTF-8 escape", "aidefend-file://docs/%ff", ReasonBadEncoding},
	// Separators.
	{"separators", "encoded slash", "aidefend-file://docs/a%2fb", ReasonEncodedSeparator},
	{"separators", "encoded slash upper", "aidefend-file://docs/a%2Fb", ReasonEncodedSeparator},
	{"separators", "encoded backslash", "aidefend-file://docs/a%5cb", ReasonEncodedSeparator},
	{"separators", "encoded NUL", "aidefend-file://docs/a%00", ReasonEncodedSeparator},
	{"separators", "raw backslash", "aidefend-file://docs/a\\..\\b", ReasonBackslash},
	{"separators", "raw NUL", "aidefend-file://docs/a\x00b", ReasonNUL},
	{"separators", "control escape", "aidefend-file://docs/a%0ab", ReasonControl},
	{"separators", "DEL escape", "aidefend-file://docs/a%7f", ReasonControl},
	{"separators", "raw space", "aidefend-file://docs/a b", ReasonSyntax},
	{"separators", "raw brace", "aidefend-file://docs/{x}", ReasonSyntax},
	{"separators", "query on alias scheme", "aidefend-file://docs/a?x=1", ReasonQueryOrFragment},
	{"separators", "fragment", "https://example.com/a#frag", ReasonQueryOrFragment},
	// Unicode variants.
	{"unicode", "fullwidth dot-dot", "aidefend-file://docs/%EF%BC%8E%EF%BC%8E/x", ReasonLookalike},
	{"unicode", "one-dot leader pair", "aidefend-file://docs/%E2%80%A5/x", ReasonLookalike},
	{"unicode", "fullwidth solidus", "aidefend-file://docs/a%EF%BC%8Fb", ReasonLookalike},
	{"unicode", "division slash", "aidefend-file://docs/a\u2215b", ReasonLookalike},
	{"unicode", "fullwidth reverse solidus", "aidefend-file://docs/a\uff3cb", ReasonLookalike},
	{"unicode", "small reverse solidus", "aidefend-file://docs/a%EF%B9%A8b", ReasonLookalike},
	{"unicode", "not NFC (decomposed e-acute)", "aidefend-file://docs/e%CC%81.txt", ReasonNotNFC},
	{"unicode", "not NFC raw", "aidefend-file://docs/e\u0301.txt", ReasonNotNFC},
	{"unicode", "bidi override", "aidefend-file://docs/a%E2%80%AEtxt.exe", ReasonControl},
	{"unicode", "zero-width space", "aidefend-file://docs/a\u200bb", ReasonControl},
	{"unicode", "C1 control", "aidefend-file://docs/a%C2%85b", ReasonControl},
	{"unicode", "invalid raw UTF-8", "aidefend-file://docs/a\xffb", ReasonSyntax},
	{"unicode", "trailing dot (Windows alias)", "aidefend-file://docs/secret.txt.", ReasonAmbiguousSegment},
	{"unicode", "trailing space (Windows alias)", "aidefend-file://docs/secret.txt%20", ReasonAmbiguousSegment},
	// Case variants and wrong alias.
	{"alias", "unknown alias", "aidefend-file://etc/passwd", ReasonUnknownRoot},
	{"alias", "unknown alias upper", "aidefend-file://ETC/passwd", ReasonUnknownRoot},
	{"alias", "alias with dot", "aidefend-file://docs.evil/a", ReasonAuthority},
	{"alias", "alias with user info", "aidefend-file://x@docs/a", ReasonAuthority},
	{"alias", "alias with port", "aidefend-file://docs:80/a", ReasonAuthority},
	{"alias", "encoded alias", "aidefend-file://d%6fcs/a", ReasonAuthority},
	{"alias", "leading hyphen", "aidefend-file://-docs/a", ReasonAuthority},
	{"alias", "file outside roots", "file:///etc/passwd", ReasonUnknownRoot},
	{"alias", "file root itself", "file:///srv/docs", ReasonUnknownRoot},
	{"alias", "file root prefix not on a boundary", "file:///srv/docsx/a", ReasonUnknownRoot},
	{"alias", "file case variant of root", "file:///SRV/docs/a", ReasonUnknownRoot},
	{"alias", "file remote host", "file://server/srv/docs/a", ReasonAuthority},
	{"alias", "custom host not listed", "tickets://billing/T-1", ReasonUnknownRoot},
	// Wrong scheme.
	{"scheme", "http", "http://example.com/a", ReasonScheme},
	{"scheme", "unknown", "gopher://docs/a", ReasonScheme},
	{"scheme", "no authority", "aidefend-file:docs/a", ReasonSyntax},
	{"scheme", "relative", "/etc/passwd", ReasonSyntax},
	{"scheme", "empty", "", ReasonSyntax},
	{"scheme", "scheme with space", " https://example.com/", ReasonSyntax},
	{"scheme", "javascript", "javascript://docs/%0aalert(1)", ReasonScheme},
	// https authorities.
	{"https", "user info", "https://user:pw@example.com/a", ReasonAuthority},
	{"https", "IPv6 literal", "https://[::1]/a", ReasonAuthority},
	{"https", "bad port", "https://example.com:0/a", ReasonAuthority},
	{"https", "port with sign", "https://example.com:+80/a", ReasonAuthority},
	{"https", "non-ASCII host", "https://exämple.com/a", ReasonAuthority},
	{"https", "encoded host", "https://exa%6dple.com/a", ReasonAuthority},
	{"https", "query NUL", "https://example.com/a?x=%00", ReasonControl},
	// Length.
	{"length", "over-long", "aidefend-file://docs/" + strings.Repeat("a", DefaultMaxLength), ReasonTooLong},
	{"length", "too many segments", "aidefend-file://docs/" + strings.Repeat("a/", DefaultMaxSegments) + "a", ReasonTooLong},
	{"length", "long segment", "aidefend-file://docs/" + strings.Repeat("a", DefaultMaxSegmentBytes+1), ReasonTooLong},
}

func TestParseRejects(t *testing.T) {
	p := testParser(t)
	for _, c := range rejectCases {
		t.Run(c.class+"/"+c.name, func(t *testing.T) {
			u, err := p.Parse(c.in)
			if err == nil {
				t.Fatalf("Parse(%q) accepted as %q", c.in, u.Canonical)
			}
			var e *Error
			if !errors.As(err, &e) || e.Reason != c.want {
				t.Fatalf("Parse(%q) = %v, want reason %s", c.in, err, c.want)
			}
			if !errors.Is(err, &Error{Reason: c.want}) {
				t.Fatal("errors.Is does not match the reason")
			}
			if strings.Contains(err.Error(), "docs") || strings.Contains(err.Error(), "passwd") {
				t.Fatalf("error %q carries input", err)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"bad scheme name":       {Schemes: []Scheme{{Name: "Bad", Kind: KindRoot}}},
		"duplicate scheme":      {Schemes: []Scheme{{Name: "a", Kind: KindRoot}, {Name: "a", Kind: KindRoot}}},
		"unknown kind":          {Schemes: []Scheme{{Name: "a", Kind: "x"}}},
		"file kind on other":    {Schemes: []Scheme{{Name: "a", Kind: KindFile}}},
		"query on root":         {Schemes: []Scheme{{Name: "a", Kind: KindRoot, AllowQuery: true}}},
		"upper-case alias":      {Roots: map[string]string{"Docs": "r"}},
		"empty root id":         {Roots: map[string]string{"docs": ""}},
		"relative file root":    {FileRoots: map[string]string{"srv": "r"}},
		"file root with dotdot": {FileRoots: map[string]string{"/srv/../etc": "r"}},
		"file root trailing /":  {FileRoots: map[string]string{"/srv/": "r"}},
		"negative limit":        {MaxLength: -1},
	} {
		if _, err := New(o); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: New = %v, want ErrOptions", name, err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	p := testParser(b)
	for _, c := range parseCases[:4] {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Parse(c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
