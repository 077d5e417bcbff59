package pipeline

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// The word tests must never miss a byte the byte tests catch.
func TestSWARAgreesWithBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'Z', ' ', '"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xa9, 0xff, '~', '\n'}
	for n := 0; n < 200000; n++ {
		var w [8]byte
		for i := range w {
			if r.IntN(3) == 0 {
				w[i] = byte(r.IntN(256))
			} else {
				w[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		str, esc := true, true
		for _, c := range w {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				str = false
			}
			if c < 0x20 || c == '"' || c == '\\' {
				esc = false
			}
		}
		if strWordClean(w[:]) && !str {
			t.Fatalf("strWordClean missed a byte in %q", w)
		}
		if escWordClean(binary.LittleEndian.Uint64(w[:])) && !esc {
			t.Fatalf("escWordClean missed a byte in %q", w)
		}
		if str && !strWordClean(w[:]) {
			t.Fatalf("strWordClean false positive on clean ASCII %q", w)
		}
	}
}

func TestCountRunes(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld", "日本語のテキストです", "😀😀😀 emoji and ascii text together", string([]byte{0xff, 0x80})} {
		want := int64(utf8.RuneCountInString(s))
		if !utf8.ValidString(s) {
			continue
		}
		if got := countRunes([]byte(s)); got != want {
			t.Errorf("countRunes(%q) = %d, want %d", s, got, want)
		}
	}
}
