package pipeline

import "golang.org/x/sys/cpu"

//go:noescape
func decodeRunAVX2(src *byte, n int, dst *byte, room int, esc *[256]byte) (consumed, written int)

// haveDecodeRun reports whether decodeRun has a vector kernel here.
var haveDecodeRun = cpu.X86.HasAVX2

func decodeRun(src *byte, n int, dst *byte, room int, esc *[256]byte) (int, int) {
	return decodeRunAVX2(src, n, dst, room, esc)
}
