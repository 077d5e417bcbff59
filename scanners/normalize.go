package scanners

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormClass names a class of removed characters, for evidence counts.
type NormClass uint8

const (
	// NormZeroWidth is U+200B..U+200D, U+2060..U+2064 and U+FEFF.
	NormZeroWidth NormClass = iota
	// NormBidi is Bidi_Control: U+061C, U+200E, U+200F, U+202A..U+202E
	// and U+2066..U+2069.
	NormBidi
	// NormTagChar is the tag block U+E0000..U+E007F, used to smuggle
	// hidden text.
	NormTagChar
	// NormVariationSelector is U+FE00..U+FE0F and U+E0100..U+E01EF.
	NormVariationSelector
	// NormControl is the C0 controls other than \t \n \r, DEL U+007F and
	// the C1 controls U+0080..U+009F.
	NormControl
	// NormDefaultIgnorable is the rest of Default_Ignorable_Code_Point:
	// U+00AD soft hyphen, U+034F, U+115F, U+1160, U+17B4, U+17B5,
	// U+180B..U+180F, U+206A..U+206F, U+3164, U+FFA0, U+FFF0..U+FFF8,
	// U+1BCA0..U+1BCA3, U+1D173..U+1D17A, U+E0080..U+E00FF,
	// U+E01F0..U+E0FFF and the unassigned U+2065.
	NormDefaultIgnorable
	// NormEscapeSequence is the rest of a terminal escape sequence after
	// its ESC or C1 introducer (normalize_escape.go): CSI parameters,
	// control strings such as OSC window titles and hyperlinks.
	NormEscapeSequence
	// NumNormClasses is the number of classes.
	NumNormClasses
)

var normClassNames = [NumNormClasses]string{
	"zero-width", "bidi", "tag-char", "variation-selector", "control", "default-ignorable", "escape-sequence",
}

// String returns the stable lowercase id of c, used in evidence and metrics.
func (c NormClass) String() string {
	if c < NumNormClasses {
		return normClassNames[c]
	}
	return "unknown"
}

// NormStats is what a Normalizer did to the current string.
type NormStats struct {
	Removed     [NumNormClasses]int64 // runes removed, by class
	NFKCChanged bool                  // NFKC changed at least one rune of this string
	Folded      int64                 // confusable letters folded to Latin (normalize_confusable.go)
	Unescaped   int64                 // escapes of JSON in the text decoded (normalize_literal.go)
}

// MaxNormCarry bounds the bytes the NFKC stage of a Normalizer holds
// between calls to Append: one NFKC segment of a starter and at most 30
// non-starters, each of at most 4 bytes. Longer runs of non-starters are cut
// every 30 (see Normalizer). Besides, an undecided escape (at most litMaxHeld bytes,
// normalize_literal.go) and the look-alike letters of a word whose script is
// not known yet (at most foldMaxHeld, normalize_confusable.go) may be held,
// and a joiner whose next rune decides it (3 bytes, normalize_joiners.go).
const MaxNormCarry = (1 + normMaxNonStarters) * utf8.UTFMax

// Kinds of carried segment, by the work its flush needs.
const (
	carryVerbatim = iota // one rune that NFKC leaves unchanged
	carrySingle          // one starter that NFKC changes on its own
	carryGeneral         // anything else: NFKC decides
)

