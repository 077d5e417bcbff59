package scanners

import (
	"encoding/binary"
	"math/bits"
)

// highIndexMin is the shortest text nextHigh calls the kernel for: below
// it the Go words are as fast as the call (docs/kernels.md).
const highIndexMin = 256

//go:noescape
func highIndexAVX2(p *byte, n int) int

// nextHigh returns the index of the first byte of b[i:] that is not ASCII,
// or len(b): the first eight bytes as one word, then 64 bytes at a time
// with the vector kernel from highIndexMin bytes on, then nextHighWords.
func nextHigh(b []byte, i int) int {
	if i+8 <= len(b) {
		// Most often the next rune is near (the space between two words).
		if x := binary.LittleEndian.Uint64(b[i:]) & swarHi; x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
		i += 8
	}
	if haveAVX2 && len(b)-i >= highIndexMin {
		k := highIndexAVX2(&b[i], len(b)-i)
		if rest := (len(b) - i) &^ 31; k < rest {
			return i + k
		}
		i += k
	}
	return nextHighWords(b, i)
}
