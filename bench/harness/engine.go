package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/records"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// big raises the character and output bounds so that large documents are
// sanitized whole: a cut document would measure skipping, not sanitizing.
var big = map[string]int64{"text-chars": 2 << 30, "string-chars": 2 << 30, "output-bytes": 2 << 30}

func newEngine(disabled []string) (*pipeline.Engine, error) {
	p := pipeline.DefaultPolicy()
	p.Limits = big
	p.Rules.Disabled = disabled
	return pipeline.NewEngine(p)
}

// result is one in-process measurement.
type result struct {
	n                    int
	nsPerOp              float64
	mbps                 float64
	bytesPerOp, allocsOp int64
}

// measure runs fn as a Go benchmark over inputs of the given mean size.
func measure(bytesPerOp int64, fn func(i int) error) (result, error) {
	var ferr error
	r := testing.Benchmark(func(b *testing.B) {
		b.SetBytes(bytesPerOp)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := fn(i); err != nil {
				ferr = err
				b.SkipNow()
			}
		}
	})
	if ferr != nil {
		return result{}, ferr
	}
	if r.N == 0 || r.T <= 0 {
		return result{}, fmt.Errorf("benchmark did not run")
	}
	ns := float64(r.T.Nanoseconds()) / float64(r.N)
	return result{n: r.N, nsPerOp: ns, mbps: float64(bytesPerOp) / ns * 1e3,
		bytesPerOp: r.AllocedBytesPerOp(), allocsOp: r.AllocsPerOp()}, nil
}

func (r result) pairs() []string {
	return []string{fmt.Sprintf("%.0f ns/op", r.nsPerOp), fmt.Sprintf("%.2f MB/s", r.mbps),
		fmt.Sprintf("%d B/op", r.bytesPerOp), fmt.Sprintf("%d allocs/op", r.allocsOp)}
}

func human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

var toolInfo = pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "harness"}

// textShapes are the generated shapes of the engine section's documents.
var textShapes = []bench.Shape{bench.FileRead, bench.LogTail, bench.WebPage, bench.APIResponse, bench.CodeSearch}

// sizedDocs returns one generated result per text shape near size bytes.
func sizedDocs(size int) ([][]byte, int64) {
	var docs [][]byte
	var total int64
	for i, sh := range textShapes {
		d := bench.Generate(bench.Options{Seed: uint64(i + 1), Shape: sh, Size: size, Secrets: 1, Tags: 1})
		docs = append(docs, d.JSON)
		total += int64(len(d.JSON))
	}
	return docs, total
}

func (h *harness) engineSection() error {
	eng, err := newEngine(nil)
	if err != nil {
		return err
	}
	mixSizes := []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
	bigSizes := []int64{64 << 10, 1 << 20, 16 << 20, 64 << 20}
	if h.o.quick {
		bigSizes = []int64{64 << 10, 1 << 20, 4 << 20}
	}
	tab := []string{"| series | size | MB/s per core | ns/op | B/op | allocs/op |", "|---|---|---|---|---|---|"}
	var mixPts, bigPts []point
	var out pipeline.Discarder
	for _, size := range mixSizes {
		docs, total := sizedDocs(int(size))
		r, err := measure(total/int64(len(docs)), func(i int) error {
			_, err := eng.Sanitize(context.Background(), bytes.NewReader(docs[i%len(docs)]), &out, toolInfo)
			return err
		})
		if err != nil {
			return err
		}
		h.progress("  shapes %s: %.1f MB/s", human(size), r.mbps)
		h.line("Pass/shapes/size="+human(size), r.n, r.pairs()...)
		tab = append(tab, fmt.Sprintf("| five shapes | %s | %.1f | %.0f | %d | %d |", human(size), r.mbps, r.nsPerOp, r.bytesPerOp, r.allocsOp))
		mixPts = append(mixPts, point{float64(size), r.mbps})
	}
	for _, size := range bigSizes {
		// The generator builds its 64 KiB pattern once; each run reads a
		// fresh copy of the unread reader.
		tmpl := bench.BigText(size, bench.LogTail, 1)
		r, err := measure(tmpl.Size(), func(i int) error {
			rd := *tmpl
			_, err := eng.Sanitize(context.Background(), &rd, &out, toolInfo)
			return err
		})
		if err != nil {
			return err
		}
		h.progress("  one text block %s: %.1f MB/s", human(size), r.mbps)
		h.line("Pass/text-block/size="+human(size), r.n, r.pairs()...)
		tab = append(tab, fmt.Sprintf("| one text block (log tail) | %s | %.1f | %.0f | %d | %d |", human(size), r.mbps, r.nsPerOp, r.bytesPerOp, r.allocsOp))
		bigPts = append(bigPts, point{float64(size), r.mbps})
	}
	h.charts = append(h.charts, chart{file: "throughput-size.svg", title: "Whole pass on one core against message size",
		xlabel: "message size (bytes)", ylabel: "MB/s", logX: true,
		series: []series{{name: "five generated shapes", pts: mixPts}, {name: "one text block (log tail)", pts: bigPts}}})
	h.add(section{title: "Engine: whole pass by size", text: []string{
		"`pipeline.Engine.Sanitize` from an in-memory reader into a discarding output, one goroutine (one core), " +
			"character and output bounds raised so nothing is cut. \"Five shapes\" rotates a file read, a log tail, a web page, " +
			"an API response and a code search (each with one fake secret and one tag); \"one text block\" is `bench.BigText`, " +
			"generated while read, so its memory does not grow with its size.",
		"![throughput against size](throughput-size.svg)", table(tab)}})
	return nil
}

