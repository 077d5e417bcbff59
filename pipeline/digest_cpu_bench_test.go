package pipeline_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// BenchmarkSanitizeCPU is BenchmarkSanitize at 64 KiB with the pass's own
// CPU time beside the wall clock: cpu-ns/op and cpu-MB/s are the time the
// benchmark's (locked) thread spent on the CPU, which another process on a
// shared machine moves much less than ns/op (docs/digest.md). GC workers
// run on other threads and are not counted; the pass allocates a few
// hundred bytes a call.
//
//	go test -run '^$' -bench 'BenchmarkSanitizeCPU/Search' -count 6 ./pipeline/
func BenchmarkSanitizeCPU(b *testing.B) {
	e := engine(b, polBig, 64<<10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, c := range benchCorpora {
		b.Run(c.name+"/64KiB", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			doc := corpusDoc(c, 64<<10)
			var out pipeline.Discarder
			r := bytes.NewReader(doc)
			ctx := context.Background()
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			runtime.GC()
			t0, ok := pipeline.ThreadCPU()
			for b.Loop() {
				r.Reset(doc)
				if _, err := e.Sanitize(ctx, r, &out, info); err != nil {
					b.Fatal(err)
				}
			}
			if t1, ok1 := pipeline.ThreadCPU(); ok && ok1 && b.N > 0 {
				ns := float64(t1-t0) / float64(b.N)
				b.ReportMetric(ns, "cpu-ns/op")
				b.ReportMetric(float64(len(doc))/ns*1e3, "cpu-MB/s")
			}
		})
	}
}
