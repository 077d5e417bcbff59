package jsonlex

import (
	"testing"
	"unicode/utf8"
)

// TestValidRune23 checks validRune23 against utf8.DecodeRune, its
// specification, on every lead byte with every second and third byte
// (and cut after each): it answers the length DecodeRune reads for a
// valid two- or three-byte sequence, and 0 for everything else.
func TestValidRune23(t *testing.T) {
	var buf [3]byte
	for c0 := 0x80; c0 <= 0xFF; c0++ {
		for c1 := 0; c1 <= 0xFF; c1++ {
			for _, c2 := range []int{0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xFF} {
				buf = [3]byte{byte(c0), byte(c1), byte(c2)}
				for n := 1; n <= 3; n++ {
					b := buf[:n]
					r, size := utf8.DecodeRune(b)
					want := 0
					if !(r == utf8.RuneError && size == 1) && (size == 2 || size == 3) {
						want = size
					}
					if got := validRune23(b, 0); got != want {
						t.Fatalf("% x: validRune23 %d, utf8.DecodeRune reads %U size %d", b, got, r, size)
					}
				}
			}
		}
	}
}
