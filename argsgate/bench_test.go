package argsgate

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// BenchmarkCheckCall measures one gate decision with the compiled schema
// supplied (the args service's path): a valid call and a rejected one (the
// rejection builds and sanitizes the message).
func BenchmarkCheckCall(b *testing.B) {
	g, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := schema.Compile([]byte(searchSchema), schema.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	lookup := func(string) (*Schema, error) { return &Schema{Raw: []byte(searchSchema), Compiled: s}, nil }
	for _, c := range []struct{ name, body string }{
		{"valid", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"golang generics","limit":20,"mode":"fast","filters":{"lang":"en","tags":["a","b"]}}}}`},
		{"rejected", `{"query":"golang generics","limit":"twenty"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				r, _ := g.CheckCallSchema("search", []byte(c.body), lookup)
				if r.Valid != (c.name == "valid") {
					b.Fatal(r.Code)
				}
			}
		})
	}
}
