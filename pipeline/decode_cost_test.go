//go:build linux

package pipeline_test

import (
	"bytes"
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// threadCPU returns the CPU time of the calling OS thread
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// BenchmarkSanitizeDecodeCost measures what the search for secrets inside
// encoded runs (rules.disableDecoding false, the default) costs the whole
// pass, in CPU time of the benchmark's own thread, so that other processes
// on a shared machine weigh on both sides alike: each round sanitizes the
// document once with decoding and once without, alternating.
//
//	go test -run '^$' -bench SanitizeDecodeCost -benchtime 20x ./pipeline/
func BenchmarkSanitizeDecodeCost(b *testing.B) {
	// The benchmark policy (bounds large enough that nothing is cut), with
	// and without decoding.
	polOff := testPolicy(polBig, 64<<10)
	polOff.Rules.DisableDecoding = true
	on, err := pipeline.NewEngine(testPolicy(polBig, 64<<10))
	if err != nil {
		b.Fatal(err)
	}
	off, err := pipeline.NewEngine(polOff)
	if err != nil {
		b.Fatal(err)
	}
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, c := range benchCorpora {
		size := 1 << 20
		if c.name == "SecretsDense" {
			size = 64 << 10 // the generator plants one item per 2 KiB: keep it quick
		}
		doc := corpusDoc(c, size)
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var out pipeline.Discarder
			r := bytes.NewReader(doc)
			ctx := context.Background()
			run := func(e *pipeline.Engine) time.Duration {
				r.Reset(doc)
				t0 := threadCPU()
				ev, err := e.Sanitize(ctx, r, &out, info)
				d := threadCPU() - t0
				if err != nil || ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
					b.Fatalf("outcome %s %s (%v)", ev.Outcome, ev.Code, err)
				}
				return d
			}
			var tOn, tOff time.Duration
			b.SetBytes(2 * int64(len(doc))) // one pass on, one off
			b.ReportAllocs()
			for b.Loop() {
				tOn += run(on)
				tOff += run(off)
			}
			mb := float64(len(doc)) * float64(b.N) / 1e6
			b.ReportMetric(mb/tOn.Seconds(), "cpuMB/s-on")
			b.ReportMetric(mb/tOff.Seconds(), "cpuMB/s-off")
			b.ReportMetric(100*(tOn.Seconds()-tOff.Seconds())/tOff.Seconds(), "%cost")
		})
	}
}
