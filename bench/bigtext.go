package bench

import (
	"io"
	"math/rand/v2"
	"unicode/utf8"
)

// BigTextReader streams one CallToolResult whose only content block is a
// text of a given size, generated on the fly: it repeats a 64 KiB pattern of
// escaped JSON string content, so memory is constant whatever the size.
type BigTextReader struct {
	head, tail []byte
	pat        []byte
	last       []byte // the final, partial repetition of pat
	n, pos     int64  // body bytes, bytes of the whole document read
}

// BigText returns a reader of a CallToolResult whose text holds n bytes of
// JSON string body (exactly n on the wire between the quotes) drawn from the
// given shape's text (FileRead, LogTail, WebPage or APIResponse; other
// shapes give LogTail). Everything but the text is a few dozen bytes.
func BigText(n int64, shape Shape, seed uint64) *BigTextReader {
	g := &gen{rng: rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d)), esc: EscapeMinimal}
	const patBytes = 64 << 10
	switch shape {
	case FileRead:
		g.fileRead(patBytes)
	case WebPage:
		g.webPage(patBytes)
	case APIResponse:
		g.apiResponse(patBytes)
	default:
		g.logTail(patBytes)
	}
	var w writer
	w.str(g.plantable[0].s, EscapeMinimal)
	pat := w.b[1 : len(w.b)-1]
	r := &BigTextReader{
		head: []byte(`{"content":[{"type":"text","text":"`),
		tail: []byte(`"}],"isError":false}`),
		pat:  pat,
		n:    n,
	}
	// unit[k] is where the escape or rune covering pat[k-1] starts, so a
	// cut after k bytes that is not a boundary can be padded.
	unit := make([]int32, len(pat)+1)
	for i := 0; i < len(pat); {
		size := 1
		switch c := pat[i]; {
		case c == '\\' && pat[i+1] == 'u':
			size = 6
		case c == '\\':
			size = 2
		case c >= utf8.RuneSelf:
			_, size = utf8.DecodeRune(pat[i:])
		}
		for k := i + 1; k < i+size; k++ {
			unit[k] = int32(i)
		}
		unit[i+size] = int32(i + size)
		i += size
	}
	if m := int(n % int64(len(pat))); m > 0 {
		r.last = append([]byte(nil), pat[:m]...)
		for j := int(unit[m]); j < m; j++ {
			r.last[j] = 'x'
		}
	}
	return r
}

// Size returns the bytes of the whole document.
func (r *BigTextReader) Size() int64 { return int64(len(r.head)) + r.n + int64(len(r.tail)) }

// Read implements io.Reader.
func (r *BigTextReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		h, bodyEnd := int64(len(r.head)), int64(len(r.head))+r.n
		var k int
		switch {
		case r.pos < h:
			k = copy(p, r.head[r.pos:])
		case r.pos < bodyEnd:
			off := (r.pos - h) % int64(len(r.pat))
			src := r.pat[off:]
			if rem := bodyEnd - r.pos; int64(len(src)) > rem {
				src = src[:rem]
			}
			if r.pos-h >= r.n-int64(len(r.last)) {
				src = r.last[off:]
			}
			k = copy(p, src)
		case r.pos < r.Size():
			k = copy(p, r.tail[r.pos-bodyEnd:])
		default:
			if total == 0 {
				return 0, io.EOF
			}
			return total, nil
		}
		p = p[k:]
		total += k
		r.pos += int64(k)
	}
	return total, nil
}
