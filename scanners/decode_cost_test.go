//go:build linux

package scanners

import (
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time the calling OS thread has used
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID): the scheduler's exact runtime,
// not tick samples).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// BenchmarkDecodeCost measures what decoding encoded runs costs the
// Redactor, in CPU time of the benchmark's own thread (not wall time, which
// other processes on a shared machine distort): each round redacts the corpus
// once with decoding and once without, alternating, and the metrics are the
// totals over all rounds.
//
//	go test -run '^$' -bench DecodeCost -benchtime 20x ./scanners/
func BenchmarkDecodeCost(b *testing.B) {
	on := newTestCatalog(b, CatalogOptions{})
	off := newTestCatalog(b, CatalogOptions{DisableDecoding: true})
	for _, cp := range benchCorpora(benchSize) {
		b.Run(cp.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			rOn, rOff := on.NewRedactor(testKey), off.NewRedactor(testKey)
			dst := make([]byte, 0, len(cp.data)+1024)
			var fs []Finding
			run := func(r *Redactor) time.Duration {
				t0 := threadCPU()
				r.Reset()
				dst, fs = dst[:0], fs[:0]
				for i := 0; i < len(cp.data); i += 32 << 10 {
					dst, fs = r.Append(dst, cp.data[i:min(len(cp.data), i+32<<10)], false, fs)
				}
				dst, fs = r.Append(dst, nil, true, fs)
				return threadCPU() - t0
			}
			var tOn, tOff time.Duration
			b.SetBytes(2 * int64(len(cp.data))) // one pass on, one off
			b.ReportAllocs()
			for b.Loop() {
				tOn += run(rOn)
				tOff += run(rOff)
			}
			mb := float64(len(cp.data)) * float64(b.N) / 1e6
			b.ReportMetric(mb/tOn.Seconds(), "cpuMB/s-on")
			b.ReportMetric(mb/tOff.Seconds(), "cpuMB/s-off")
			b.ReportMetric(100*(tOn.Seconds()-tOff.Seconds())/tOff.Seconds(), "%cost")
		})
	}
}
