package pipeline

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
)

// decodeRunFn is the signature of decodeRunSh, its kernels and their
// specifications.
type decodeRunFn func(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (int, int, int, bool)

// decodeKernel is a vector kernel of decodeRunSh and its specification in
// Go; decodeKernels (per architecture) lists those this machine runs.
type decodeKernel struct {
	name         string
	kernel, spec decodeRunFn
}

// TestDecodeRunShEveryByte puts each byte value at each place of a block,
// before each kind of byte that may follow a backslash, and compares each
// kernel with its specification.
func TestDecodeRunShEveryByte(t *testing.T) {
	if len(decodeKernels) == 0 {
		t.Skip("no vector kernel here: decodeRunSh is decodeRunShGo")
	}
	for _, dk := range decodeKernels {
		for c := 0; c < 256; c++ {
			for pos := 0; pos < 64; pos++ {
				for _, next := range []string{"n", "u0041", "u00e9", "u0075", "\\u", "\\n", "\"", "/", "x", "t\\r"} {
					src := bytes.Repeat([]byte{'a'}, 100)
					src[pos] = byte(c)
					copy(src[pos+1:], next)
					d1, d2 := make([]byte, 128), make([]byte, 128)
					h1, h2 := make([]byte, 128), make([]byte, 128)
					c1, w1, s1, x1 := dk.kernel(&src[0], len(src), &d1[0], len(d1), &h1[0], len(h1), &runTabs)
					c2, w2, s2, x2 := dk.spec(&src[0], len(src), &d2[0], len(d2), &h2[0], len(h2), &runTabs)
					if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
						t.Fatalf("%s: byte %#x then %q at %d: kernel (%d, %d, %d, %v), Go (%d, %d, %d, %v)", dk.name, c, next, pos, c1, w1, s1, x1, c2, w2, s2, x2)
					}
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

// decodePieces are the pieces of random text for the decodeRunSh tests:
// every escape the lexer's fast path decodes and every one it does not,
// runs of backslashes, and the bytes that end a run.
var decodePieces = []string{"a", "plain text ", `\"`, `\\`, `\n`, `\r`, `\t`, `\/`, `\b`, `\f`, `\u0041`, `\u003c`, `\u0022`, `\u005c`, `\u0075`,
	`\u007f`, `\u0080`, `\u00e9`, `\u07ff`, `\u0800`, `\u20ac`, `\ud83d`, `\ude00`, `\uffff`, `\u00E9`, `\u00g9`, `\u001f`, `\\u`, `\u`,
	`"`, "\x01", "\x7f", "é", "\xff", "\\", "0123456789abcdef0123456789abcdef", `\\\\\\`, `\\\"`, `\"\"\"`, "n", "u", "/"}

// randomDecodeInput returns random text of decodePieces (most of it dense
// with escapes, some plain) and random room in dst and sh.
func randomDecodeInput(rng *rand.Rand) (src []byte, room, shRoom int) {
	var b bytes.Buffer
	plain := rng.IntN(4) == 0
	for b.Len() < rng.IntN(300) {
		if plain && rng.IntN(3) > 0 {
			b.WriteString("0123456789abcdef")
			continue
		}
		b.WriteString(decodePieces[rng.IntN(len(decodePieces))])
	}
	return b.Bytes(), rng.IntN(400), rng.IntN(400)
}

// TestDecodeRunShMatchesGo compares each vector kernel of decodeRunSh with
// its specification on random text with random room in src, dst and sh.
func TestDecodeRunShMatchesGo(t *testing.T) {
	if len(decodeKernels) == 0 {
		t.Skip("no vector kernel here: decodeRunSh is decodeRunShGo")
	}
	for _, dk := range decodeKernels {
		rng := rand.New(rand.NewPCG(11, 12))
		for iter := 0; iter < 30000; iter++ {
			src, room, shRoom := randomDecodeInput(rng)
			d1, d2 := make([]byte, room+1), make([]byte, room+1)
			h1, h2 := make([]byte, shRoom+1), make([]byte, shRoom+1)
			var c1, w1, s1, c2, w2, s2 int
			var x1, x2 bool
			if len(src) > 0 && room > 0 && shRoom > 0 {
				c1, w1, s1, x1 = dk.kernel(&src[0], len(src), &d1[0], room, &h1[0], shRoom, &runTabs)
				c2, w2, s2, x2 = dk.spec(&src[0], len(src), &d2[0], room, &h2[0], shRoom, &runTabs)
			}
			if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
				t.Fatalf("%s: src %q room %d/%d: kernel (%d, %d, %d, %v) %q %q, Go (%d, %d, %d, %v) %q %q", dk.name, src, room, shRoom,
					c1, w1, s1, x1, d1[:w1], h1[:s1], c2, w2, s2, x2, d2[:w2], h2[:s2])
			}
		}
	}
}

// TestDecodeRunShCDecodesAlike checks the specification of the
// compressing kernel against the one of the escape-at-a-time kernel: both
// decode from the start of the text, so on what both consumed they wrote
// the same bytes and the same shadow, and each consumed at least a block
// whenever the other did. This runs on every architecture.
func TestDecodeRunShCDecodesAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const room = 512
	for iter := 0; iter < 30000; iter++ {
		src, _, _ := randomDecodeInput(rng)
		if len(src) == 0 {
			continue
		}
		d1, d2 := make([]byte, room), make([]byte, room)
		h1, h2 := make([]byte, room), make([]byte, room)
		c1, w1, s1, x1 := decodeRunShGo(&src[0], len(src), &d1[0], room, &h1[0], room, &runTabs)
		c2, w2, s2, x2 := decodeRunShCGo(&src[0], len(src), &d2[0], room, &h2[0], room, &runTabs)
		// The one that consumed less decoded a prefix of what the other did.
		a, b := struct {
			c, w, s int
			d, h    []byte
		}{c1, w1, s1, d1, h1}, struct {
			c, w, s int
			d, h    []byte
		}{c2, w2, s2, d2, h2}
		if a.c > b.c {
			a, b = b, a
		}
		if a.w > b.w || a.s > b.s || !bytes.Equal(a.d[:a.w], b.d[:a.w]) || !bytes.Equal(a.h[:a.s], b.h[:a.s]) {
			t.Fatalf("src %q: Go (%d, %d, %d) %q %q, C (%d, %d, %d) %q %q", src, c1, w1, s1, d1[:w1], h1[:s1], c2, w2, s2, d2[:w2], h2[:s2])
		}
		if c1 == c2 && (w1 != w2 || s1 != s2 || x1 != x2) {
			t.Fatalf("src %q: same input consumed, Go (%d, %d, %v), C (%d, %d, %v)", src, w1, s1, x1, w2, s2, x2)
		}
		// Neither stops in a run of plain bytes the other takes.
		if len(src)-min(c1, c2) >= 64 && (c1 == 0) != (c2 == 0) {
			t.Fatalf("src %q: consumed %d and %d", src, c1, c2)
		}
	}
}

// TestEscapeMasks compares escapeMasks with a walk over the backslashes.
func TestEscapeMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for iter := 0; iter < 200000; iter++ {
		bs := rng.Uint32()
		switch iter % 3 {
		case 0:
			bs &= rng.Uint32() // sparser
		case 1:
			bs |= rng.Uint32() // denser
		}
		var letters, starters uint32
		for z := 0; z < 32; z++ {
			if bs>>z&1 == 0 {
				continue
			}
			starters |= 1 << z
			if z+1 < 32 {
				letters |= 1 << (z + 1)
			}
			z++ // the escaped byte, a backslash or not
		}
		if l, s := escapeMasks(bs); l != letters || s != starters {
			t.Fatalf("escapeMasks(%032b) = %032b, %032b; want %032b, %032b", bs, l, s, letters, starters)
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

// FuzzDecodeRunSh compares each vector kernel of decodeRunSh with its
// specification on the fuzzer's text and room.
func FuzzDecodeRunSh(f *testing.F) {
	for _, s := range []string{`a\"b\\c\/d\ne\rf\tg\u00e9h\u0041` + "0123456789abcdef0123456789abcdef", `\\\\\\\"\\u\u0075\\\/\/\/` + "0123456789abcdef0123456789abcdef"} {
		f.Add([]byte(s), uint16(100), uint16(100))
	}
	// Escapes a few to a block, as in code files: the AVX2 kernel takes
	// them in place from the block's mask where src, dst and sh have room.
	f.Add([]byte(strings.Repeat(`\n     5\tpub struct A {\n\t\"x\": 1,\r\n`, 6)), uint16(300), uint16(300))
	f.Fuzz(func(t *testing.T, src []byte, room, shRoom uint16) {
		if len(decodeKernels) == 0 || len(src) == 0 || room == 0 || shRoom == 0 {
			return
		}
		for _, dk := range decodeKernels {
			d1, d2 := make([]byte, room), make([]byte, room)
			h1, h2 := make([]byte, shRoom), make([]byte, shRoom)
			c1, w1, s1, x1 := dk.kernel(&src[0], len(src), &d1[0], len(d1), &h1[0], len(h1), &runTabs)
			c2, w2, s2, x2 := dk.spec(&src[0], len(src), &d2[0], len(d2), &h2[0], len(h2), &runTabs)
			if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
				t.Fatalf("%s: src %q room %d/%d: kernel (%d, %d, %d, %v), Go (%d, %d, %d, %v)", dk.name, src, room, shRoom, c1, w1, s1, x1, c2, w2, s2, x2)
			}
		}
	})
}

// BenchmarkDecodeRunSh runs each kernel of decodeRunSh over the documents
// of bench/natsbench's five shapes, as the lexer's fast path calls it: from
// each place it stops, the byte there is stepped over. It measures the
// kernel alone (docs/kernels.md).
func BenchmarkDecodeRunSh(b *testing.B) {
	shapes := []bench.Shape{bench.FileRead, bench.LogTail, bench.APIResponse, bench.CodeSearch, bench.WebPage}
	kernels := append([]decodeKernel{{"GoSpec", decodeRunShGo, decodeRunShGo}}, decodeKernels...)
	for si, shape := range shapes {
		var docs [][]byte
		total := 0
		for i := range 4 {
			d := bench.Generate(bench.Options{Seed: uint64(i*len(shapes) + si + 1), Shape: shape, Size: 64 << 10, Secrets: 1}).JSON
			docs = append(docs, d)
			total += len(d)
		}
		for _, dk := range kernels {
			b.Run(shape.String()+"/"+dk.name, func(b *testing.B) {
				dst := make([]byte, 64<<10)
				sh := make([]byte, 140<<10)
				b.SetBytes(int64(total))
				b.ReportAllocs()
				for b.Loop() {
					for _, d := range docs {
						for i := 0; i < len(d)-64; {
							c, _, _, _ := dk.kernel(&d[i], len(d)-i, &dst[0], len(dst), &sh[0], len(sh), &runTabs)
							i += c + 1
						}
					}
				}
			})
		}
	}
}
