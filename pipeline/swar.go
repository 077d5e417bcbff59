package pipeline

import (
	"encoding/binary"
	"math/bits"
)

// Word-at-a-time helpers.

const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// specialLanes returns the high bit of each byte lane of x that is not a
// plain string byte: below 0x20, a quote, a backslash, DEL or non-ASCII.
// Lanes above the first flagged one may be flagged falsely (borrows and
// carries); the first flagged lane is always exact.
func specialLanes(x uint64) uint64 {
	lt := (x - lanes01*0x20) & ^x       // byte < 0x20
	ge := (x + lanes01*(0x80-0x7f)) | x // byte >= 0x7f
	q := x ^ (lanes01 * '"')
	q = (q - lanes01) & ^q // byte == '"'
	bs := x ^ (lanes01 * '\\')
	bs = (bs - lanes01) & ^bs // byte == '\\'
	return (lt | ge | q | bs) & lanes80
}

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

// escLanes returns the high bit of each byte lane of x that needs a JSON
// escape: below 0x20, a quote or a backslash. Non-ASCII lanes never match.
// The first flagged lane is exact; lanes above it may be flagged falsely.
func escLanes(x uint64) uint64 {
	lt := (x - lanes01*0x20) & ^x
	q := x ^ (lanes01 * '"')
	q = (q - lanes01) & ^q
	bs := x ^ (lanes01 * '\\')
	bs = (bs - lanes01) & ^bs
	return (lt | q | bs) & lanes80
}
