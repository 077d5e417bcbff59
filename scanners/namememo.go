package scanners

import "encoding/binary"

// The member-name memo.
//
// A structured result repeats a handful of member names over and over (a
// listing of 500 objects has "path", "line", "score" 500 times each), and
// the pipeline asks two questions about each name: whether it is a short
// clean string (ShortClean, when the name is read as a key) and whether it
// is a member-name context (ResetWithContext, when its value starts). Both
// answers depend on the name's bytes and the catalog alone (ShortClean's
// right after a Reset: state 0, nothing held, no context), so a Redactor
// keeps them for the last names it saw, in a small direct-mapped table
// compared byte for byte: a repeated name costs a hash of its first word and
// one compare instead of two automaton walks. The table is bounded (memoSlots
// names of fewer than decodeMinRun bytes) and never changes an answer.

// memoSlots is the number of names the memo holds (a power of two).
const memoSlots = 1 << memoBits

const memoBits = 5

type nameMemo struct {
	n     [memoSlots]uint8  // the name's length + 1; 0: the slot is empty
	clean [memoSlots]bool   // shortClean of the name after a Reset
	ctx   [memoSlots]bool   // contextName of the name
	w     [memoSlots]uint64 // the name's first eight bytes (memoWord)
	rest  [memoSlots][decodeMinRun - 8]byte
}

// memoWord returns the first eight bytes of b (fewer, zero-padded, when b is
// shorter) as a little-endian word.
func memoWord(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	if cap(b) >= 8 {
		// Read into b's capacity (the caller's buffer goes on) and mask
		// the bytes past len(b).
		return binary.LittleEndian.Uint64(b[:8]) & (1<<(8*len(b)) - 1)
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// memoName returns the memo slot of name, filled in (both answers computed)
// when it did not hold name; -1 when name is not one the memo holds (empty,
// or decodeMinRun bytes or more). A slot holds name when its length and
// first word are name's and so are the bytes after the first eight.
func (r *Redactor) memoName(name []byte) int {
	n := len(name)
	if n == 0 || n >= decodeMinRun {
		return -1
	}
	w := memoWord(name)
	k := int((w ^ uint64(n)<<59) * 0x9e3779b97f4a7c15 >> (64 - memoBits))
	m := &r.memo
	if m.w[k] != w || int(m.n[k]) != n+1 || n > 8 && string(m.rest[k][:n-8]) != string(name[8:]) {
		m.n[k], m.w[k] = uint8(n+1), w
		if n > 8 {
			copy(m.rest[k][:], name[8:])
		}
		m.clean[k] = r.c.shortCleanText(name)
		m.ctx[k] = r.c.contextName(name)
	}
	return k
}

// shortCleanText is ShortClean's decision on src right after a Reset (no
// context, nothing held, automaton at its root), from src alone.
func (c *Catalog) shortCleanText(src []byte) bool {
	if len(src) >= decodeMinRun {
		return false
	}
	if !c.noView && hasAmp(src) {
		return false
	}
	s, n := c.ac.run(0, src)
	return n == len(src) && s < c.ac.matchMin || c.hitsRuledOut(s, src, n)
}

// ShortCleanName is ShortClean for a member name read right after Reset:
// the same answer and the same state left behind, remembered for the
// names seen last (see the top of this file).
func (r *Redactor) ShortCleanName(src []byte) bool {
	if r.off != 0 || r.ctxLo != 0 || r.state != 0 || len(src) == 0 || len(src) >= decodeMinRun {
		return r.ShortClean(src)
	}
	w := &r.vw
	if !r.c.noView && (w.nhold != 0 || w.mapped()) {
		return false
	}
	k := r.memoName(src)
	if !r.memo.clean[k] {
		return false
	}
	r.shortDone(len(src))
	return true
}

// ShortCleanAs is ShortCleanName for a name whose answer the caller kept
// from an earlier ShortCleanName on the same bytes right after a Reset
// (the pipeline's memo of repeated object shapes): called right after a
// Reset with that answer, it leaves the Redactor as ShortCleanName would
// and reports the same, without the lookup.
func (r *Redactor) ShortCleanAs(n int, clean bool) bool {
	if clean {
		r.shortDone(n)
	}
	return clean
}
