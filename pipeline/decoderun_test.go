package pipeline

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestDecodeRunShEveryByte puts each byte value at each place of a block,
// before each kind of byte that may follow a backslash.
func TestDecodeRunShEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 64; pos++ {
			for _, next := range []string{"n", "u0041", "u00e9", "u0075", "\\u", "\"", "/", "x"} {
				src := bytes.Repeat([]byte{'a'}, 100)
				src[pos] = byte(c)
				copy(src[pos+1:], next)
				d1, d2 := make([]byte, 128), make([]byte, 128)
				h1, h2 := make([]byte, 128), make([]byte, 128)
				c1, w1, s1, x1 := decodeRunSh(&src[0], len(src), &d1[0], len(d1), &h1[0], len(h1), &runTabs)
				c2, w2, s2, x2 := decodeRunShGo(&src[0], len(src), &d2[0], len(d2), &h2[0], len(h2), &runTabs)
				if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
					t.Fatalf("byte %#x then %q at %d: kernel (%d, %d, %d, %v), Go (%d, %d, %d, %v)", c, next, pos, c1, w1, s1, x1, c2, w2, s2, x2)
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

// TestDecodeRunShMatchesGo compares decodeRunSh (the vector kernel where
// there is one) with decodeRunShGo on random text with every escape the
// lexer's fast path decodes and every one it does not, with random room
// in src, dst and sh.
func TestDecodeRunShMatchesGo(t *testing.T) {
	if !haveDecodeRun {
		t.Skip("no vector kernel here: decodeRunSh is decodeRunShGo")
	}
	pieces := []string{"a", "plain text ", `\"`, `\\`, `\n`, `\r`, `\t`, `\/`, `\b`, `\f`, `\u0041`, `\u003c`, `\u0022`, `\u005c`, `\u0075`,
		`\u007f`, `\u0080`, `\u00e9`, `\u07ff`, `\u0800`, `\u20ac`, `\ud83d`, `\ude00`, `\uffff`, `\u00E9`, `\u00g9`, `\u001f`, `\\u`, `\u`,
		`"`, "\x01", "\x7f", "é", "\xff", "\\", "0123456789abcdef0123456789abcdef"}
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 30000; iter++ {
		var b bytes.Buffer
		for b.Len() < rng.IntN(300) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		src := b.Bytes()
		room, shRoom := rng.IntN(400), rng.IntN(400)
		d1, d2 := make([]byte, room+1), make([]byte, room+1)
		h1, h2 := make([]byte, shRoom+1), make([]byte, shRoom+1)
		var c1, w1, s1, c2, w2, s2 int
		var x1, x2 bool
		if len(src) > 0 && room > 0 && shRoom > 0 {
			c1, w1, s1, x1 = decodeRunSh(&src[0], len(src), &d1[0], room, &h1[0], shRoom, &runTabs)
			c2, w2, s2, x2 = decodeRunShGo(&src[0], len(src), &d2[0], room, &h2[0], shRoom, &runTabs)
		}
		if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
			t.Fatalf("src %q room %d/%d: kernel (%d, %d, %d, %v) %q %q, Go (%d, %d, %d, %v) %q %q", src, room, shRoom,
				c1, w1, s1, x1, d1[:w1], h1[:s1], c2, w2, s2, x2, d2[:w2], h2[:s2])
		}
	}
}

// TestEscapeRunMatchesGo compares escapeRun (the vector kernel where there
// is one) with escapeRunGo, and appendEscaped with the byte-at-a-time
// appendEscapedString, on random text of every kind and each byte value at
// each place of a block.
func TestEscapeRunMatchesGo(t *testing.T) {
	check := func(src []byte, room int) {
		t.Helper()
		if len(src) > 0 && room > 0 {
			d1, d2 := make([]byte, room), make([]byte, room)
			c1, w1 := escapeRun(&src[0], len(src), &d1[0], room)
			c2, w2 := escapeRunGo(&src[0], len(src), &d2[0], room)
			if c1 != c2 || w1 != w2 || !bytes.Equal(d1, d2) {
				t.Fatalf("%q room %d: kernel (%d, %d), Go (%d, %d)", src, room, c1, w1, c2, w2)
			}
		}
		if got, want := appendEscaped([]byte("x"), src), appendEscapedString([]byte("x"), string(src)); !bytes.Equal(got, want) {
			t.Fatalf("appendEscaped(%q) = %q, want %q", src, got, want)
		}
	}
	pieces := []string{"a", "plain text ", `"`, `\`, "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f", "é", "\xff", "/", "<>&"}
	rng := rand.New(rand.NewPCG(15, 16))
	for iter := 0; iter < 20000; iter++ {
		var b bytes.Buffer
		for b.Len() < rng.IntN(300) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(b.Bytes(), rng.IntN(700))
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 70; pos++ {
			src := bytes.Repeat([]byte{'a'}, 100)
			src[pos] = byte(c)
			check(src, 300)
		}
	}
}
