package records

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// benchRecords returns the generated mix (bench.Mix, seed 1) split into the
// records that carry an outputSchema, the same records with it removed, and
// the records that never had one, with the bytes of their results.
func benchRecords(n int) (sets []benchSet) {
	var schema, removed, plain benchSet
	schema.name, removed.name, plain.name = "schema", "schema-removed", "plain"
	for _, d := range bench.Mix(bench.MixOptions{Seed: 1, Records: n}) {
		r := d.Record()
		if r.OutputSchema == nil {
			plain.recs, plain.bytes = append(plain.recs, r), plain.bytes+int64(len(r.Result))
			continue
		}
		schema.recs, schema.bytes = append(schema.recs, r), schema.bytes+int64(len(r.Result))
		r.OutputSchema = nil
		removed.recs, removed.bytes = append(removed.recs, r), removed.bytes+int64(len(r.Result))
	}
	return []benchSet{schema, removed, plain}
}

type benchSet struct {
	name  string
	recs  []bench.Record
	bytes int64
}

// BenchmarkRunSchema runs records.Run (one worker, output discarded) over
// the records of the generated mix that carry an outputSchema, over the
// same records with the outputSchema removed (the plain path on the same
// bytes: the outputSchema target compares these two), and over the records
// that have none. MB/s count the results' bytes.
func BenchmarkRunSchema(b *testing.B) {
	p := pipeline.DefaultPolicy()
	p.Limits = map[string]int64{"text-chars": 2 << 30, "string-chars": 2 << 30, "output-bytes": 2 << 30}
	eng, err := pipeline.NewEngine(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, set := range benchRecords(600) {
		in := bench.JSONL(set.recs)
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(set.bytes)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				err := Run(context.Background(), eng, bytes.NewReader(in), io.Discard, Options{Kind: pipeline.KindToolResult, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
