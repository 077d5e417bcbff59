package scanners

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// Confusable folding. NFKC folds full-width and mathematical letters to
// ASCII but keeps Cyrillic and Greek letters, so "<ѕystem>" (Cyrillic ѕ,
// U+0455) or "pаssword=" (Cyrillic а) reads as a tag or a password
// assignment to a model and to no rule. After NFKC the Normalizer folds the
// Cyrillic and Greek letters that look the same as a Latin letter
// (confusables) to that letter, but only inside a mixed-script word: a word
// (a run of letters and combining marks) that also holds an ASCII letter.
// Russian or Greek text is left as it is, and so is a word that holds any
// other non-ASCII letter (café, naïve, a Cyrillic word with ж).
//
// Streaming, the decision for the confusables at the start of a word waits
// for the word's first ASCII letter: they are held (at most foldMaxHeld
// bytes, marks included) and written folded when an ASCII letter comes, as
// they are (unfolded) when anything else ends the wait; past foldMaxHeld
// the word is not folded at all. Once a word is known to be mixed, its
// confusables are folded as they come, until a non-ASCII letter that is not
// a confusable, which stops folding for the rest of the word. A confusable
// followed by a combining mark is never folded (the output stays NFKC: a
// Latin letter would compose with the mark); a confusable that ends a call
// waits for the next rune to know. The result depends only on the text, not
// on how it is split into calls.

// foldMaxHeld bounds the bytes of a word held while its script is unknown.
const foldMaxHeld = 64

// confusables maps each folded Cyrillic, Greek and Armenian letter to its
// Latin look-alike. Only letters that are drawn the same as the Latin letter
// in common fonts; Greek lower case is left out but for omicron (α, ι, κ, ν,
// ρ, τ, υ, χ are everyday symbols in formulas next to Latin letters).
var confusables = map[rune]byte{
	// Cyrillic lower case
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x',
	'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l',
	// Cyrillic upper case
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P',
	'С': 'C', 'Т': 'T', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ү': 'Y', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I',
	// Greek
	'ο': 'o', 'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K',
	'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Armenian
	'օ': 'o', 'ս': 'u',
}

// Classes of a rune for folding.
const (
	foldBoundary   = iota // ends a word
	foldASCII             // an ASCII letter
	foldConfusable        // a letter in confusables
	foldOther             // any other letter
	foldMark              // a combining mark: continues the word
)

func foldClass(r rune) (int, byte) {
	if r < foldTabLen {
		e := foldTab[r]
		return int(e.cls), e.to
	}
	return slowFoldClass(r)
}

func slowFoldClass(r rune) (int, byte) {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return foldASCII, 0
		}
		return foldBoundary, 0
	}
	if confusableLo <= r && r <= confusableHi {
		if b, ok := confusables[r]; ok {
			return foldConfusable, b
		}
	}
	switch {
	case unicode.IsLetter(r):
		return foldOther, 0
	case unicode.In(r, unicode.Mn, unicode.Me):
		return foldMark, 0
	}
	return foldBoundary, 0
}

// foldTab holds foldClass for every rune of one or two UTF-8 bytes (Latin,
// Greek, Cyrillic, Armenian, Hebrew, Arabic...): the per-rune cost of
// folding in such text is one load.
const foldTabLen = 0x800

var foldTab = buildFoldTab()

// buildFoldTab writes slowFoldClass of every rune below foldTabLen from
// the ranges of the Unicode tables rather than by looking each rune up in
// them (which cost 0.55 M instructions at every start): the classes in
// increasing precedence, each over the one before, as slowFoldClass tests
// them in decreasing precedence. TestFoldTabMatchesSlowFoldClass checks
// every entry.
func buildFoldTab() (t [foldTabLen]struct{ cls, to uint8 }) {
	set := func(tab *unicode.RangeTable, cls uint8) {
		for _, rg := range tab.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi) && r < foldTabLen; r += rune(rg.Stride) {
				t[r] = struct{ cls, to uint8 }{cls, 0}
			}
		}
		for _, rg := range tab.R32 {
			for r := rune(rg.Lo); r <= rune(rg.Hi) && r < foldTabLen; r += rune(rg.Stride) {
				t[r] = struct{ cls, to uint8 }{cls, 0}
			}
		}
	}
	// foldBoundary is the zero value.
	set(unicode.Mn, foldMark)
	set(unicode.Me, foldMark)
	set(unicode.Letter, foldOther)
	for r, b := range confusables {
		if r >= utf8.RuneSelf && r < foldTabLen && confusableLo <= r && r <= confusableHi {
			t[r] = struct{ cls, to uint8 }{foldConfusable, b}
		}
	}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = struct{ cls, to uint8 }{foldBoundary, 0}
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			t[r].cls = foldASCII
		}
	}
	return t
}