// Normalizer removes invisible and control characters from the text of one
// string value, then applies Unicode NFKC (golang.org/x/text/unicode/norm).
// The zero value is ready to use. A Normalizer is not safe for concurrent
// use.
//
// Removal comes first, so that a removed rune cannot hide a combining
// sequence: "e\u200B\u0301" becomes "é". The removed set is listed by the
// NormClass constants; \t \n \r and U+FFFD are kept, and so are ZWJ, ZWNJ
// and the emoji variation selectors where normalize_joiners.go says. NFKC never produces a
// removed rune from a kept one (a test checks every code point), so one
// removal pass suffices.
//
// Long runs of non-starters: like norm, the Normalizer applies the
// Stream-Safe Text Format and closes a segment after 30 non-starters (counted
// on the NFKD expansion, as norm counts them). norm marks such a cut by
// inserting U+034F COMBINING GRAPHEME JOINER; the Normalizer does not, since
// U+034F is default-ignorable and removed from the input. So the output is
// always norm.NFKC applied to the stripped text with the inserted U+034F
// taken out again, and at most MaxNormCarry bytes are held between calls.
//
// The input must be valid UTF-8 split between complete runes; an invalid
// byte, which the contract excludes, becomes U+FFFD.
//
// The first Append in the process builds the lookup tables (about 100 KiB,
// under 0.1 s); they are immutable and shared by all Normalizers.
type Normalizer struct {
	// DisableNFKC removes characters only; with it Append holds nothing
	// between calls but a joiner whose next rune decides it
	// (normalize_joiners.go). Set it before the first Append of a string.
	DisableNFKC bool
	// DisableConfusableFold keeps Cyrillic, Greek and Armenian look-alikes
	// of Latin letters inside mixed-script words (normalize_confusable.go).
	// Set it before the first Append of a string.
	DisableConfusableFold bool
	// RecordEdits keeps the Edits that say which output stands for which
	// input (normalize_edits.go), for a lossless writer. Set it before the
	// first Append of a string.
	RecordEdits bool

	stats  NormStats
	carry  [MaxNormCarry]byte // the open segment, already stripped
	ncarry uint8
	kind   uint8  // carryVerbatim, carrySingle or carryGeneral
	ss     uint8  // non-starters counted in the open segment
	esc    uint8  // escape-sequence state (normalize_escape.go)
	escN   uint16 // bytes or runes of the open escape sequence
	iter   norm.Iter
	fold   foldState
	lit    litState

	prev    rune    // the last input rune of the previous call (normalize_joiners.go)
	pend    [3]byte // a joiner held for its next rune
	npend   uint8
	pendBuf []byte
	ed      editState
}

// Reset starts a new string: it clears the stats and the carried tail.
func (n *Normalizer) Reset() {
	n.stats = NormStats{}
	n.ncarry, n.kind, n.ss = 0, 0, 0
	n.esc, n.escN = escNone, 0
	n.fold.reset()
	n.lit.reset()
	n.prev, n.npend = 0, 0
	n.ed.reset()
	n.fold.rec.folds = n.fold.rec.folds[:0]
}

// Stats returns what the Normalizer did since the last Reset.
func (n *Normalizer) Stats() NormStats { return n.stats }

// Changed reports whether the output since the last Reset differs from the
// input: a rune was removed, folded or changed by NFKC. While it is false,
// everything Append returned is the input as it was.
func (n *Normalizer) Changed() bool {
	if n.stats.NFKCChanged || n.stats.Folded != 0 || n.stats.Unescaped != 0 {
		return true
	}
	for _, c := range n.stats.Removed {
		if c != 0 {
			return true
		}
	}
	return false
}

// carryLen reports the bytes held between calls; for tests.
func (n *Normalizer) carryLen() int { return int(n.ncarry) }

// Append normalizes src and appends the result to dst. With final false it
// may keep a tail of at most MaxNormCarry bytes (a segment that following
// runes could still change) and, when a word may turn out mixed-script, at
// most foldMaxHeld bytes of confusables, for the next call; final true
// flushes everything. The concatenation of the outputs, and the Stats, are
// the same however a string is split into calls. Append does not allocate
// beyond growing dst and, for text with non-ASCII letters, a scratch buffer
// the Normalizer keeps.
func (n *Normalizer) Append(dst, src []byte, final bool) []byte {
	start := len(dst)
	src = n.lit.unescapeLiterals(src, final)
	n.stats.Unescaped += n.lit.dec
	n.lit.dec = 0
	src = n.withHeld(src)
	n.ed.dst0 = start
	if n.DisableNFKC {
		dst = n.appendStripOnly(dst, src, final)
	} else {
		dst = n.appendNFKC(dst, src, final)
	}
	nb := n.ed.nout
	n.ed.nout += int64(len(dst) - start)
	if !n.DisableConfusableFold {
		n.fold.rec.on, n.fold.rec.base = n.RecordEdits, nb
		dst = n.foldConfusables(dst, start, final)
	}
	if n.RecordEdits {
		n.settleEdits()
	}
	return dst
}

