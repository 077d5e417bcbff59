package pipeline

import (
	"os"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// kernelChoice is the environment variable MCP_SANITIZE_KERNELS, read once
// at start-up as package scanners reads it: "go" runs none of the assembly
// kernels, "avx2" none that needs AVX-512; unset or anything else, every
// kernel the CPU has (docs/kernels.md).
var kernelChoice = os.Getenv("MCP_SANITIZE_KERNELS")

// haveDecodeRun reports whether decodeRunSh and the scans have vector
// kernels here (AVX2).
var haveDecodeRun = cpu.X86.HasAVX2 && kernelChoice != "go"

//go:noescape
func countRunesAVX2(p *byte, n int) int

//go:noescape
func escapedLenAVX2(p *byte, n int) int

// countRunes counts the runes of valid UTF-8 text: the bytes that are not
// continuation bytes (10xxxxxx).
func countRunes(s []byte) int64 {
	if haveDecodeRun && len(s) >= 64 {
		k := len(s) &^ 31
		return int64(countRunesAVX2(&s[0], len(s))) + countRunesGo(s[k:])
	}
	return countRunesGo(s)
}

// escapedLenFast is escapedLen, 32 bytes at a time where it can.
func escapedLenFast(s []byte) int {
	if haveDecodeRun && len(s) >= 64 {
		k := len(s) &^ 31
		return escapedLenAVX2(&s[0], len(s)) + escapedLenWords(s[k:])
	}
	return escapedLenWords(s)
}

//go:noescape
func decodeRunShAVX2(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool)

//go:noescape
func decodeRunShVBMI2(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool)

// haveDecodeRunC reports whether decodeRunSh is decodeRunShVBMI2, which
// decodes every two-byte escape of a 32-byte block at once (AVX-512 VBMI2's
// VPCOMPRESSB, BMI2's BZHI): on this project's machine (Zen 4) it is faster on text
// dense with escapes (docs/kernels.md). Elsewhere it is decodeRunShAVX2.
// HasAVX512F is required too, as every AVX-512 CPU has it: x/sys/cpu
// clears only the feature GODEBUG names, so without it
// GODEBUG=cpu.avx512f=off (the AVX2 path the harness measures on a Zen 4)
// kept this kernel, which a Zen 3 does not have.
var haveDecodeRunC = haveDecodeRun && kernelChoice != "avx2" && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasAVX512VL &&
	cpu.X86.HasAVX512BW && cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// decodeRunSh is decodeRunShVBMI2 or decodeRunShAVX2, but takes nothing
// when a quote is among the first decodeShortWords*8 bytes of src: a string
// that ends there (a key, the short values of structured results) is one
// block of the kernel, whose call and set-up then cost more than the
// lexer's word loop (docs/kernels.md: search results were 15-45% slower
// with the kernel called for them).
func decodeRunSh(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (int, int, int, bool) {
	if n < decodeShortWords*8 || quoteAhead(src) {
		return 0, 0, 0, false
	}
	if haveDecodeRunC {
		return decodeRunShVBMI2(src, n, dst, room, sh, shRoom, t)
	}
	return decodeRunShAVX2(src, n, dst, room, sh, shRoom, t)
}

//go:noescape
func escapeRunAVX2(src *byte, n int, dst *byte, room int) (consumed, written int)

func escapeRun(src *byte, n int, dst *byte, room int) (int, int) {
	return escapeRunAVX2(src, n, dst, room)
}

// decodeShortWords is how many words decodeRunSh looks at for a quote.
const decodeShortWords = 4

// quoteAhead reports whether one of the decodeShortWords*8 bytes at p is a
// quote (a zero lane of x^'"' flags exactly when there is one).
func quoteAhead(p *byte) bool {
	var m uint64
	for w := range decodeShortWords {
		x := *(*uint64)(unsafe.Add(unsafe.Pointer(p), 8*w)) ^ (lanes01 * '"')
		m |= (x - lanes01) & ^x
	}
	return m&lanes80 != 0
}
