package pipeline

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkStructuredBase64Lookup: 3,000 records of short strings under a
// schema that declares one member base64 (every string start looks its
// location up) and under the same schema without the keyword.
func BenchmarkStructuredBase64Lookup(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"content":[],"structuredContent":{"items":[`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"name":"file name","kind":"image","data":"QUJDRA=="}`)
	}
	sb.WriteString(`]}}`)
	in := sb.String()
	for _, bc := range []struct{ name, enc string }{{"keyword", `,"contentEncoding":"base64"`}, {"none", ``}} {
		b.Run(bc.name, func(b *testing.B) {
			sch := mustSchema(b, `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"kind":{"type":"string"},"data":{"type":"string"`+bc.enc+`}}}}}}`)
			e, err := NewEngine(nil)
			if err != nil {
				b.Fatal(err)
			}
			info := MessageInfo{Kind: KindToolResult, Tool: "t", OutputSchema: sch}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var out Buffer
				ev, err := e.Sanitize(context.Background(), strings.NewReader(in), &out, info)
				if err != nil || ev.Outcome == OutcomeRejected {
					b.Fatal(err, ev.Code, ev.Reason)
				}
			}
		})
	}
}