// appendNFKC is Append's removal and NFKC.
func (n *Normalizer) appendNFKC(dst, src []byte, final bool) []byte {
	// The table is built when the first rune outside ASCII needs it
	// (normTab): a process whose text is all ASCII never builds it, which
	// was 7 % of a `scan` of one small message. Before it is set, t is only
	// passed to flush, which fetches it itself for the one kind of
	// carried segment that needs it.
	var t *normTable
	// The text not yet written is, in order: n.carry (an open segment) or
	// src[lit:i] (complete verbatim segments, then an open segment made of
	// the one rune at src[open:i] when open >= 0). Never both: the carry is
	// flushed before src[lit:i] grows, and src[lit:i] moves into the carry
	// before the carry grows.
	i, lit, open := 0, 0, -1
	openTrail := uint8(0)
	for i < len(src) {
		if n.esc != escNone {
			if k := n.escStep(src, i); k > 0 {
				// Removed, as a control character is.
				if open >= 0 {
					dst = n.carryOpen(dst, src, lit, open, i, openTrail)
					open = -1
				}
				i += k
				lit = i
				continue
			}
		}
		c := src[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7F || c == '\t' || c == '\n' || c == '\r' {
				if n.ncarry > 0 {
					dst = n.flush(dst, t)
					lit = i
				}
				i = asciiSpan(src, i+1)
				open, openTrail = i-1, 0
				continue
			}
			n.stats.Removed[NormControl]++
			if c == 0x1B {
				n.esc = escStart
			}
			if open >= 0 {
				dst = n.carryOpen(dst, src, lit, open, i, openTrail)
				open = -1
			}
			i++
			lit = i
			continue
		}
		if t == nil {
			t = normTab()
		}
		r, size := decodeRune(src, i)
		e := t.lookup(r)
		if e&^entTrailMask == 0 && size > 1 {
			// A starter that NFKC leaves unchanged: a segment of its own
			// unless non-starters follow.
			if n.ncarry > 0 {
				dst = n.flush(dst, t)
				lit = i
			}
			open, openTrail = i, e>>entTrailShift
			i += size
			i, open, openTrail = t.simpleSpan(src, i, open, openTrail)
			continue
		}
		if e&entStrip != 0 {
			if isJoiner(r) {
				keep, hold := n.joinerAt(t, src, i, size, r, final)
				if hold {
					n.holdJoiner(src, i)
					src = src[:i]
					break
				}
				if keep {
					// Kept, it is a starter that NFKC leaves unchanged.
					if n.ncarry > 0 {
						dst = n.flush(dst, t)
						lit = i
					}
					open, openTrail = i, 0
					i += size
					continue
				}
			}
			n.stats.Removed[e&entClassMask]++
			if r <= 0x9F {
				n.escOpenC1(r)
			}
			if open >= 0 {
				dst = n.carryOpen(dst, src, lit, open, i, openTrail)
				open = -1
			}
			i += size
			lit = i
			continue
		}
		if size == 1 { // invalid UTF-8
			dst = n.closeOpen(dst, src, lit, open, i, t)
			open = -1
			n.ncarry = uint8(copy(n.carry[:], "\uFFFD"))
			n.kind, n.ss = carryVerbatim, 0
			i++
			lit = i
			continue
		}
		if lead := e & entLeadMask; lead == 0 {
			// A starter that NFKC changes: it opens a segment, which the
			// next rune closes at once if it is a kept starter.
			dst = n.closeOpen(dst, src, lit, open, i, t)
			open = -1
			if t.startsSegment(src, i+size) {
				n.stats.NFKCChanged = true
				from := len(dst)
				dst = append(dst, t.single(r)...)
				if n.RecordEdits {
					n.noteNFKC(dst, from, src[i:i+size])
				}
			} else {
				n.ncarry = uint8(copy(n.carry[:], src[i:i+size]))
				n.kind, n.ss = carrySingle, (e&entTrailMask)>>entTrailShift
			}
		} else {
			// A non-starter joins the open segment, unless that segment
			// is full.
			if open >= 0 {
				dst = n.carryOpen(dst, src, lit, open, i, openTrail)
				open = -1
			}
			if n.ss+lead > normMaxNonStarters {
				dst = n.flush(dst, t)
			}
			n.ncarry += uint8(copy(n.carry[n.ncarry:], src[i:i+size]))
			n.kind = carryGeneral
			n.ss += lead
		}
		i += size
		lit = i
	}
	if open >= 0 {
		if final {
			dst = append(dst, src[lit:]...)
		} else {
			dst = n.carryOpen(dst, src, lit, open, len(src), openTrail)
		}
	} else if final && n.ncarry > 0 {
		dst = n.flush(dst, t)
	}
	n.notePrev(src)
	return dst
}