// isMarkAt reports whether the rune at b[i:] is a combining mark.
func isMarkAt(b []byte, i int) bool {
	if i >= len(b) || b[i] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRune(b[i:])
	return unicode.In(r, unicode.Mn, unicode.Me)
}

// foldState is the Normalizer's folding state between calls.
type foldState struct {
	latin   bool // the current word holds an ASCII letter
	blocked bool // the current word holds a non-ASCII letter that is not a confusable (or overflowed the hold)
	held    [foldMaxHeld]byte
	nheld   int
	scratch []byte
	rec     foldRecorder // where folds are, for Normalizer.Edits (normalize_edits.go)
}

func (f *foldState) reset() { f.latin, f.blocked, f.nheld = false, false, 0 }

// flushHeld writes the held bytes, folding their confusables that no mark
// follows if fold.
func (f *foldState) flushHeld(dst []byte, fold bool, folded *int64) []byte {
	if f.nheld == 0 {
		return dst
	}
	h := f.held[:f.nheld]
	f.nheld = 0
	if !fold {
		return append(dst, h...)
	}
	for i := 0; i < len(h); {
		r, size := utf8.DecodeRune(h[i:])
		if b, ok := confusables[r]; ok && !isMarkAt(h, i+size) {
			if f.rec.on {
				f.rec.note(f.rec.held+int64(i), h[i:i+size])
			}
			dst = append(dst, b)
			*folded++
		} else {
			dst = append(dst, h[i:i+size]...)
		}
		i += size
	}
	return dst
}

// foldConfusables folds the confusables of dst[start:], the text the
// Normalizer just wrote, and returns dst. With final, nothing stays held.
func (n *Normalizer) foldConfusables(dst []byte, start int, final bool) []byte {
	f := &n.fold
	seg := dst[start:]
	if f.nheld == 0 && !maybeConfusable(seg) {
		// Nothing to fold: only the word state moves on.
		f.advance(seg)
		return dst
	}
	f.scratch = append(f.scratch[:0], seg...)
	src := f.scratch
	dst = dst[:start]
	pos := 0
	if f.nheld > 0 {
		// The word of the held letters goes on here.
		dst, pos = n.foldWord(dst, src, 0, final)
	}
	// Only the words that hold a byte that may start a confusable need the
	// rune-by-rune machine (foldWord); the text between them only moves the
	// word state on.
	for pos < len(src) {
		k := nextConfusableLead(src, pos)
		if k < 0 {
			dst = append(dst, src[pos:]...)
			f.advance(src[pos:])
			break
		}
		w := wordStart(src, pos, k)
		dst = append(dst, src[pos:w]...)
		if w > pos {
			f.latin, f.blocked = false, false // a boundary came before the word
		}
		dst, pos = n.foldWord(dst, src, w, final)
	}
	if final {
		dst = f.flushHeld(dst, f.latin && !f.blocked, &n.stats.Folded)
	}
	return dst
}

// nextConfusableLeadWords returns the index of the first byte of b[from:]
// that may start a confusable (see maybeConfusable), or -1. It tests eight
// bytes at a time (leadLanes). nextConfusableLead is it, with a vector
// kernel for long text where there is one.
func nextConfusableLeadWords(b []byte, from int) int {
	i := from
	for ; i+8 <= len(b); i += 8 {
		if m := leadLanes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; confusableLead <= c && c <= confusableLast {
			return i
		}
	}
	return -1
}

// leadLanes returns the high bit of each byte lane of x that holds a byte
// in confusableLead..confusableLast (0xCD..0xD6). Flipping the high bit
// maps that range to 0x4D..0x56 and puts every other byte that had the high
// bit clear above 0x7F, where the test of "between" (the bit hack of
// Anderson's Bit Twiddling Hacks, for bytes below 0x80) does not fire.
// Unlike the lane tests of package pipeline it is exact in every lane.
func leadLanes(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		low7 = ones * 0x7F
		high = ones * 0x80
		m    = confusableLead ^ 0x80 - 1 // exclusive bounds
		n    = confusableLast ^ 0x80 + 1
	)
	y := x ^ high
	t := y & low7
	return (ones*(127+n) - t) & ^y & (t + ones*(127-m)) & high
}

// wordStart returns where the word holding the rune at k begins, not before
// from: just after the last boundary rune before k.
func wordStart(b []byte, from, k int) int {
	for i := k; i > from; {
		r, size := rune(b[i-1]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeLastRune(b[from:i])
		}
		if cls, _ := foldClass(r); cls == foldBoundary {
			return i
		}
		i -= size
	}
	return from
}

