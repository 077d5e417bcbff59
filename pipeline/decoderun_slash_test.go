package pipeline

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// slashPieces spell a decoded backslash followed by a decoded '/' every
// way the fast path takes escapes: "\\/" of text that is JSON, "\\\/",
// "\\\u002f", then the same with the backslash and the '/' in separate
// pieces, so that runs and blocks may end between them.
var slashPieces = []string{`\\/`, `\\\/`, `\\\u002f`, `\\\u002F`, `\\`, `\/`, `/`, `\u002f`, `\\\\`, `\n`, `\"`, "ab", "0123456789abcdef0123456789abcdef"}

// TestDecodeRunShMarksEscapedSlash checks what the lexer's fast path
// relies on (decode.go): a kernel run whose decoded text holds a backslash
// then '/' reports dirty, so no run needs a search of its output. Each
// vector kernel is also compared with its specification on these inputs,
// at every place of a block.
func TestDecodeRunShMarksEscapedSlash(t *testing.T) {
	fns := append([]decodeKernel{{"Go", decodeRunShGo, decodeRunShGo}, {"CGo", decodeRunShCGo, decodeRunShCGo}}, decodeKernels...)
	check := func(dk decodeKernel, src []byte) {
		t.Helper()
		d1, d2 := make([]byte, 512), make([]byte, 512)
		h1, h2 := make([]byte, 1024), make([]byte, 1024)
		c1, w1, s1, x1 := dk.kernel(&src[0], len(src), &d1[0], len(d1), &h1[0], len(h1), &runTabs)
		if bytes.Contains(d1[:w1], []byte(`\/`)) && !x1 {
			t.Fatalf("%s: src %q: decoded %q holds \\/ but is not dirty", dk.name, src, d1[:w1])
		}
		c2, w2, s2, x2 := dk.spec(&src[0], len(src), &d2[0], len(d2), &h2[0], len(h2), &runTabs)
		if c1 != c2 || w1 != w2 || s1 != s2 || x1 != x2 || !bytes.Equal(d1, d2) || !bytes.Equal(h1, h2) {
			t.Fatalf("%s: src %q: kernel (%d, %d, %d, %v), spec (%d, %d, %d, %v)", dk.name, src, c1, w1, s1, x1, c2, w2, s2, x2)
		}
	}
	for _, dk := range fns {
		for _, p := range []string{`\\/`, `\\\/`, `\\\u002f`, `\\\u002F`, `\\\\\/`, `\\\\\\/`, `\"\\\/`, `\n\\\/\n`} {
			for pos := 0; pos < 70; pos++ {
				src := bytes.Repeat([]byte{'a'}, 160)
				copy(src[pos:], p)
				check(dk, src)
				// Dense with other escapes, so the compressing kernel
				// takes the block in one step.
				for i := 0; i+2 <= pos; i += 2 {
					src[i], src[i+1] = '\\', 'n'
				}
				check(dk, src)
			}
		}
		rng := rand.New(rand.NewPCG(21, 22))
		for range 20000 {
			var b bytes.Buffer
			for b.Len() < 64+rng.IntN(200) {
				b.WriteString(slashPieces[rng.IntN(len(slashPieces))])
			}
			check(dk, b.Bytes())
		}
	}
}
