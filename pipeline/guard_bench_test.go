package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchToolsList is a tools/list response of n tools shaped like real
// servers' (title, description, an inputSchema of three properties,
// annotations).
func benchToolsList(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","title":"Tool %d","description":"Reads the records of a table and returns the rows that match the filter, at most limit of them.","inputSchema":{"type":"object","properties":{"table":{"type":"string","description":"Name of the table"},"filter":{"type":"string","description":"SQL WHERE clause"},"limit":{"type":"integer","minimum":1,"maximum":1000}},"required":["table"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`, i, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// BenchmarkKindGuard compares a tools/list through the tools-list kind
// (pass, guard, attribution; with and without pinning against a store in
// memory) with the same bytes through a kind without a guard
// (completion-result: the pass alone), so the difference is the guard's
// cost.
func BenchmarkKindGuard(b *testing.B) {
	e, err := NewEngine(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{13, 200} {
		in := benchToolsList(n)
		for _, c := range []struct {
			name string
			info MessageInfo
		}{
			{"pass-only", MessageInfo{Kind: KindCompletionResult}},
			{"tools-list", MessageInfo{Kind: KindToolsList}},
			{"tools-list-pinned", MessageInfo{Kind: KindToolsList, Server: "srv", Pins: &memPins{}}},
		} {
			b.Run(fmt.Sprintf("%s/%d-tools", c.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				var out Buffer
				for b.Loop() {
					out.Reset()
					ev, err := e.Sanitize(context.Background(), bytes.NewReader(in), &out, c.info)
					if err != nil || ev.Outcome == OutcomeRejected {
						b.Fatalf("%v %+v", err, ev)
					}
				}
			})
		}
	}
}
