package records

import (
	"bytes"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/valyala/fastjson"
)

// BenchmarkEnvelope reads the record members of the generated mix
// (bench.Mix, seed 1, 600 records) the direct way (scanEnvelope) and the
// general way (a fastjson parse of the line and MarshalTo of its result).
func BenchmarkEnvelope(b *testing.B) {
	var recs []bench.Record
	for _, d := range bench.Mix(bench.MixOptions{Seed: 1, Records: 600}) {
		recs = append(recs, d.Record())
	}
	lines := bytes.Split(bytes.TrimRight(bench.JSONL(recs), "\n"), []byte("\n"))
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if _, ok := scanEnvelope(l); !ok {
					b.Fatal("a record of the mix goes the general way")
				}
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		var p fastjson.Parser
		var res []byte
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				v, err := p.ParseBytes(l)
				if err != nil {
					b.Fatal(err)
				}
				res = v.Get("result").MarshalTo(res[:0])
			}
		}
	})
}
