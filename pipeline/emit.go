package pipeline

import (
	"encoding/binary"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"math/bits"
	"unicode/utf8"
)

// emitter buffers sanitized output and flushes it to the Output. While a
// tool's _meta object is held for merging, writes go to a side buffer
// instead (see pass.redirect).
type emitter struct {
	out  Output
	alg  string // evidence digest algorithm (Policy.Digest)
	buf  []byte // where writes go: own, or room an AppendOutput gave
	own  []byte
	app  AppendOutput // out, when it is one
	lent bool         // buf is the AppendOutput's room
	side *[]byte      // non-nil while redirected
	// sideLimit bounds the side buffer; sideOver records that a write went
	// past it (the pass then fails with meta-bytes).
	sideLimit int
	sideOver  bool
	// outer holds the redirects pushSide replaced, innermost last: a
	// block's _meta is held inside a held content member, and a replaced
	// binary block discards its output (binary.go).
	outer []sideState
	// pin, while not nil, is the buffer a content block's output is held
	// in until the block is known to be kept (binary.go): the emitter does
	// not flush it.
	pin *[]byte
	// jpin, while not nil, is the buffer that holds a text block whose
	// last characters are still to come (blockjoin.go): it is not flushed.
	jpin    *[]byte
	written int64 // bytes flushed to out
	counted int64 // bytes written anywhere (budget accounting)
	h       *digester
	err     error
}

const emitFlushAt = 32 << 10

type sideState struct {
	buf   *[]byte
	limit int
	over  bool
}

// pushSide redirects writes to buf (bounded by limit) until popSide.
func (e *emitter) pushSide(buf *[]byte, limit int) {
	e.outer = append(e.outer, sideState{e.side, e.sideLimit, e.sideOver})
	e.side, e.sideLimit, e.sideOver = buf, limit, false
}

// popSide restores the redirect pushSide replaced and reports whether the
// side buffer went past its limit.
func (e *emitter) popSide() bool {
	over := e.sideOver
	o := e.outer[len(e.outer)-1]
	e.side, e.sideLimit, e.sideOver = o.buf, o.limit, o.over
	e.outer = e.outer[:len(e.outer)-1]
	return over
}

func (e *emitter) reset(out Output) {
	e.out = out
	e.app, _ = out.(AppendOutput)
	e.takeBuffer()
	e.side = nil
	e.sideOver = false
	e.outer = e.outer[:0]
	e.pin = nil
	e.jpin = nil
	e.written = 0
	e.counted = 0
	if e.h == nil {
		e.h = newDigester(e.alg)
	}
	e.h.Reset()
	e.err = nil
}

// appendRoom is the room asked of an AppendOutput: a flush happens at
// emitFlushAt, and one write may add a batch of text escaped (twice its
// size at most) on top. Outgrowing it is correct, only slower: the Write
// then copies.
const appendRoom = 4 * emitFlushAt

// takeBuffer points buf at the output's free room when it gives some, else
// at the emitter's own buffer.
func (e *emitter) takeBuffer() {
	if e.app != nil {
		if b := e.app.AppendBuffer(appendRoom); b != nil {
			e.buf, e.lent = b, true
			return
		}
	}
	e.buf, e.lent = e.own[:0], false
}

func (e *emitter) target() *[]byte {
	if e.side != nil {
		return e.side
	}
	return &e.buf
}

// byte1 and raw first take the common case, where maybeFlush has nothing
// to do: no side buffer, and the buffer stays below emitFlushAt. They run
// for every member name and short value (a structured result's many
// writes of a few bytes each).
func (e *emitter) byte1(c byte) {
	if e.side == nil && len(e.buf)+1 < emitFlushAt {
		e.buf = append(e.buf, c)
		e.counted++
		return
	}
	t := e.target()
	*t = append(*t, c)
	e.counted++
	e.maybeFlush()
}

func (e *emitter) raw(b []byte) {
	if e.side == nil && len(e.buf)+len(b) < emitFlushAt {
		e.buf = append(e.buf, b...)
		e.counted += int64(len(b))
		return
	}
	t := e.target()
	*t = append(*t, b...)
	e.counted += int64(len(b))
	e.maybeFlush()
}

func (e *emitter) rawString(s string) {
	t := e.target()
	*t = append(*t, s...)
	e.counted += int64(len(s))
	e.maybeFlush()
}

// member writes the start of an object member: a comma when it is not the
// first, then the key as a JSON string and the colon, in one call (keys
// are short and many: the per-call work of four writes was most of it).
// plain says that key holds no byte to escape (it is copied).
func (e *emitter) member(comma bool, key []byte, plain bool) {
	t := e.target()
	before := len(*t)
	if comma {
		*t = append(*t, ',')
	}
	*t = append(*t, '"')
	if plain {
		*t = append(*t, key...)
	} else {
		*t = appendEscaped(*t, key)
	}
	*t = append(*t, '"', ':')
	e.counted += int64(len(*t) - before)
	e.maybeFlush()
}

