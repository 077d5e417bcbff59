package pipeline_test

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// benchCorpus is one kind of tool output for the benchmarks
// (bench.SanitizeCorpora).
type benchCorpus struct {
	name string
	c    bench.SanitizeCorpus
}

var benchCorpora = func() (cs []benchCorpus) {
	for _, c := range bench.SanitizeCorpora {
		cs = append(cs, benchCorpus{name: c.Name, c: c})
	}
	return cs
}()

var benchSizes = []struct {
	name string
	n    int
}{{"4KiB", 4 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}}

// corpusDoc generates a corpus at a size.
func corpusDoc(c benchCorpus, size int) []byte { return c.c.Doc(size) }

// BenchmarkSanitize measures the whole pass (lex, decode, normalize,
// redact, bound, re-escape, evidence) into a Discarder, with bounds large
// enough that nothing is cut.
func BenchmarkSanitize(b *testing.B) {
	e := engine(b, polBig, 64<<10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, c := range benchCorpora {
		for _, sz := range benchSizes {
			b.Run(c.name+"/"+sz.name, func(b *testing.B) {
				doc := corpusDoc(c, sz.n)
				var out pipeline.Discarder
				r := bytes.NewReader(doc)
				ctx := context.Background()
				ev, err := e.Sanitize(ctx, r, &out, info)
				if err != nil || ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
					b.Fatalf("outcome %s %s %s (%v)", ev.Outcome, ev.Code, ev.Reason, err)
				}
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				// Collect the generator's garbage now, so a background GC of
				// it does not run (and preempt the pass) inside the loop.
				runtime.GC()
				for b.Loop() {
					r.Reset(doc)
					if _, err := e.Sanitize(ctx, r, &out, info); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestAllocsDoNotGrowWithSize checks that the allocations of a pass do not
// depend on the size of the document: no allocation per token, per string
// or per chunk on clean mostly-ASCII and non-ASCII tool output.
func TestAllocsDoNotGrowWithSize(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector makes sync.Pool drop passes at random")
	}
	e := engine(t, polBig, 64<<10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, c := range benchCorpora {
		if c.name == "SecretsDense" {
			continue // findings are allocated per finding, by design
		}
		allocs := func(size int) float64 {
			doc := corpusDoc(c, size)
			r := bytes.NewReader(doc)
			var out pipeline.Discarder
			return testing.AllocsPerRun(5, func() {
				r.Reset(doc)
				if _, err := e.Sanitize(context.Background(), r, &out, info); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, large := allocs(64<<10), allocs(1<<20)
		t.Logf("%s: %.0f allocs for 64 KiB, %.0f for 1 MiB", c.name, small, large)
		// Two allocations of slack: a pooled buffer may grow once more.
		if large > small+2 {
			t.Errorf("%s: allocations grow with size: %.0f for 64 KiB, %.0f for 1 MiB", c.name, small, large)
		}
	}
}

// mixedDocs returns the 20 documents of about size bytes bench/natsbench
// sends, and their total length.
func mixedDocs(size int) ([][]byte, int) {
	shapes := []bench.Shape{bench.FileRead, bench.LogTail, bench.APIResponse, bench.CodeSearch, bench.WebPage}
	var docs [][]byte
	total := 0
	for i := range 20 {
		d := bench.Generate(bench.Options{Seed: uint64(i + 1), Shape: shapes[i%len(shapes)], Size: size, Secrets: 1}).JSON
		docs = append(docs, d)
		total += len(d)
	}
	return docs, total
}

// BenchmarkSanitizeMixed runs the documents bench/natsbench sends: the five
// shapes round robin, each string escaped in a style of its own (minimal,
// HTML-safe as Go's encoding/json writes, or ASCII-only as Python's
// json.dumps writes), one planted credential per document.
func BenchmarkSanitizeMixed(b *testing.B) {
	e := engine(b, polBig, 64<<10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			docs, total := mixedDocs(sz.n)
			var out pipeline.Discarder
			r := bytes.NewReader(nil)
			ctx := context.Background()
			b.SetBytes(int64(total / len(docs)))
			b.ReportAllocs()
			runtime.GC()
			i := 0
			for b.Loop() {
				r.Reset(docs[i%len(docs)])
				i++
				ev, err := e.Sanitize(ctx, r, &out, info)
				if err != nil || ev.Outcome == pipeline.OutcomeRejected {
					// A rejected pass is fast; never measure one.
					b.Fatalf("outcome %s %s %s (%v)", ev.Outcome, ev.Code, ev.Reason, err)
				}
			}
		})
	}
}
