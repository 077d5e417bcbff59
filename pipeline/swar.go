package pipeline

import (
	"encoding/binary"
	"math/bits"
)

// Word-at-a-time helpers for the hot loops over string bytes. Each test may
// report a false positive in a lane above a true one, never a false negative,
// so callers use them only to skip clean words and fall back to bytes.

const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// hasLess reports lanes whose byte is below n (n <= 128).
func hasLess(x uint64, n byte) uint64 { return (x - lanes01*uint64(n)) & ^x & lanes80 }

// hasByte reports lanes equal to c.
func hasByte(x uint64, c byte) uint64 {
	v := x ^ (lanes01 * uint64(c))
	return (v - lanes01) & ^v & lanes80
}

// strWordClean reports whether 8 bytes of a JSON string body are plain
// ASCII that stands for itself: no quote, backslash, control or non-ASCII.
func strWordClean(b []byte) bool {
	x := binary.LittleEndian.Uint64(b)
	return (hasLess(x, 0x20) | hasByte(x, '"') | hasByte(x, '\\') | x&lanes80) == 0
}

// escWordClean reports whether 8 bytes need no JSON escaping. Bytes of
// non-ASCII runes never match: every test below leaves lanes with the high
// bit set alone.
func escWordClean(x uint64) bool {
	return (hasLess(x, 0x20) | hasByte(x, '"') | hasByte(x, '\\')) == 0
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