func (h *harness) stagesSection() error {
	eng, err := newEngine(nil)
	if err != nil {
		return err
	}
	cat, err := scanners.NewCatalog(scanners.CatalogOptions{})
	if err != nil {
		return err
	}
	tab := []string{"| shape (64 KiB) | normalizer MB/s | redactor MB/s | whole pass MB/s | pass B/op | pass allocs/op |", "|---|---|---|---|---|---|"}
	for i, sh := range textShapes {
		d := bench.Generate(bench.Options{Seed: uint64(i + 1), Shape: sh, Size: 64 << 10, Secrets: 1, Tags: 1})
		text, err := bench.DecodedText(d.JSON)
		if err != nil {
			return fmt.Errorf("%s: %w", sh, err)
		}
		var nz scanners.Normalizer
		var norm []byte
		rn, err := measure(int64(len(text)), func(int) error {
			nz.Reset()
			norm = nz.Append(norm[:0], text, true)
			return nil
		})
		if err != nil {
			return err
		}
		red := cat.NewRedactor([]byte("harness-fingerprint-key-not-secret"))
		var dst []byte
		var fs []scanners.Finding
		rr, err := measure(int64(len(norm)), func(int) error {
			red.Reset()
			dst, fs = red.Append(dst[:0], norm, true, fs[:0])
			return nil
		})
		if err != nil {
			return err
		}
		var out pipeline.Discarder
		rp, err := measure(int64(len(d.JSON)), func(int) error {
			_, err := eng.Sanitize(context.Background(), bytes.NewReader(d.JSON), &out, toolInfo)
			return err
		})
		if err != nil {
			return err
		}
		h.progress("  %s: normalizer %.0f, redactor %.0f, pass %.0f MB/s", sh, rn.mbps, rr.mbps, rp.mbps)
		h.line("Stage/normalize/shape="+sh.String(), rn.n, rn.pairs()...)
		h.line("Stage/redact/shape="+sh.String(), rr.n, rr.pairs()...)
		h.line("Stage/pass/shape="+sh.String(), rp.n, rp.pairs()...)
		tab = append(tab, fmt.Sprintf("| %s | %.1f | %.1f | %.1f | %d | %d |", sh, rn.mbps, rr.mbps, rp.mbps, rp.bytesPerOp, rp.allocsOp))
	}
	h.add(section{title: "Stages", text: []string{
		"Each stage alone on the same 64 KiB result: the normalizer (`scanners.Normalizer`: invisible characters, NFKC) " +
			"over the decoded text of every string, the redactor (`scanners.Redactor`, the whole catalog) over the normalizer's " +
			"output, and the whole pass (lexing, decoding, both stages, bounds, re-escaping, evidence) over the JSON. " +
			"Stage MB/s count the stage's input bytes, the pass its JSON bytes.", table(tab)}})
	return nil
}

