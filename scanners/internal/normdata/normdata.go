// Package normdata defines the normalizer's per-code-point data from the
// Unicode tables the module links (package unicode and
// golang.org/x/text/unicode/norm): which runes are removed and in which
// class, how many non-starters each counts for in the Stream-Safe Text
// Format, and which starters NFKC changes on their own, with the change.
//
// It is the specification of the table in scanners: the generator
// (scanners/internal/normgen) writes that table from Entry at build time,
// and scanners' tests check the generated table against a build from Entry
// over every code point. Computing Entry over all of Unicode takes tens of
// milliseconds, which is why no process does it at start-up.
package normdata

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Entry layout. An entry of 0 is the common case: a starter that NFKC never
// changes and that leaves no trailing non-starters.
const (
	LeadMask   = 0x03 // number of leading non-starters in the NFKD expansion
	TrailShift = 2
	TrailMask  = 0x03 << TrailShift // number of trailing non-starters
	Changed    = 0x10               // a starter that NFKC changes even on its own
	Strip      = 0x80               // removed; the low 3 bits hold the class
	ClassMask  = 0x07
)

// The classes of removed runes, in the order of scanners.NormClass.
const (
	ZeroWidth = iota
	Bidi
	TagChar
	VariationSelector
	Control
	DefaultIgnorable
)

// StripClass reports whether r is removed by the normalizer and in which
// class.
//
// The set is the C0 and C1 controls other than \t \n \r, DEL, and
// Default_Ignorable_Code_Point as Unicode derives it (DerivedCoreProperties):
// Other_Default_Ignorable_Code_Point + Cf + Variation_Selector - White_Space
// - U+FFF9..U+FFFB (interlinear annotation) - U+13430..U+1343F (Egyptian
// hieroglyph format controls) - Prepended_Concatenation_Mark, computed from
// the tables of package unicode. The excluded format characters are visible
// or structural and are kept, as Unicode prescribes. Every default-ignorable
// rune falls in exactly one class, checked in this order: zero-width, bidi,
// tag, variation selector, and the rest as default-ignorable.
func StripClass(r rune) (class uint8, ok bool) {
	switch {
	case r < 0x20:
		return Control, r != '\t' && r != '\n' && r != '\r'
	case r == 0x7F || 0x80 <= r && r <= 0x9F:
		return Control, true
	case r < 0xAD:
		return 0, false
	case 0x200B <= r && r <= 0x200D, 0x2060 <= r && r <= 0x2064, r == 0xFEFF:
		return ZeroWidth, true
	case unicode.Is(unicode.Bidi_Control, r):
		return Bidi, true
	case 0xE0000 <= r && r <= 0xE007F:
		return TagChar, true
	case 0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF:
		return VariationSelector, true
	case isDefaultIgnorable(r):
		return DefaultIgnorable, true
	}
	return 0, false
}

func isDefaultIgnorable(r rune) bool {
	if !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) &&
		!unicode.Is(unicode.Cf, r) &&
		!unicode.Is(unicode.Variation_Selector, r) {
		return false
	}
	switch {
	case unicode.Is(unicode.White_Space, r),
		0xFFF9 <= r && r <= 0xFFFB,
		0x13430 <= r && r <= 0x1343F,
		unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return true
}

// isNFKCNonStarter reports whether a rune of an NFKD expansion counts as a
// non-starter for the Stream-Safe Text Format the way norm counts it: a
// non-zero combining class, or a starter that combines backwards (Hangul
// vowel and trailing jamo, some Indic vowel signs).
func isNFKCNonStarter(r rune) bool {
	var b [utf8.UTFMax]byte
	return !norm.NFKC.Properties(utf8.AppendRune(b[:0], r)).BoundaryBefore()
}

// nonStarterCounts returns the number of leading and trailing non-starters
// of the NFKD expansion of r, as norm's table generator computes them.
func nonStarterCounts(r rune, p norm.Properties) (lead, trail int) {
	const sBase, sCount, tCount = 0xAC00, 11172, 28
	if sBase <= r && r < sBase+sCount {
		if (r-sBase)%tCount == 0 {
			return 0, 1 // LV syllable: a trailing vowel jamo
		}
		return 0, 2 // LVT syllable
	}
	d := p.Decomposition()
	if d == nil {
		if !p.BoundaryBefore() {
			return 1, 1
		}
		return 0, 0
	}
	var exp [32]rune
	e := exp[:0]
	for len(d) > 0 {
		x, n := utf8.DecodeRune(d)
		e = append(e, x)
		d = d[n:]
	}
	for _, x := range e {
		if !isNFKCNonStarter(x) {
			break
		}
		lead++
	}
	for i := len(e) - 1; i >= 0 && isNFKCNonStarter(e[i]); i-- {
		trail++
	}
	return lead, trail
}

// Entry computes the table entry of r, and for a starter that NFKC changes
// on its own (Changed), that change. Surrogates get 0: they cannot be
// encoded in UTF-8 and are never looked up.
func Entry(r rune) (ent uint8, single string) {
	if c, ok := StripClass(r); ok {
		return Strip | c, ""
	}
	if 0xD800 <= r && r <= 0xDFFF {
		return 0, ""
	}
	var b [utf8.UTFMax]byte
	s := utf8.AppendRune(b[:0], r)
	p := norm.NFKC.Properties(s)
	lead, trail := nonStarterCounts(r, p)
	ent = uint8(lead) | uint8(trail)<<TrailShift
	if lead == 0 && p.Decomposition() != nil {
		if out := norm.NFKC.String(string(s)); out != string(s) {
			return ent | Changed, out
		}
	}
	return ent, ""
}

// Versions names the Unicode versions the data comes from: package
// unicode's and norm's.
func Versions() (unicodeVersion, normVersion string) { return unicode.Version, norm.Version }

// Encode computes Entry over every code point and encodes the result
// compactly, in the form scanners' table reads (normalize_tables.go):
//
//   - runs: for each maximal run of code points with the same entry, from
//     U+0000 to U+10FFFF, the run's length as a uvarint then the entry byte;
//   - singles: for each code point whose entry has Changed, in order, the
//     distance from the previous one (from -1 for the first) then the length
//     of its NFKC output, as uvarints;
//   - out: those outputs, one after the other.
func Encode() (runs, singles, out string) {
	var rb, sb, ob []byte
	last := rune(-1)
	cur, n := uint8(0), uint64(0)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		e, s := Entry(r)
		if r > 0 && e != cur {
			rb = binary.AppendUvarint(rb, n)
			rb = append(rb, cur)
			n = 0
		}
		cur = e
		n++
		if e&Changed != 0 {
			sb = binary.AppendUvarint(sb, uint64(r-last))
			sb = binary.AppendUvarint(sb, uint64(len(s)))
			ob = append(ob, s...)
			last = r
		}
	}
	rb = binary.AppendUvarint(rb, n)
	rb = append(rb, cur)
	return string(rb), string(sb), string(ob)
}
