package pipeline

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"testing"

	"github.com/zeebo/blake3"
	lblake3 "lukechampine.com/blake3"
)

// BenchmarkDigest measures the evidence digest of one stream, written in
// 4 KiB pieces, for each Policy.Digest mode and size: the figures behind
// the auto mode's 4 KiB switch (docs/performance.md).
//
//	go test -run '^$' -bench BenchmarkDigest ./pipeline/
func BenchmarkDigest(b *testing.B) {
	for _, size := range []int{512, 2048, 4096, 8192, 65536, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for _, mode := range []string{DigestSHA256, DigestBLAKE3, DigestAuto} {
			b.Run(fmt.Sprintf("%s/%d", mode, size), func(b *testing.B) {
				d := newDigester(mode)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					d.Reset()
					for i := 0; i < size; i += 4096 {
						d.Write(data[i:min(i+4096, size)])
					}
					_ = d.String()
				}
			})
		}
	}
}

// BenchmarkDigestAlg measures each hash the evidence digests can use, alone,
// on one stream of each size written in 4 KiB pieces (as the emitter and
// small reads hand them over): SHA-256 (crypto/sha256, SHA-NI where the CPU
// has it), zeebo/blake3 (AVX2 kernel), wideBLAKE3 (lukechampine.com/blake3's
// AVX-512 kernel through its guts package, on any CPU with AVX-512: its
// CPU detection, klauspost/cpuid, does not read GODEBUG),
// lukechampine.com/blake3's own Hasher (which starts goroutines and
// allocates per Write), and the digester as the CPU chooses (wideBLAKE3 or
// zeebo/blake3, after GODEBUG). Beside ns/op
// it reports cpu-ns/op and cpu-MB/s, the thread's CPU time, which moves
// little with the load of a shared machine (docs/digest.md).
//
//	go test -run '^$' -bench BenchmarkDigestAlg ./pipeline/
//	GODEBUG=cpu.avx512f=off go test -run '^$' -bench BenchmarkDigestAlg ./pipeline/
func BenchmarkDigestAlg(b *testing.B) {
	type hasher interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
		Reset()
	}
	algs := []struct {
		name string
		new  func() hasher
	}{
		{"sha256", func() hasher { return sha256.New() }},
		{"zeebo", func() hasher { return blake3.New() }},
		{"wide", func() hasher { return new(wideBench) }},
		{"lukechampine", func() hasher { return lblake3.New(32, nil) }},
		{"digester-auto", func() hasher { return digesterBench{newDigester(DigestAuto)} }},
	}
	for _, size := range []int{1 << 10, 4 << 10, 4<<10 + 100, 8 << 10, 16 << 10, 64 << 10, 64<<10 + 100, 64<<10 + 3000, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for _, alg := range algs {
			b.Run(fmt.Sprintf("%s/%d", alg.name, size), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				h := alg.new()
				var sum [32]byte
				b.SetBytes(int64(size))
				b.ReportAllocs()
				t0, ok := threadCPU()
				for b.Loop() {
					h.Reset()
					for i := 0; i < size; i += 4096 {
						h.Write(data[i:min(i+4096, size)])
					}
					h.Sum(sum[:0])
				}
				if t1, ok1 := threadCPU(); ok && ok1 && b.N > 0 {
					ns := float64(t1-t0) / float64(b.N)
					b.ReportMetric(ns, "cpu-ns/op")
					b.ReportMetric(float64(size)/ns*1e3, "cpu-MB/s")
				}
			})
		}
	}
}

// wideBench is wideBLAKE3 with hash.Hash's Write and Sum.
type wideBench struct{ wideBLAKE3 }

func (w *wideBench) Write(p []byte) (int, error) { w.wideBLAKE3.Write(p); return len(p), nil }
func (w *wideBench) Sum(b []byte) []byte {
	var s [32]byte
	w.wideBLAKE3.Sum(&s)
	return append(b, s[:]...)
}

// digesterBench is the digester with hash.Hash's Sum (the text it builds).
type digesterBench struct{ d *digester }

func (d digesterBench) Write(p []byte) (int, error) { return d.d.Write(p) }
func (d digesterBench) Sum(b []byte) []byte         { return append(b, d.d.String()...) }
func (d digesterBench) Reset()                      { d.d.Reset() }
