package pipeline

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestDecodeRunMatchesGo compares decodeRun (the vector kernel where there
// is one) with decodeRunGo on random text of every kind the lexer sees:
// plain runs, every escape, quotes, controls, non-ASCII, \\ before u, with
// random lengths of source and destination.
func TestDecodeRunMatchesGo(t *testing.T) {
	if !haveDecodeRun {
		t.Skip("no vector kernel here: decodeRun is decodeRunGo")
	}
	pieces := []string{"a", "plain text ", `\"`, `\\`, `\n`, `\r`, `\t`, `\/`, `\b`, `\u0041`, `\\u`, `"`, "\x01", "\x1f", "\x7f", "é", "\xff", " ", "~", "\\", "0123456789abcdef0123456789abcdef"}
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 20000; iter++ {
		var b bytes.Buffer
		for b.Len() < rng.IntN(300) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		src := b.Bytes()
		room := rng.IntN(400)
		d1 := make([]byte, room+1)
		d2 := make([]byte, room+1)
		var c1, w1, c2, w2 int
		if len(src) > 0 && room > 0 {
			c1, w1 = decodeRun(&src[0], len(src), &d1[0], room, &runEscape)
			c2, w2 = decodeRunGo(&src[0], len(src), &d2[0], room, &runEscape)
		}
		if c1 != c2 || w1 != w2 || !bytes.Equal(d1, d2) {
			t.Fatalf("src %q room %d: kernel (%d, %d) %q, Go (%d, %d) %q", src, room, c1, w1, d1[:w1], c2, w2, d2[:w2])
		}
	}
}

// TestDecodeRunEveryByte puts each byte value at each place of a block.
func TestDecodeRunEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 64; pos++ {
			for _, next := range []byte{'n', 'u', '"', '/', 'x'} {
				src := bytes.Repeat([]byte{'a'}, 96)
				src[pos] = byte(c)
				src[pos+1] = next
				d1, d2 := make([]byte, 128), make([]byte, 128)
				c1, w1 := decodeRun(&src[0], len(src), &d1[0], len(d1), &runEscape)
				c2, w2 := decodeRunGo(&src[0], len(src), &d2[0], len(d2), &runEscape)
				if c1 != c2 || w1 != w2 || !bytes.Equal(d1, d2) {
					t.Fatalf("byte %#x then %q at %d: kernel (%d, %d), Go (%d, %d)", c, next, pos, c1, w1, c2, w2)
				}
			}
		}
	}
}

// TestScanKernels compares countRunes and escapedLenFast (the vector
// kernels where there are some, from 64 bytes) with the byte-at-a-time
// definitions, on random text of every byte value and on each byte value at
// each place of a block.
func TestScanKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	check := func(s []byte) {
		t.Helper()
		var runes int64
		for _, c := range s {
			if c&0xC0 != 0x80 {
				runes++
			}
		}
		if got := countRunes(s); got != runes {
			t.Fatalf("countRunes(%q) = %d, want %d", s, got, runes)
		}
		if got, want := escapedLenFast(s), escapedLen(s); got != want {
			t.Fatalf("escapedLenFast(%q) = %d, escapedLen %d", s, got, want)
		}
	}
	for iter := 0; iter < 5000; iter++ {
		s := make([]byte, rng.IntN(400))
		for i := range s {
			switch rng.IntN(4) {
			case 0:
				s[i] = byte(rng.IntN(256))
			case 1:
				s[i] = "\"\\\n\r\t\x00\x1f\x20\x7f\x80\xbf\xc0\xff"[rng.IntN(13)]
			default:
				s[i] = byte('a' + rng.IntN(26))
			}
		}
		check(s)
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 70; pos++ {
			s := bytes.Repeat([]byte{'x'}, 70)
			s[pos] = byte(c)
			check(s)
		}
	}
}
