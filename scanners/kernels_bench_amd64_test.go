package scanners

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// kernelLengths are the lengths of the per-call kernel benchmarks
// (docs/kernels.md). The dispatch functions call a vector kernel from 64
// bytes on (runWindow from 32); below that the kernel's row measures what
// a call would cost.
var kernelLengths = []int{16, 64, 256, 64 << 10}

// prose is ASCII text with newlines and no encoded run, confusable lead
// byte or keyword hit: what the normalizer and the encoded-run tracker
// skip over most of the time.
func prose(n int) []byte {
	const line = "The quick brown fox jumps over the lazy dog, twice.\n\tIt said: done.\n"
	return []byte(strings.Repeat(line, n/len(line)+1)[:n])
}

// benchKernel runs go and kernel, the Go specification and the assembly
// kernel (with the Go tail its dispatch function runs), at each length.
func benchKernel(b *testing.B, in func(n int) []byte, spec, kernel func([]byte) int) {
	for _, n := range kernelLengths {
		s := in(n)
		if got, want := kernel(s), spec(s); got != want {
			b.Fatalf("%d bytes: kernel %d, Go %d", n, got, want)
		}
		for _, k := range []struct {
			name string
			f    func([]byte) int
		}{{"go", spec}, {"avx2", kernel}} {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					k.f(s)
				}
			})
		}
	}
}

func BenchmarkKernelASCIISpan(b *testing.B) {
	if !haveAVX2 {
		b.Skip("no AVX2")
	}
	benchKernel(b, prose, func(s []byte) int { return asciiSpanWords(s, 0) }, func(s []byte) int {
		k := asciiSpanAVX2(unsafe.SliceData(s), len(s))
		if k < len(s)&^31 {
			return k
		}
		return asciiSpanWords(s, k)
	})
}

func BenchmarkKernelConfusableLead(b *testing.B) {
	if !haveAVX2 {
		b.Skip("no AVX2")
	}
	latin := func(n int) []byte { return []byte(strings.Repeat("café déjà vu – naïve ", n/20+1)[:n]) }
	benchKernel(b, latin, func(s []byte) int { return nextConfusableLeadWords(s, 0) }, func(s []byte) int {
		k := leadIndexAVX2(unsafe.SliceData(s), len(s))
		if k < len(s)&^31 {
			return k
		}
		return nextConfusableLeadWords(s, k)
	})
}

func BenchmarkKernelRunWindow(b *testing.B) {
	if !haveAVX2 {
		b.Skip("no AVX2")
	}
	benchKernel(b, prose, func(s []byte) int { k, from := runWindowGo(s); return k + from }, func(s []byte) int {
		if len(s) < 32 {
			k, from := runWindowGo(s)
			return k + from
		}
		k, from := runWindowAVX2(unsafe.SliceData(s), len(s))
		return k + from
	})
}

// BenchmarkKernelWalk8 measures the eight-lane automaton step, which
// collect8 calls for blocks from collect8Min (1 KiB) only.
func BenchmarkKernelWalk8(b *testing.B) {
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a := c.ac
	tp := (*uint16)(unsafe.Pointer(unsafe.SliceData(a.trans)))
	for _, n := range []int{collect8Min, 64 << 10} {
		s := prose(n)
		q := n / 8
		for _, k := range []struct {
			name string
			f    func(tp *uint16, p *byte, q int, i int, st *[8]uint32, m uint32) int
		}{{"go", walk8Go}, {"asm", walk8}} {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					var st [8]uint32
					for j := 0; j < q; j++ {
						j = k.f(tp, unsafe.SliceData(s), q, j, &st, a.matchMin)
					}
				}
			})
		}
	}
}
