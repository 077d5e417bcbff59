package scanners_test

import (
	"encoding/json"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// webPageTexts returns the text strings of the web page BenchmarkSanitize
// uses (pipeline/bench_test.go: seed 5, 64 KiB), as the Redactor gets them:
// English prose with paragraphs of Latin accents, Cyrillic, Greek, CJK and
// emoji.
func webPageTexts(tb testing.TB) [][]byte {
	doc := bench.Generate(bench.Options{Seed: 5, Shape: bench.WebPage, Escaping: bench.EscapeMinimal, Size: 64 << 10}).JSON
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			if len(t) >= 1024 {
				out = append(out, []byte(t))
			}
		}
	}
	walk(v)
	if len(out) == 0 {
		tb.Fatal("no text in the web page")
	}
	return out
}

// BenchmarkRedactorWebPage is the Redactor alone on the web page's text
// (the detection view's costliest input: 399 look-alike letters among
// 2709 runes outside ASCII in 64 KiB), each string in one final Append,
// with look-alikes read (the default) and not (DisableSkeleton).
func BenchmarkRedactorWebPage(b *testing.B) {
	texts := webPageTexts(b)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	for _, tc := range []struct {
		name string
		opts scanners.CatalogOptions
	}{{"skeleton", scanners.CatalogOptions{}}, {"noskeleton", scanners.CatalogOptions{DisableSkeleton: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := scanners.NewCatalog(tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			r := c.NewRedactor([]byte("k"))
			var dst []byte
			var fs []scanners.Finding
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range texts {
					r.Reset()
					dst, fs = r.Append(dst[:0], t, true, fs[:0])
				}
			}
		})
	}
}
