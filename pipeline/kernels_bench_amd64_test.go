package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

// kernelLengths are the lengths of the per-call kernel benchmarks
// (docs/kernels.md). The callers call a vector kernel when 64 bytes or more
// are left; below that the kernel's row measures what a call would cost.
var kernelLengths = []int{16, 64, 256, 64 << 10}

func repeatTo(s string, n int) []byte { return []byte(strings.Repeat(s, n/len(s)+1)[:n]) }

// kernelInputs are the texts the per-call benchmarks run over: plain
// prose; code as JSON escapes it (a backslash every 17 bytes or so);
// Cyrillic (two bytes a rune).
var kernelInputs = []struct {
	name string
	text func(n int) []byte
}{
	{"plain", func(n int) []byte { return repeatTo("The quick brown fox jumps over the lazy dog, twice. ", n) }},
	{"escaped", func(n int) []byte {
		return repeatTo(`\tif err != nil {\n\t\treturn fmt.Errorf(\"x: %w\", err)\n\t}\n`, n)
	}},
	{"cyrillic", func(n int) []byte {
		return repeatTo("Съешь же ещё этих мягких французских булок. ", n)
	}},
}

type kernelCase struct {
	name string
	f    func(s, dst, sh []byte) int
}

func benchKernelCases(b *testing.B, inputs []string, cases []kernelCase) {
	for _, in := range kernelInputs {
		if !containsName(inputs, in.name) {
			continue
		}
		for _, n := range kernelLengths {
			s := in.text(n)
			dst := make([]byte, 2*n+128)
			sh := make([]byte, 2*n+128)
			want := cases[0].f(s, dst, sh)
			for _, c := range cases {
				if got := c.f(s, dst, sh); got != want {
					b.Fatalf("%s %s %d: %d, %s gives %d", c.name, in.name, n, got, cases[0].name, want)
				}
				b.Run(fmt.Sprintf("%s/%s/%d", in.name, c.name, n), func(b *testing.B) {
					b.SetBytes(int64(n))
					b.ReportAllocs()
					for b.Loop() {
						c.f(s, dst, sh)
					}
				})
			}
		}
	}
}

func containsName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func BenchmarkKernelDecodeRunSh(b *testing.B) {
	run := func(k func(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (int, int, int, bool)) func(s, dst, sh []byte) int {
		return func(s, dst, sh []byte) int {
			c, w, o, _ := k(&s[0], len(s), &dst[0], len(dst), &sh[0], len(sh), &runTabs)
			return c + w<<20 + o<<40
		}
	}
	cases := []kernelCase{{"go", run(decodeRunShGo)}}
	if haveDecodeRun {
		cases = append(cases, kernelCase{"avx2", run(decodeRunShAVX2)})
	}
	benchKernelCases(b, []string{"plain", "escaped"}, cases)
	if haveDecodeRunC {
		benchKernelCases(b, []string{"plain", "escaped"}, []kernelCase{{"goC", run(decodeRunShCGo)}, {"vbmi2", run(decodeRunShVBMI2)}})
	}
}

func BenchmarkKernelEscapeRun(b *testing.B) {
	if !haveDecodeRun {
		b.Skip("no AVX2")
	}
	run := func(k func(src *byte, n int, dst *byte, room int) (int, int)) func(s, dst, sh []byte) int {
		return func(s, dst, _ []byte) int {
			c, w := k(&s[0], len(s), &dst[0], len(dst))
			return c + w<<32
		}
	}
	// The escaper's input is decoded text: the escaped input decoded.
	benchKernelCases(b, []string{"plain", "escaped"}, []kernelCase{{"go", run(escapeRunGo)}, {"avx2", run(escapeRunAVX2)}})
}

func BenchmarkKernelCountRunes(b *testing.B) {
	if !haveDecodeRun {
		b.Skip("no AVX2")
	}
	benchKernelCases(b, []string{"cyrillic"}, []kernelCase{
		{"go", func(s, _, _ []byte) int { return int(countRunesGo(s)) }},
		{"avx2", func(s, _, _ []byte) int {
			k := len(s) &^ 31
			return countRunesAVX2(&s[0], len(s)) + int(countRunesGo(s[k:]))
		}},
	})
}

func BenchmarkKernelEscapedLen(b *testing.B) {
	if !haveDecodeRun {
		b.Skip("no AVX2")
	}
	benchKernelCases(b, []string{"plain", "escaped"}, []kernelCase{
		{"go", func(s, _, _ []byte) int { return escapedLenWords(s) }},
		{"avx2", func(s, _, _ []byte) int {
			k := len(s) &^ 31
			return escapedLenAVX2(&s[0], len(s)) + escapedLenWords(s[k:])
		}},
	})
}
