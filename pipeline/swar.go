package pipeline

import (
	"encoding/binary"
	"math/bits"
)

// Word-at-a-time rune counting.

const lanes80 = 0x8080808080808080

// countRunes counts the runes of valid UTF-8 text: the bytes that are not
// continuation bytes (10xxxxxx).
func countRunes(s []byte) int64 {
	n := int64(len(s))
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		n -= int64(bits.OnesCount64(x & ^(x << 1) & lanes80))
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}
