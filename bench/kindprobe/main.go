// Command kindprobe runs one server message through its kind a given
// number of times in its main goroutine and does nothing else, so that an
// instruction count taken inside its loop is the cost of the passes (and
// the kind guards) alone (see bench/cgprobe for why not a benchmark
// binary):
//
//	valgrind --tool=callgrind --toggle-collect='main.loop' kindprobe -kind tools-list -tools 13 -n 11
//
// -tools N writes a tools/list response of N tools shaped like real
// servers' (pipeline's BenchmarkKindGuard has the same); -tools 0 a
// notifications/progress. Run it with -kind completion-result (a kind
// without a guard) on the same bytes for the pass alone; docs/benchmarks.md
// has the figures.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

func list(n int) []byte {
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

const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"peer-1","progress":2,"total":3,"message":"Copying files: 2 of 3 done"}}`

var sink int64

//go:noinline
func loop(e *pipeline.Engine, in []byte, info pipeline.MessageInfo, n int) {
	var out pipeline.Buffer
	for range n {
		out.Reset()
		ev, _ := e.Sanitize(context.Background(), bytes.NewReader(in), &out, info)
		sink += ev.Output.Bytes
	}
}

func main() {
	kind := flag.String("kind", "tools-list", "")
	tools := flag.Int("tools", 13, "")
	n := flag.Int("n", 1, "")
	flag.Parse()
	e, err := pipeline.NewEngine(nil)
	if err != nil {
		panic(err)
	}
	k, ok := pipeline.ParseKind(*kind)
	if !ok {
		panic("unknown kind " + *kind)
	}
	in := list(*tools)
	if *tools == 0 {
		in = []byte(progress)
	}
	loop(e, in, pipeline.MessageInfo{Kind: k}, *n)
}