// carryOpen writes src[lit:open] and moves the open rune src[open:end] into
// the empty carry.
func (n *Normalizer) carryOpen(dst, src []byte, lit, open, end int, trail uint8) []byte {
	dst = append(dst, src[lit:open]...)
	n.ncarry = uint8(copy(n.carry[:], src[open:end]))
	n.kind, n.ss = carryVerbatim, trail
	return dst
}

// closeOpen completes whichever segment is open before a new starter.
func (n *Normalizer) closeOpen(dst, src []byte, lit, open, i int, t *normTable) []byte {
	if open >= 0 {
		return append(dst, src[lit:i]...)
	}
	if n.ncarry > 0 {
		return n.flush(dst, t)
	}
	return dst
}

// flush writes the NFKC form of the carried segment and empties the carry.
func (n *Normalizer) flush(dst []byte, t *normTable) []byte {
	seg := n.carry[:n.ncarry]
	n.ncarry, n.ss = 0, 0
	switch n.kind {
	case carryVerbatim:
		return append(dst, seg...)
	case carrySingle:
		if t == nil {
			// Carried from an earlier chunk into one of ASCII only.
			t = normTab()
		}
		r, _ := utf8.DecodeRune(seg)
		n.stats.NFKCChanged = true
		from := len(dst)
		dst = append(dst, t.single(r)...)
		if n.RecordEdits {
			n.noteNFKC(dst, from, seg)
		}
		return dst
	}
	if norm.NFKC.QuickSpan(seg) == len(seg) {
		return append(dst, seg...)
	}
	start := len(dst)
	n.iter.Init(norm.NFKC, seg)
	for !n.iter.Done() {
		dst = append(dst, n.iter.Next()...)
	}
	if !bytes.Equal(dst[start:], seg) {
		n.stats.NFKCChanged = true
		if n.RecordEdits {
			n.noteNFKC(dst, start, seg)
		}
	}
	return dst
}

// appendStripOnly is Append with DisableNFKC: removal needs no carry.
func (n *Normalizer) appendStripOnly(dst, src []byte, final bool) []byte {
	var t *normTable // built at the first rune outside ASCII, as in appendNFKC
	i, lit := 0, 0
	for i < len(src) {
		if n.esc != escNone {
			if k := n.escStep(src, i); k > 0 {
				dst = append(dst, src[lit:i]...)
				i += k
				lit = i
				continue
			}
		}
		c := src[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7F || c == '\t' || c == '\n' || c == '\r' {
				i = asciiSpan(src, i+1)
				continue
			}
			n.stats.Removed[NormControl]++
			if c == 0x1B {
				n.esc = escStart
			}
			dst = append(dst, src[lit:i]...)
			i++
			lit = i
			continue
		}
		if t == nil {
			t = normTab()
		}
		if j := t.keepSpan(src, i); j > i {
			i = j
			continue
		}
		r, size := decodeRune(src, i)
		e := t.lookup(r)
		if e&entStrip != 0 && isJoiner(r) {
			keep, hold := n.joinerAt(t, src, i, size, r, final)
			if hold {
				n.holdJoiner(src, i)
				n.notePrev(src[:i])
				return append(dst, src[lit:i]...)
			}
			if keep {
				i += size
				continue
			}
		}
		if e&entStrip != 0 {
			n.stats.Removed[e&entClassMask]++
			if r <= 0x9F {
				n.escOpenC1(r)
			}
			dst = append(dst, src[lit:i]...)
			lit = i + size
		} else if size == 1 {
			dst = append(dst, src[lit:i]...)
			dst = append(dst, "\uFFFD"...)
			lit = i + size
		}
		i += size
	}
	n.notePrev(src)
	return append(dst, src[lit:]...)
}