// foldWord runs the folding machine over src from i, writing to dst, up to
// and including the first boundary rune (the end of the current word), or
// to the end of src. It returns dst and where it stopped. Held letters are
// flushed by the caller at the end of a final call.
func (n *Normalizer) foldWord(dst, src []byte, i int, final bool) ([]byte, int) {
	f := &n.fold
	// src[lit:i] is text that goes out unchanged; it is written when
	// something else must be written (a folded letter, held letters) or cut
	// out (a letter put on hold). Held letters always precede src[lit:i].
	lit := i
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			letter := 'a' <= c|0x20 && c|0x20 <= 'z'
			if f.nheld > 0 {
				dst = f.flushHeld(dst, letter && !f.blocked || !letter && f.latin && !f.blocked, &n.stats.Folded)
			}
			i++
			if !letter {
				f.latin, f.blocked = false, false
				return append(dst, src[lit:i]...), i
			}
			f.latin = true
			continue
		}
		// decodeRune: utf8.DecodeRune with the two- and three-byte forms
		// inline (the letters of Cyrillic, Greek, CJK text), which the
		// standard one leaves to a call.
		r, size := decodeRune(src, i)
		cls, to := foldClass(r)
		switch cls {
		case foldConfusable:
			switch {
			case f.blocked:
				// Unchanged.
			case f.latin:
				// A letter held before is followed by this one, not by a mark.
				dst = f.flushHeld(dst, true, &n.stats.Folded)
				switch {
				case i+size == len(src) && !final:
					// A mark may open the next call: decide then.
					dst = append(dst, src[lit:i]...)
					f.nheld = copy(f.held[:], src[i:i+size])
					f.rec.held = f.rec.base + int64(i)
					lit = i + size
				case isMarkAt(src, i+size):
					// Unchanged.
				default:
					dst = append(dst, src[lit:i]...)
					if f.rec.on {
						f.rec.note(f.rec.base+int64(i), src[i:i+size])
					}
					dst = append(dst, to)
					n.stats.Folded++
					lit = i + size
				}
			case f.nheld+size > foldMaxHeld:
				dst = f.flushHeld(dst, false, nil)
				f.blocked = true
			default:
				dst = append(dst, src[lit:i]...)
				if f.nheld == 0 {
					f.rec.held = f.rec.base + int64(i)
				}
				f.nheld += copy(f.held[f.nheld:], src[i:i+size])
				lit = i + size
			}
		case foldMark:
			switch {
			case f.nheld > 0 && f.nheld+size <= foldMaxHeld:
				dst = append(dst, src[lit:i]...)
				f.nheld += copy(f.held[f.nheld:], src[i:i+size])
				lit = i + size
			case f.nheld > 0:
				dst = f.flushHeld(dst, f.latin && !f.blocked, &n.stats.Folded)
				if !f.latin {
					f.blocked = true
				}
			}
		case foldOther:
			dst = f.flushHeld(dst, f.latin && !f.blocked, &n.stats.Folded)
			f.blocked = true
		case foldBoundary:
			dst = f.flushHeld(dst, f.latin && !f.blocked, &n.stats.Folded)
			f.latin, f.blocked = false, false
			i += size
			return append(dst, src[lit:i]...), i
		}
		i += size
	}
	return append(dst, src[lit:]...), i
}

// The confusables lie in U+0370..U+058F (Greek, Cyrillic, Armenian), whose
// UTF-8 lead bytes are 0xCD..0xD6.
const (
	confusableLo   = 0x370
	confusableHi   = 0x58F
	confusableLead = 0xCD
	confusableLast = 0xD6
)

// maybeConfusable reports whether b may hold a confusable: a lead byte of
// U+0340..U+05BF.
func maybeConfusable(b []byte) bool { return nextConfusableLead(b, 0) >= 0 }

// advance moves the word state over text that holds no confusable (and
// with nothing held): the state after it is that of its last word, which
// is read backwards from the end, joined with the state before when that
// word began earlier.
func (f *foldState) advance(b []byte) {
	latin := false
	for i := len(b); i > 0; {
		r, size := rune(b[i-1]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeLastRune(b[:i])
		}
		switch cls, _ := foldClass(r); cls {
		case foldASCII:
			latin = true
		case foldOther:
			// Blocked whatever else the word holds (the word's ASCII
			// letters no longer matter): done.
			f.blocked = true
			return
		case foldBoundary:
			f.latin, f.blocked = latin, false
			return
		}
		i -= size
	}
	// The whole of b continues the word that was open before it.
	f.latin = f.latin || latin
}
