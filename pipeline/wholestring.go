package pipeline

import (
	"encoding/binary"
	"math/bits"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The whole-string path.
//
// Structured results are made of many short strings: member names and
// values such as paths, ids and snippets, almost all printable ASCII
// without an escape. Through the general path each one is copied into the
// decode batch and the escaped shadow, planned by shadowSettle, bounded by
// sink and written from the shadow: bookkeeping that cost more than the
// redactor on such a string. When a string's opening quote was the last
// thing read and the rest of it, up to its closing quote, is in the chunk
// and is plain (printable ASCII, no quote or backslash before the closing
// one), its decoded text is its input bytes, the normalizer leaves it as
// it is (runBatch's clean case) and it is the string's one and final batch.
// wholeString gives it to the redactor in one Append, as runBatch would,
// and writes it as it was read when the redactor changed nothing and it
// fits its bounds; anything else (a finding, a bound crossed) goes through
// sink as flushChain would send it. Roles with work of their own in the
// chain (text blocks, mime types, ids, codes, binary data), a text held
// across blocks, a mirror-text tap, lossless normalization and schema
// base64 keep the general path. The engine's noShadow switch turns this
// path off too, so the differential tests compare it with the escaper.

// wholeMax is the longest string the whole-string path takes: below a
// decode batch (decodeFlushAt), so that the string is one batch either way.
const wholeMax = 4 << 10

// wholeRole lists the value roles the chain does nothing special for.
func wholeRole(r role) bool {
	return r == roleGeneric || r == roleStructured || r == roleMeta
}

// plainLen returns the length of the run of plain string bytes (strSafe:
// printable ASCII but the quote and the backslash) at b[i:], or a number
// above max when the run is longer than max.
func plainLen(b []byte, i, max int) int {
	j := i
	lim := min(len(b), i+max+1)
	for j+8 <= lim {
		if m := specialLanes(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			// The first flagged lane is exact.
			return j + bits.TrailingZeros64(m)>>3 - i
		}
		j += 8
	}
	for j < lim && strSafe[b[j]] {
		j++
	}
	return j - i
}

// wholeString takes the string that starts at b[i] (its opening quote just
// read) in one step when it can (see the top of this file), and returns
// the index after its closing quote; otherwise it does nothing and
// returns -1.
func (p *pass) wholeString(b []byte, i int) int {
	if p.noShadow || p.strCut || p.bj.red != nil || p.sch != nil && p.sch.tapOn {
		return -1
	}
	switch {
	case p.sm == smKey:
	case p.sm == smText && wholeRole(p.sRole) && !p.ls.on && !p.strSchemaB64:
	default:
		return -1
	}
	var hit *shapeEnt
	if p.sm == smKey {
		// Member names repeat: the object's shape memo holds the names
		// of the last object read at this depth (shapememo.go), the
		// redactor its answer for the names it saw last.
		hit = p.shapeAt(b, i)
	}
	var n int
	if hit != nil {
		n = len(hit.key)
	} else {
		n = plainLen(b, i, wholeMax)
	}
	j := i + n
	if n > wholeMax || j >= len(b) || b[j] != '"' || !p.lx.StringIdle() {
		return -1
	}
	src := b[i:j]
	// flushChain(true) and runBatch for a clean, final batch; a short one
	// the redactor would pass as it is skips its Append
	// (scanners.Redactor.ShortClean).
	p.batches++
	// same: the redactor wrote src as it is and found nothing.
	rb, fs, same := src, p.fs[:0], true
	var clean bool
	if p.sm == smKey {
		if hit != nil {
			clean = p.red.ShortCleanAs(n, true) // only names it passed are recorded
			p.shapeHit = hit
		} else {
			clean = p.red.ShortCleanName(src)
			p.shapeRec = clean
		}
	} else {
		clean = p.red.ShortClean(src)
	}
	if !clean {
		p.red.HintASCII()
		rb, fs = p.red.Append(p.rbuf[:0], src, true, p.fs[:0])
		p.rbuf, p.fs = rb, fs
		same = len(fs) == 0 && string(rb) == string(src)
	}
	p.redFed += int64(n)
	for k := range fs {
		p.recordFinding(&fs[k])
	}
	if p.fail == nil && n > 0 {
		if p.sm == smText && same &&
			int64(n) <= p.e.lim.Remaining(p.textBound(), 0) && p.em.counted+int64(n) <= p.outBudget {
			// What sink does with it: under both bounds, no base64 check
			// for the last text of a string under string-chars, and plain
			// text escaped is itself.
			p.em.raw(src)
			p.strChars += int64(n)
		} else if p.sm == smKey && same && !p.e.lim.Over(bounds.KeyChars, int64(len(p.keyBuf)+n)) {
			// What sink does with a key under its bound (plain text: its
			// runes are its bytes), and a key the redactor left as it was
			// is plain: keyDone writes it without the escaper. A name the
			// memo holds is read from there (keyMemo), not copied.
			if p.shapeHit != nil {
				p.keyMemo = true
			} else {
				p.keyBuf = append(p.keyBuf, src...)
			}
			p.keyPlain = true
		} else {
			if p.sch != nil && p.sch.hold == holdStructured && (!same || p.sm == smText) {
				// Written otherwise than read (structured_same.go); a key
				// always goes through sink, a text only when bounded.
				p.sch.scSame = false
			}
			p.shadowOff()
			p.sinkLast = true
			p.sink(rb)
			p.sinkLast = false
			// A key the redactor left as it was is plain: keyDone
			// writes it without the escaper.
			p.keyPlain = p.sm == smKey && same
		}
	}
	if p.fail != nil {
		return j
	}
	if !p.lx.CloseQuote(b, j) {
		// What cannot happen (the lexer is idle in the string and b[j] is
		// a quote): never go on from a state not understood.
		p.failf(CodeInternal, string(wire.ReasonInternalFault), p.lx.Off())
		return j
	}
	off := p.lx.Off()
	if p.isKey {
		p.keyDone(off)
		return j + 1
	}
	if p.textEnd(false) {
		p.valueDone()
	}
	return j + 1
}

// textBound is the character bound of the current string.
func (c *chain) textBound() bounds.Bound {
	if c.sRole == roleText || c.sRole == roleResText {
		return bounds.TextChars
	}
	return bounds.StringChars
}
