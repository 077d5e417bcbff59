package scanners

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
)

var (
	shortCleanOnce sync.Once
	shortCleanCat  *Catalog
)

func shortCleanCatalog(t testing.TB) *Catalog {
	shortCleanOnce.Do(func() {
		c, err := NewCatalog(CatalogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		shortCleanCat = c
	})
	return shortCleanCat
}

// checkShortClean checks ShortClean against Append on one ASCII string, on
// a Redactor just Reset (ctx == "") or given a member-name context: a true
// answer must be what Append does (src unchanged, no finding, the same
// spans), a false one must leave the Redactor as it was (Append after it
// gives what Append gives on a fresh one). It returns the answer.
func checkShortClean(t *testing.T, c *Catalog, s, ctx string) bool {
	t.Helper()
	ref := c.NewRedactor(testKey)
	got := c.NewRedactor(testKey)
	if ctx != "" {
		ref.ResetWithContext([]byte(ctx))
		got.ResetWithContext([]byte(ctx))
	}
	ref.HintASCII()
	wantOut, wantFs := ref.Append(nil, []byte(s), true, nil)
	wantSpans := append([]Span(nil), ref.Spans()...)
	// Append itself decides a whole short string in one walk (cleanWhole):
	// the same string in two Appends never is one, so it checks that.
	if len(s) >= 2 {
		split := c.NewRedactor(testKey)
		if ctx != "" {
			split.ResetWithContext([]byte(ctx))
		}
		k := len(s) / 2
		split.HintASCII()
		o, f := split.Append(nil, []byte(s[:k]), false, nil)
		o, f = split.Append(o, []byte(s[k:]), true, f)
		if string(o) != string(wantOut) || !reflect.DeepEqual(f, wantFs) {
			t.Fatalf("Append(%q, context %q) whole writes %q %v, in two parts %q %v", s, ctx, wantOut, wantFs, o, f)
		}
	}
	if got.ShortClean([]byte(s)) {
		if string(wantOut) != s || len(wantFs) != 0 {
			t.Fatalf("ShortClean(%q, context %q) true, but Append writes %q and finds %v", s, ctx, wantOut, wantFs)
		}
		if !reflect.DeepEqual(append([]Span(nil), got.Spans()...), wantSpans) {
			t.Fatalf("ShortClean(%q): spans %v, Append's %v", s, got.Spans(), wantSpans)
		}
		// The Redactor goes on as after that Append.
		next := "after " + s
		ref.HintASCII()
		o1, f1 := ref.Append(nil, []byte(next), true, nil)
		got.HintASCII()
		o2, f2 := got.Append(nil, []byte(next), true, nil)
		if string(o1) != string(o2) || !reflect.DeepEqual(f1, f2) {
			t.Fatalf("after ShortClean(%q): next string %q vs %q", s, o2, o1)
		}
		return true
	}
	got.HintASCII()
	out, fs := got.Append(nil, []byte(s), true, nil)
	if string(out) != string(wantOut) || !reflect.DeepEqual(fs, wantFs) {
		t.Fatalf("after ShortClean(%q) false: Append writes %q %v, want %q %v", s, out, fs, wantOut, wantFs)
	}
	return false
}

func TestShortClean(t *testing.T) {
	c := shortCleanCatalog(t)
	gh := "ghp_" + strings.Repeat("A1b2", 9)
	clean, dirty := 0, 0
	for _, s := range []string{
		"", "id", "path", "snippet", "score", "line", "column", "name", "items",
		"internal/src/app.go", "hello world", "a", strings.Repeat("x", 31), strings.Repeat("x", 32),
		"token", "password", "api_key", "secret", "Authorization", "bearer", "sk-", "AKIA",
		"<system>", "</system>", "[INST]", "<|im_start|>", "&lt;system&gt;", "a&b", "&#60;",
		"<&#115;ystem>", "&#x3c;system>", "<syst&#101;m>", "<&#x73;ystem>", "&#60;&#115;ystem&#62;",
		"ghp_", gh, gh[:31], "xoxb-123", "pat", "patch", "api-", "https://", "://",
		"password=hunter2", "token: abc", "key=AKIAIOSFODNN7EXAMPL",
	} {
		if checkShortClean(t, c, s, "") {
			clean++
		} else {
			dirty++
		}
		for _, ctx := range []string{"password", "id", "api_key"} {
			checkShortClean(t, c, s, ctx)
		}
	}
	// Both answers occur: the test would see a ShortClean that always
	// says false (or true).
	if clean < 10 || dirty < 10 {
		t.Fatalf("clean %d, not clean %d: expected both often", clean, dirty)
	}
}

// FuzzShortClean checks ShortClean against Append on arbitrary printable
// ASCII strings, with and without a member-name context.
func FuzzShortClean(f *testing.F) {
	for _, s := range []string{"", "path", "token", "<system>", "a&b", "ghp_AAAA", "password=x", "[INST]", "sk-ant-",
		strings.Repeat("QUJD", 8), "x." + strings.Repeat("QUJD", 8) + ".y", cleanWholeB64,
		"func Entry(ctx context.Context) error { return version(ctx, \"token\") }"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, ctx uint8) {
		b := []byte(s)
		if len(b) > cleanMax+8 {
			b = b[:cleanMax+8]
		}
		for i := range b {
			b[i] = ' ' + b[i]%95 // printable ASCII, as the pipeline calls it
		}
		name := ""
		switch ctx % 3 {
		case 1:
			name = "password"
		case 2:
			name = "data"
		}
		checkShortClean(t, shortCleanCatalog(t), string(b), name)
	})
}

// TestHasAmp checks hasAmp against bytes.IndexByte on every length up to
// 40 with an '&' at each place, and on bytes next to '&' in value.
func TestHasAmp(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for _, fill := range []byte{'a', '%', '\'', 0xa6, 0x26 ^ 0x80, 0} {
			b := bytes.Repeat([]byte{fill}, n)
			if n < 8 {
				// With capacity past len(b) holding '&': hasAmp reads
				// it and must not count it.
				full := bytes.Repeat([]byte{'&'}, 8)
				copy(full, b)
				if hasAmp(full[:n]) != (bytes.IndexByte(b, '&') >= 0) {
					t.Fatalf("hasAmp(%q, capacity 8 of '&') wrong", b)
				}
			}
			if got, want := hasAmp(b), bytes.IndexByte(b, '&') >= 0; got != want {
				t.Fatalf("hasAmp(%q) = %v, want %v", b, got, want)
			}
			for i := range n {
				c := bytes.Clone(b)
				c[i] = '&'
				if !hasAmp(c) {
					t.Fatalf("hasAmp(%q) = false", c)
				}
			}
		}
	}
}
