package scanners

import (
	"testing"
	"unicode/utf8"
)

// TestDecodeRuneMatchesUTF8 checks decodeRune against utf8.DecodeRune on
// every lead byte outside ASCII and every second byte, with third and
// fourth bytes at the edges of the continuation range and beyond, whole
// and cut short: foldWord and the normalizer take its answer for the
// standard one's.
func TestDecodeRuneMatchesUTF8(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}
	for c0 := 0x80; c0 <= 0xff; c0++ {
		for c1 := 0; c1 <= 0xff; c1++ {
			for _, c2 := range edges {
				for _, c3 := range edges {
					s := []byte{byte(c0), byte(c1), c2, c3}
					for n := 1; n <= len(s); n++ {
						r, size := decodeRune(s[:n], 0)
						wr, wsize := utf8.DecodeRune(s[:n])
						if r != wr || size != wsize {
							t.Fatalf("% x: decodeRune (%U, %d), utf8.DecodeRune (%U, %d)", s[:n], r, size, wr, wsize)
						}
					}
				}
			}
		}
	}
}
