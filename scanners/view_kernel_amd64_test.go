package scanners

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestHighIndexKernel checks highIndexAVX2 against its definition (the
// first byte from 0x80 in the whole blocks of 32) and nextHigh, which
// dispatches to it, against nextHighWords: at every length to 300 and every
// start, with no high byte, one high byte (every value from 0x80) at every
// place, and random text of mostly ASCII.
func TestHighIndexKernel(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	want := func(b []byte, n int) int {
		for k := 0; k < n; k++ {
			if b[k] >= 0x80 {
				return k
			}
		}
		return n
	}
	check := func(b []byte) {
		t.Helper()
		if len(b) > 0 {
			if got, w := highIndexAVX2(unsafe.SliceData(b), len(b)), want(b, len(b)&^31); got != w {
				t.Fatalf("kernel over %q: %d, want %d", b, got, w)
			}
		}
		for i := 0; i <= len(b); i++ {
			if got, w := nextHigh(b, i), nextHighWords(b, i); got != w {
				t.Fatalf("nextHigh(%q, %d) = %d, want %d", b, i, got, w)
			}
		}
	}
	base := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789 &<>\n\t\x00\x7f", 8))[:300]
	for n := 0; n <= len(base); n++ {
		check(base[:n])
	}
	for _, n := range []int{31, 32, 63, 64, 65, 96, 127, 128, 129, 200, 300} {
		for at := 0; at < n; at++ {
			for v := 0x80; v <= 0xFF; v += 0x11 {
				b := append([]byte(nil), base[:n]...)
				b[at] = byte(v)
				check(b)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 9))
	for iter := 0; iter < 2000; iter++ {
		b := make([]byte, rng.IntN(400))
		for k := range b {
			b[k] = byte(rng.IntN(0x80))
			if rng.IntN(150) == 0 {
				b[k] = 0x80 | byte(rng.IntN(0x80))
			}
		}
		check(b)
	}
}

func BenchmarkKernelHighIndex(b *testing.B) {
	if !haveAVX2 {
		b.Skip("no AVX2")
	}
	benchKernel(b, prose, func(s []byte) int { return nextHighWords(s, 0) }, func(s []byte) int {
		k := highIndexAVX2(unsafe.SliceData(s), len(s))
		if k < len(s)&^31 {
			return k
		}
		return nextHighWords(s, k)
	})
}
