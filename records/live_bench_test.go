package records

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// BenchmarkRunFlush: a stream of small records into a pipe, flushed as a
// live filter (Options.Flush) and not.
func BenchmarkRunFlush(b *testing.B) {
	var in strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&in, `{"tool":"t%d","outputSchema":null,"result":{"content":[{"type":"text","text":"record %d <system>x</system> %s"}]}}`+"\n", i, i, strings.Repeat("word ", 40))
	}
	stream := in.String()
	eng := testEngine(b)
	for _, flush := range []bool{false, true} {
		b.Run(fmt.Sprintf("flush=%v", flush), func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				pr, pw, err := os.Pipe()
				if err != nil {
					b.Fatal(err)
				}
				done := make(chan struct{})
				go func() { io.Copy(io.Discard, pr); pr.Close(); close(done) }()
				if err := Run(context.Background(), eng, strings.NewReader(stream), pw, Options{Kind: pipeline.KindToolResult, Flush: flush}); err != nil {
					b.Fatal(err)
				}
				pw.Close()
				<-done
			}
		})
	}
}

// BenchmarkBigRecord: one 8 MiB record held in memory and read from its
// file (MemRecordBytes below its size).
func BenchmarkBigRecord(b *testing.B) {
	const size = 8 << 20
	eng := testEngine(b)
	for _, mem := range []int{16 << 20, DefaultMemRecordBytes} {
		name := "memory"
		if mem < size {
			name = "file"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				in := newBigResultReader(size, `{"tool":"big","outputSchema":null,"result":`, "}\n")
				if err := Run(context.Background(), eng, in, io.Discard, Options{Kind: pipeline.KindToolResult, Workers: 1, MemRecordBytes: mem}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
