package pipeline_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"golang.org/x/sys/cpu"
)

// BenchmarkSanitizeDigestPair runs Search (and the other corpora) at 64 KiB
// through two engines that differ only in the BLAKE3 code of their evidence
// digests, zeebo/blake3 and wideBLAKE3, one call each in turn (in
// alternating order), and reports
// each one's thread CPU time: on a shared machine whose load moves the CPU
// time of one run by ±15 % (the other vCPU is a busy sibling or not), the
// two halves of each pair see the same load, so their ratio holds where
// two separate runs do not. Needs AVX-512 (wideBLAKE3's kernel).
//
//	go test -run '^$' -bench 'BenchmarkSanitizeDigestPair/Search' -benchtime 2000x ./pipeline/
func BenchmarkSanitizeDigestPair(b *testing.B) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512VL {
		b.Skip("no AVX-512: the wide path does not run here")
	}
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, c := range benchCorpora {
		b.Run(c.name+"/64KiB", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			doc := corpusDoc(c, 64<<10)
			ctx := context.Background()
			var out pipeline.Discarder
			r := bytes.NewReader(doc)
			var engines [2]*pipeline.Engine // zeebo/blake3, wideBLAKE3
			old := pipeline.SetBLAKE3Wide(false)
			for i := range engines {
				pipeline.SetBLAKE3Wide(i == 1)
				e, err := pipeline.NewEngine(testPolicy(polBig, 64<<10))
				if err != nil {
					b.Fatal(err)
				}
				engines[i] = e
				r.Reset(doc) // the first call makes the pass and its digesters
				if _, err := engines[i].Sanitize(ctx, r, &out, info); err != nil {
					b.Fatal(err)
				}
			}
			pipeline.SetBLAKE3Wide(old)
			var cpuNs [2]int64
			b.SetBytes(int64(len(doc)))
			runtime.GC()
			for k := 0; b.Loop(); k++ {
				for j := range engines {
					i := j ^ k&1 // each engine first every other turn: the second runs on a warmer cache
					e := engines[i]
					t0, _ := pipeline.ThreadCPU()
					r.Reset(doc)
					if _, err := e.Sanitize(ctx, r, &out, info); err != nil {
						b.Fatal(err)
					}
					t1, _ := pipeline.ThreadCPU()
					cpuNs[i] += t1 - t0
				}
			}
			zeebo, wide := float64(cpuNs[0])/float64(b.N), float64(cpuNs[1])/float64(b.N)
			b.ReportMetric(float64(len(doc))/zeebo*1e3, "zeebo-cpu-MB/s")
			b.ReportMetric(float64(len(doc))/wide*1e3, "wide-cpu-MB/s")
			b.ReportMetric(zeebo/wide, "speedup")
		})
	}
}
