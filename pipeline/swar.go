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

// countRunesGo counts the runes of valid UTF-8 text: the bytes that are not
// continuation bytes (10xxxxxx). countRunes is it, with a vector kernel for
// long text where there is one.
func countRunesGo(s []byte) int64 {
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

// zeroLanes returns the high bit of exactly the byte lanes of x that are 0
// (no borrows: each lane is tested on its low seven bits apart).
func zeroLanes(x uint64) uint64 {
	return ^(((x & (lanes01 * 0x7f)) + lanes01*0x7f) | x) & lanes80
}

// escapedLenWords is escapedLen a word at a time: each byte below 0x20,
// quote and backslash adds one byte (\n), and a control other than tab,
// newline and carriage return four more (\u00XX). escapedLenFast is it,
// with a vector kernel for long text where there is one.
func escapedLenWords(s []byte) int {
	n := len(s)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		if escLanes(x) == 0 { // no byte to escape (escLanes never misses one)
			continue
		}
		lt := ^((x & (lanes01 * 0x7f)) + lanes01*0x60 | x) & lanes80 // exactly the bytes < 0x20
		q := zeroLanes(x ^ lanes01*'"')
		bs := zeroLanes(x ^ lanes01*'\\')
		n += bits.OnesCount64(lt | q | bs)
		if lt != 0 {
			six := lt &^ (zeroLanes(x^lanes01*'\n') | zeroLanes(x^lanes01*'\r') | zeroLanes(x^lanes01*'\t'))
			n += 4 * bits.OnesCount64(six)
		}
	}
	return n + escapedLen(s[i:]) - (len(s) - i)
}