func (h *harness) rulesSection() error {
	cat, err := scanners.NewCatalog(scanners.CatalogOptions{})
	if err != nil {
		return err
	}
	var ids []string
	for _, r := range cat.Rules() {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	counts := []int{3, 30, len(ids)}
	docs, total := sizedDocs(64 << 10)
	tab := []string{"| rules | MB/s per core | ns/op | allocs/op |", "|---|---|---|---|"}
	var pts []point
	for _, n := range counts {
		// Keep every (len/n)-th rule, so a subset spans the catalog's families.
		keep := map[string]bool{}
		for i := 0; len(keep) < n && i < len(ids); i++ {
			keep[ids[i*len(ids)/n]] = true
		}
		var disabled []string
		for _, id := range ids {
			if !keep[id] {
				disabled = append(disabled, id)
			}
		}
		eng, err := newEngine(disabled)
		if err != nil {
			return fmt.Errorf("%d rules: %w", n, err)
		}
		var out pipeline.Discarder
		r, err := measure(total/int64(len(docs)), func(i int) error {
			_, err := eng.Sanitize(context.Background(), bytes.NewReader(docs[i%len(docs)]), &out, toolInfo)
			return err
		})
		if err != nil {
			return err
		}
		h.progress("  %d rules: %.1f MB/s", len(keep), r.mbps)
		h.line(fmt.Sprintf("Rules/n=%d", len(keep)), r.n, r.pairs()...)
		tab = append(tab, fmt.Sprintf("| %d | %.1f | %.0f | %d |", len(keep), r.mbps, r.nsPerOp, r.allocsOp))
		pts = append(pts, point{float64(len(keep)), r.mbps})
	}
	h.charts = append(h.charts, chart{file: "throughput-rules.svg", title: "Whole pass at 64 KiB against catalog size",
		xlabel: "rules in the catalog", ylabel: "MB/s", logX: true, series: []series{{name: "five shapes, 64 KiB", pts: pts}}})
	h.add(section{title: "Cost of the catalog", text: []string{
		fmt.Sprintf("The whole pass on the five 64 KiB shapes with a subset of the %d rules (every k-th rule id in sorted order, "+
			"the rest disabled by policy) and with all of them. One keyword automaton serves every rule, so the cost should grow "+
			"far slower than the rule count.", len(ids)),
		"![throughput against rules](throughput-rules.svg)", table(tab)}})
	return nil
}

func (h *harness) corpusSection() error {
	eng, err := newEngine(nil)
	if err != nil {
		return err
	}
	var plain, schema, removed []bench.Record
	var plainBytes, schemaBytes int64
	for _, r := range h.corpus {
		if r.OutputSchema != nil {
			schema, schemaBytes = append(schema, r), schemaBytes+int64(len(r.Result))
			// The same record on the plain path: the target compares the
			// two on the same bytes.
			r.OutputSchema = nil
			removed = append(removed, r)
		} else {
			plain, plainBytes = append(plain, r), plainBytes+int64(len(r.Result))
		}
	}
	tab := []string{"| records | count | MB | MB/s per core | records/s per core | allocs/record |", "|---|---|---|---|---|---|"}
	var rates = map[string]float64{}
	for _, set := range []struct {
		name  string
		recs  []bench.Record
		bytes int64
	}{{"all", h.corpus, h.corpusBytes}, {"without outputSchema", plain, plainBytes}, {"with outputSchema", schema, schemaBytes},
		{"with outputSchema, schema removed", removed, schemaBytes}} {
		if len(set.recs) == 0 {
			tab = append(tab, fmt.Sprintf("| %s | 0 | | | | |", set.name))
			continue
		}
		in := bench.JSONL(set.recs)
		r, err := measure(set.bytes, func(int) error {
			return records.Run(context.Background(), eng, bytes.NewReader(in), io.Discard, records.Options{Kind: pipeline.KindToolResult, Workers: 1})
		})
		if err != nil {
			return fmt.Errorf("%s: %w", set.name, err)
		}
		perRec := 1e9 / r.nsPerOp * float64(len(set.recs))
		rates[set.name] = r.mbps
		h.progress("  %s: %.1f MB/s, %.0f records/s", set.name, r.mbps, perRec)
		h.line("Corpus/"+map[string]string{"all": "all", "without outputSchema": "plain", "with outputSchema": "schema",
			"with outputSchema, schema removed": "schema-removed"}[set.name], r.n, r.pairs()...)
		tab = append(tab, fmt.Sprintf("| %s | %d | %.1f | %.1f | %.0f | %.0f |", set.name, len(set.recs), float64(set.bytes)/1e6, r.mbps, perRec, float64(r.allocsOp)/float64(len(set.recs))))
	}
	text := []string{"The corpus through `records.Run` (what `scan --jsonl` runs) in this process, one worker, output discarded; " +
		"MB/s count the results' bytes. Records with an outputSchema carry `structuredContent`, validated raw and sanitized, " +
		"projected, and the text blocks that mirror it regenerated. \"Schema removed\" is the same records with their " +
		"outputSchema taken out, so they take the plain path: the outputSchema target compares those two rows.", table(tab)}
	if p, s := rates["with outputSchema, schema removed"], rates["with outputSchema"]; p > 0 && s > 0 {
		text = append(text, fmt.Sprintf("outputSchema path / plain path on the same records: **%.2f** (MB/s against MB/s; target at least 0.5).", s/p))
	}
	if p, s := rates["without outputSchema"], rates["with outputSchema"]; p > 0 && s > 0 {
		text = append(text, fmt.Sprintf("outputSchema records / records without one (different records): %.2f.", s/p))
	}
	h.add(section{title: "Corpus in process: " + h.corpusName, text: text})
	return nil
}

func table(rows []string) string {
	var b bytes.Buffer
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return b.String()
}