// simpleSpan skips the run of 2- and 3-byte starters that NFKC leaves
// unchanged from src[i], the hot loop for most non-Latin scripts. It returns
// the end of the run and the last rune of the run as the open segment.
func (t *normTable) simpleSpan(src []byte, i, open int, trail uint8) (int, int, uint8) {
	for i+2 < len(src) {
		c, c1 := src[i], src[i+1]
		var r rune
		size := 2
		switch {
		case c&0xE0 == 0xC0 && c >= 0xC2:
			if c1&0xC0 != 0x80 {
				return i, open, trail
			}
			r = rune(c&0x1F)<<6 | rune(c1&0x3F)
		case c&0xF0 == 0xE0:
			c2 := src[i+2]
			r = rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
			if c1&0xC0 != 0x80 || c2&0xC0 != 0x80 || r < 0x800 || 0xD800 <= r && r <= 0xDFFF {
				return i, open, trail
			}
			size = 3
		default:
			return i, open, trail
		}
		e := t.lookup(r)
		if e&^entTrailMask != 0 {
			break
		}
		open, trail = i, e>>entTrailShift
		i += size
	}
	return i, open, trail
}

// startsSegment reports whether src[i:] starts with a kept starter: a rune
// that NFKC cannot join to what precedes it and that is not removed (a
// removed rune could be followed by a non-starter).
func (t *normTable) startsSegment(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	if c := src[i]; c < utf8.RuneSelf {
		return c >= 0x20 && c != 0x7F || c == '\t' || c == '\n' || c == '\r'
	}
	r, size := decodeRune(src, i)
	return size > 1 && t.lookup(r)&(entStrip|entLeadMask) == 0
}

// keepSpan skips the run of non-ASCII runes that are not removed from
// src[i], for Append with DisableNFKC.
func (t *normTable) keepSpan(src []byte, i int) int {
	for i < len(src) && src[i] >= utf8.RuneSelf {
		r, size := decodeRune(src, i)
		if size == 1 || t.lookup(r)&entStrip != 0 {
			break
		}
		i += size
	}
	return i
}

// decodeRune decodes the rune at s[i], which is not ASCII; it returns
// (utf8.RuneError, 1) for an invalid byte.
func decodeRune(s []byte, i int) (rune, int) {
	if c := s[i]; c&0xE0 == 0xC0 && c >= 0xC2 && i+1 < len(s) {
		if c1 := s[i+1]; c1&0xC0 == 0x80 {
			return rune(c&0x1F)<<6 | rune(c1&0x3F), 2
		}
	} else if c&0xF0 == 0xE0 && i+2 < len(s) {
		c1, c2 := s[i+1], s[i+2]
		r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
			return r, 3
		}
	}
	return utf8.DecodeRune(s[i:])
}

// SWAR constants: a byte repeated in every lane of a uint64.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// asciiFlags returns the high bit of each lane of x that holds a byte
// >= 0x80 (x), < 0x20 (x-0x20 borrows) or == 0x7F (y-1 borrows): \t \n \r
// among the bytes below 0x20. Borrows run only upwards, so the lowest
// flagged lane is a true one; lanes above it may not be.
func asciiFlags(x uint64) uint64 {
	y := x ^ 0x7F*swarLo
	return (x | (x-0x20*swarLo)&^x | (y-swarLo)&^y) & swarHi
}

// asciiSpanWords returns the end of the run of bytes 0x20..0x7E, \t, \n
// and \r that starts at s[i], eight bytes at a time. asciiSpan is it, with a
// vector kernel for long runs where there is one.
func asciiSpanWords(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		if asciiFlags(x) == 0 {
			continue
		}
		// Something to look at, maybe only \t \n \r: redo it exactly,
		// lane by lane, without borrows.
		m := x&swarHi | swarLess(x, 0x20)&^(swarEq(x, '\t')|swarEq(x, '\n')|swarEq(x, '\r')) | swarEq(x, 0x7F)
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7F) && c != '\n' && c != '\t' && c != '\r' {
			break
		}
	}
	return i
}

// swarEq sets the high bit of each lane of x equal to c, exactly.
func swarEq(x uint64, c byte) uint64 {
	v := x ^ uint64(c)*swarLo
	return ^((v&^swarHi + 0x7F*swarLo) | v | 0x7F*swarLo)
}

// swarLess sets the high bit of each lane of x below c (c <= 0x80) whose own
// high bit is clear, exactly.
func swarLess(x uint64, c byte) uint64 {
	return ^((x&^swarHi + uint64(0x80-c)*swarLo) | x) & swarHi
}
