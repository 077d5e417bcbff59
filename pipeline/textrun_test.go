package pipeline

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUtf8SeqLen: utf8SeqLen says what utf8.DecodeRune says of every lead
// byte from 0x80 up with every second and third byte, and of four-byte
// sequences over the whole range of the second byte, whole and cut short.
func TestUtf8SeqLen(t *testing.T) {
	want := func(b []byte) int {
		if r, size := utf8.DecodeRune(b); r >= utf8.RuneSelf && size > 1 {
			return size
		}
		return 0
	}
	check := func(b []byte) {
		t.Helper()
		if got, w := utf8SeqLen(b, 0), want(b); got != w {
			t.Fatalf("% x: %d, utf8.DecodeRune %d", b, got, w)
		}
	}
	for c0 := 0; c0 < 256; c0++ {
		check([]byte{byte(c0)})
		for c1 := 0; c1 < 256; c1++ {
			check([]byte{byte(c0), byte(c1)})
			for _, c2 := range []byte{0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xFF} {
				check([]byte{byte(c0), byte(c1), c2})
				for _, c3 := range []byte{0x41, 0x80, 0xBF, 0xC0} {
					check([]byte{byte(c0), byte(c1), c2, c3})
				}
			}
		}
	}
}

// textPieces are what the random strings of the textRun tests are made of:
// plain ASCII, the bytes that end a run (quote, backslash, a control, DEL),
// valid characters of two, three and four bytes (one that textRun reads
// inline and ones that take utf8SeqLen: U+0800-U+0FFF after E0, U+D000-U+D7FF
// after ED), and invalid bytes: a lone continuation, an overlong form, a
// surrogate, a cut sequence.
var textPieces = []string{
	"a", "word ", "0123456789abcdef", strings.Repeat("x", 40), `"`, `\`, "\n", "\x7f",
	"é", "Ж", "—", "“", "中", "\u0800", "\ud7ff", "\U0001F527", "\U0010FFFF",
	"\x80", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x80", "\xf0\x9f", "\xf4\x90\x80\x80", "\xff",
}

func randomText(r *rand.Rand, n int) []byte {
	var b []byte
	for range n {
		b = append(b, textPieces[r.IntN(len(textPieces))]...)
	}
	return b
}

// checkTextRun checks textRun(b, i) against what it promises: b[i:j] is
// plain ASCII and whole, valid UTF-8 sequences only; from a byte outside
// ASCII it is empty exactly when b[i] starts no valid sequence; and it ends at the end
// of b, at a byte that neither stands for itself nor starts a valid
// sequence, or before textRunASCII plain bytes.
func checkTextRun(t *testing.T, b []byte, i int) {
	t.Helper()
	j := textRun(b, i)
	if j < i || j > len(b) {
		t.Fatalf("%q from %d: end %d", b, i, j)
	}
	if b[i] >= utf8.RuneSelf && (j > i) != (utf8SeqLen(b, i) > 0) {
		t.Fatalf("%q from %d: end %d, though utf8SeqLen is %d", b, i, j, utf8SeqLen(b, i))
	}
	for k := i; k < j; {
		if strSafe[b[k]] {
			k++
			continue
		}
		size := utf8SeqLen(b, k)
		if size == 0 || k+size > j {
			t.Fatalf("%q from %d: end %d takes %q at %d", b, i, j, b[k:min(k+4, len(b))], k)
		}
		k += size
	}
	switch {
	case j == len(b), j == i:
	case !strSafe[b[j]]:
		if utf8SeqLen(b, j) != 0 {
			t.Fatalf("%q from %d: end %d before a valid sequence", b, i, j)
		}
	default:
		k := j
		for k < len(b) && k-j < textRunASCII && strSafe[b[k]] {
			k++
		}
		if k-j < textRunASCII {
			t.Fatalf("%q from %d: end %d before %d plain bytes only", b, i, j, k-j)
		}
	}
}

func TestTextRun(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 4))
	for range 20000 {
		b := randomText(r, 1+r.IntN(24))
		for i := range b {
			checkTextRun(t, b, i)
		}
	}
}

func FuzzTextRun(f *testing.F) {
	r := rand.New(rand.NewPCG(35, 5))
	for range 16 {
		f.Add(randomText(r, 12))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			checkTextRun(t, b, i)
		}
	})
}

// TestChainTextRuns: strings of text outside ASCII (runs the fast path
// takes with textRun) mixed with escapes and long plain runs, one batch
// long and more, with a character of two, three or four bytes across the
// batch boundary: the same bytes and evidence whole, cut at every read
// size around the boundary and read byte by byte near it, with and
// without the escaped shadow.
func TestChainTextRuns(t *testing.T) {
	e, err := NewEngine(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	tok := fakeGitHubToken(7)
	r := rand.New(rand.NewPCG(35, 6))
	var bodies [][]byte
	for _, ch := range []string{"é", "—", "\U0001F527"} {
		for _, lead := range []int{decodeFlushAt - 3, decodeFlushAt - 2, decodeFlushAt - 1, decodeFlushAt} {
			// The lead is text outside ASCII to the byte: a run from the
			// string's first character, then ch across the boundary.
			head := []byte("Ж")
			for len(head) < lead-40 {
				head = append(head, textPieces[8+r.IntN(9)]...)
				head = append(head, " plain words "...)
			}
			for len(head) < lead {
				head = append(head, 'a')
			}
			body := append(head, ch...)
			body = append(body, " über "+tok+` \n\"Ω\" `+strings.Repeat("b", 100)+`"`...)
			bodies = append(bodies, body)
		}
	}
	for _, body := range bodies {
		lead := bytes.LastIndexByte(body[:decodeFlushAt+4], 'a') + 1
		want := runChain(t, e, next{role: roleStructured, region: regionStructured}, body, nil, false)
		if want.fail != nil || len(want.ev.Findings) != 1 || bytes.Contains(want.out, []byte(tok)) {
			t.Fatalf("lead %d: failure %v, findings %v", lead, want.fail, want.ev.Findings)
		}
		for _, k := range []int{1, 7, lead - 1, lead, lead + 1, lead + 2, lead + 3, lead + 30, len(body) - 1} {
			for _, noShadow := range []bool{false, true} {
				got := runChain(t, e, next{role: roleStructured, region: regionStructured}, body, []int{k}, noShadow)
				if !bytes.Equal(got.out, want.out) || !reflect.DeepEqual(got.ev, want.ev) {
					t.Fatalf("lead %d, cut at %d, no shadow %v: output or evidence differs", lead, k, noShadow)
				}
			}
		}
	}
}
