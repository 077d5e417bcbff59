package pipeline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// The word tests must find the first flagged byte of every word exactly,
// as the byte tables say; lanes above it do not matter.
func TestWordLanes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lanes    func(uint64) uint64
		flagged  func(byte) bool
		alphabet []byte
		seed     uint64
	}{
		{"specialLanes", specialLanes, func(c byte) bool { return !strSafe[c] },
			[]byte{'a', 'Z', ' ', '~', '"', '\\', 0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xc3, 0xff, '\n', '!', '#', '[', ']'}, 3},
		{"escLanes", escLanes, func(c byte) bool { return escTable[c] },
			[]byte{'a', ' ', '"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff, '\n', '\t'}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, tc.seed+1))
			for n := 0; n < 500000; n++ {
				var w [8]byte
				for i := range w {
					if r.IntN(4) == 0 {
						w[i] = byte(r.IntN(256))
					} else {
						w[i] = tc.alphabet[r.IntN(len(tc.alphabet))]
					}
				}
				first := 8
				for i, c := range w {
					if tc.flagged(c) {
						first = i
						break
					}
				}
				got := 8
				if m := tc.lanes(binary.LittleEndian.Uint64(w[:])); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != first {
					t.Fatalf("%q: first flagged byte at %d, %s says %d", w, first, tc.name, got)
				}
			}
		})
	}
}

func TestAppendEscapedMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 20000; n++ {
		const alpha = " a\"\\\n\t\r\x01\x1fzé"
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		s := strings.ToValidUTF8(string(b), "")
		got := string(appendEscaped([]byte("x"), []byte(s)))
		var back string
		if err := json.Unmarshal([]byte(`"`+got[1:]+`"`), &back); err != nil || back != s {
			t.Fatalf("%q escaped as %q (%v)", s, got, err)
		}
	}
}

func TestEscapedLenFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', ' ', '"', '\\', '\n', '\r', '\t', 0, 1, 0x1f, 0x20, 0x7f, 0x80, 0xff, '!', '#', '[', ']', 0x21, 0x5b, 0x5d, 0x5c ^ 0x80, 0x22 ^ 0x80}
	for range 20000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			if rng.IntN(3) == 0 {
				s[i] = byte(rng.IntN(256))
			} else {
				s[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if got, want := escapedLenFast(s), escapedLen(s); got != want {
			t.Fatalf("escapedLenFast(%q) = %d, escapedLen %d", s, got, want)
		}
	}
	for c := range 256 {
		s := bytes.Repeat([]byte{byte(c)}, 9)
		if got, want := escapedLenFast(s), escapedLen(s); got != want {
			t.Fatalf("escapedLenFast(9 x %#x) = %d, escapedLen %d", c, got, want)
		}
	}
}
