package pipeline

import (
	"encoding/binary"
	"unicode/utf8"
)

// runeCount is utf8.RuneCount, reading a leading run of ASCII eight bytes
// at a time: the JSON of a structured result that mirrors into a text
// block is counted against the text bound at every record, and is mostly
// ASCII (utf8.RuneCount reads it a byte at a time). From the first word
// that holds a byte of 0x80 or more, the rest is utf8.RuneCount's.
func runeCount(b []byte) int {
	i := 0
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	return i + utf8.RuneCount(b[i:])
}
