//go:build !amd64

package pipeline

const haveDecodeRun = false

func decodeRun(src *byte, n int, dst *byte, room int, esc *[256]byte) (int, int) {
	return decodeRunGo(src, n, dst, room, esc)
}

func countRunes(s []byte) int64 { return countRunesGo(s) }

func escapedLenFast(s []byte) int { return escapedLenWords(s) }
