package pipeline

import "golang.org/x/sys/cpu"

//go:noescape
func decodeRunAVX2(src *byte, n int, dst *byte, room int, esc *[256]byte) (consumed, written int)

// haveDecodeRun reports whether decodeRun has a vector kernel here.
var haveDecodeRun = cpu.X86.HasAVX2

func decodeRun(src *byte, n int, dst *byte, room int, esc *[256]byte) (int, int) {
	return decodeRunAVX2(src, n, dst, room, esc)
}

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