// escaped writes s as the inside of a JSON string.
func (e *emitter) escaped(s []byte) {
	t := e.target()
	before := len(*t)
	*t = appendEscaped(*t, s)
	e.counted += int64(len(*t) - before)
	e.maybeFlush()
}

func (e *emitter) escapedString(s string) {
	t := e.target()
	before := len(*t)
	*t = appendEscapedString(*t, s)
	e.counted += int64(len(*t) - before)
	e.maybeFlush()
}

func (e *emitter) maybeFlush() {
	if e.side != nil {
		if len(*e.side) > e.sideLimit {
			e.sideOver = true
			*e.side = (*e.side)[:0]
		}
		return
	}
	if len(e.buf) >= emitFlushAt {
		if e.pin == &e.buf || e.jpin == &e.buf {
			return
		}
		e.flush()
	}
}

func (e *emitter) flush() {
	if len(e.buf) == 0 || e.err != nil {
		e.buf = e.buf[:0]
		return
	}
	e.h.Write(e.buf)
	n, err := e.out.Write(e.buf)
	e.written += int64(n)
	if err == nil && n != len(e.buf) {
		err = errShortWrite
	}
	if err != nil {
		e.err = err
	}
	if !e.lent {
		e.own = e.buf[:0] // it may have grown
	}
	e.takeBuffer()
}

var errShortWrite = &Error{Code: CodeInternal, Reason: string(wire.ReasonShortWrite)}

// escTable marks bytes that need escaping inside a JSON string.
var escTable = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

const hexDigits = "0123456789abcdef"

// appendEscaped appends s escaped as the inside of a JSON string. Plain
// words of eight bytes are copied whole; at a word with a byte to escape it
// copies up to that byte (escLanes is exact for the first flagged lane).
func appendEscaped(dst, s []byte) []byte {
	n := len(dst)
	if need := n + 2*len(s) + 64; cap(dst) < need {
		dst = append(dst[:cap(dst)], make([]byte, need-cap(dst))...)
	}
	d := dst[:cap(dst)]
	i := 0
	if haveDecodeRun && len(s) >= 64 {
		// The vector kernel does the bulk (decoderun.go); the loop below
		// the rest, and the controls it leaves.
		c, w := escapeRun(&s[0], len(s), &d[n], len(d)-n)
		i, n = c, n+w
	}
	for i < len(s) {
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[i:])
			m := escLanes(x)
			binary.LittleEndian.PutUint64(d[n:], x)
			if m == 0 {
				n += 8
				i += 8
				continue
			}
			z := bits.TrailingZeros64(m) >> 3
			n += z
			i += z
			break
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		if !escTable[c] {
			d[n] = c
			n++
			continue
		}
		switch c {
		case '"', '\\':
			d[n], d[n+1] = '\\', c
		case '\n':
			d[n], d[n+1] = '\\', 'n'
		case '\r':
			d[n], d[n+1] = '\\', 'r'
		case '\t':
			d[n], d[n+1] = '\\', 't'
		default:
			// A control character the normalizer would have removed: the
			// general path, which may take six bytes.
			return appendEscapedString(d[:n], string(s[i-1:]))
		}
		n += 2
	}
	return d[:n]
}

func appendEscapedString(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !escTable[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscByte(dst, c)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

func appendEscByte(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
}

// escapedLen is the length of s once escaped.
func escapedLen(s []byte) int {
	n := len(s)
	for _, c := range s {
		if escTable[c] {
			switch c {
			case '"', '\\', '\n', '\r', '\t':
				n++
			default:
				n += 5
			}
		}
	}
	return n
}

// cutRunes returns the byte length of the first n runes of s (all of s when
// it has fewer), and how many runes that is, counted as countRunes counts
// them: a rune is its lead byte. s is a piece of the redactor's output,
// which may begin or end inside a rune (the redactor holds back what a
// match could still cover, in bytes: its rules' look-back, whatever the
// runes there). Continuation bytes at its start finish a rune counted in
// the piece before and are always kept; a rune whose last bytes are not in
// s is not taken, since the rest of the string is dropped after a cut. So
// the cut never splits a UTF-8 sequence, whatever the piece boundaries.
func cutRunes(s []byte, n int64) (int, int64) {
	var count int64
	i := 0
	for i < len(s) {
		c := s[i]
		if c&0xC0 == 0x80 {
			i++ // the rest of a rune begun in an earlier piece
			continue
		}
		if count >= n {
			break
		}
		size := 1
		if c >= utf8.RuneSelf {
			size = runeLen(c)
		}
		if i+size > len(s) {
			break // its rest is in the next piece, which is dropped
		}
		i += size
		count++
	}
	return i, count
}
