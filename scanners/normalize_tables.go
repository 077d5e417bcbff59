package scanners

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file builds, once and on first use, the immutable per-code-point table
// that drives Normalizer: which runes are stripped (and in which class), which
// runes NFKC leaves alone, and how many non-starters each rune counts for in
// the Stream-Safe Text Format. Building it takes a few tens of milliseconds;
// nothing is computed at package init.

// normMaxNonStarters is the Stream-Safe Text Format limit used by
// golang.org/x/text/unicode/norm: after 30 non-starters it inserts U+034F.
const normMaxNonStarters = 30

// Table entry layout. An entry of 0 is the common case: a starter that NFKC
// never changes and that leaves no trailing non-starters.
const (
	entLeadMask   = 0x03 // number of leading non-starters in the NFKD expansion
	entTrailShift = 2
	entTrailMask  = 0x03 << entTrailShift // number of trailing non-starters
	entChanged    = 0x10                  // a starter that NFKC changes even on its own
	entStrip      = 0x80                  // removed; the low 3 bits hold the NormClass
	entClassMask  = 0x07
)

const normBlockBits = 8

// normTable is a two-level lookup from code point to entry. Identical blocks
// of 256 entries are shared, which keeps the whole table near 100 KiB.
type normTable struct {
	index  [(unicode.MaxRune + 1) >> normBlockBits]uint16
	blocks []uint8

	// NFKC of each starter marked entChanged, when it stands alone in its
	// segment: singleIndex/singleBlocks map the code point to an id, and
	// singleOut[singleOff[id]:singleOff[id+1]] is the output.
	singleIndex  [(unicode.MaxRune + 1) >> normBlockBits]uint16
	singleBlocks []uint16
	singleOff    []uint32
	singleOut    string
}

// lookup returns the entry of r, which must be in 0..unicode.MaxRune.
func (t *normTable) lookup(r rune) uint8 {
	return t.blocks[int(t.index[r>>normBlockBits])<<normBlockBits|int(r&(1<<normBlockBits-1))]
}

// single returns NFKC(string(r)) for a starter marked entChanged.
func (t *normTable) single(r rune) string {
	id := t.singleBlocks[int(t.singleIndex[r>>normBlockBits])<<normBlockBits|int(r&(1<<normBlockBits-1))]
	return t.singleOut[t.singleOff[id]:t.singleOff[id+1]]
}

var normTab = sync.OnceValue(buildNormTable)

// stripClass reports whether r is removed by Normalizer and in which class.
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
func stripClass(r rune) (NormClass, bool) {
	switch {
	case r < 0x20:
		return NormControl, r != '\t' && r != '\n' && r != '\r'
	case r == 0x7F || 0x80 <= r && r <= 0x9F:
		return NormControl, true
	case r < 0xAD:
		return 0, false
	case 0x200B <= r && r <= 0x200D, 0x2060 <= r && r <= 0x2064, r == 0xFEFF:
		return NormZeroWidth, true
	case unicode.Is(unicode.Bidi_Control, r):
		return NormBidi, true
	case 0xE0000 <= r && r <= 0xE007F:
		return NormTagChar, true
	case 0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF:
		return NormVariationSelector, true
	case isDefaultIgnorable(r):
		return NormDefaultIgnorable, true
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

// normEntry computes the table entry of r, and for a starter that NFKC
// changes on its own, that change.
func normEntry(r rune) (ent uint8, single string) {
	if c, ok := stripClass(r); ok {
		return entStrip | uint8(c), ""
	}
	if 0xD800 <= r && r <= 0xDFFF {
		return 0, "" // not encodable in UTF-8; never looked up
	}
	var b [utf8.UTFMax]byte
	s := utf8.AppendRune(b[:0], r)
	p := norm.NFKC.Properties(s)
	lead, trail := nonStarterCounts(r, p)
	ent = uint8(lead) | uint8(trail)<<entTrailShift
	if lead == 0 && p.Decomposition() != nil {
		if out := norm.NFKC.String(string(s)); out != string(s) {
			return ent | entChanged, out
		}
	}
	return ent, ""
}

func buildNormTable() *normTable {
	t := &normTable{}
	const blockSize = 1 << normBlockBits
	blockIDs := map[string]uint16{}
	singleIDs := map[string]uint16{}
	var blk [blockSize]uint8
	var sblk [blockSize]uint16
	// Output id runs from singleOff[id] to singleOff[id+1]; id 0 is none.
	t.singleOff = append(t.singleOff, 0, 0)
	var singles []byte
	t.singleBlocks = make([]uint16, blockSize) // block 0: no outputs
	for base := rune(0); base <= unicode.MaxRune; base += blockSize {
		hasSingle := false
		for k := range rune(blockSize) {
			e, out := normEntry(base + k)
			blk[k] = e
			sblk[k] = 0
			if e&entChanged != 0 {
				singles = append(singles, out...)
				t.singleOff = append(t.singleOff, uint32(len(singles)))
				sblk[k] = uint16(len(t.singleOff) - 2)
				hasSingle = true
			}
		}
		key := string(blk[:])
		id, ok := blockIDs[key]
		if !ok {
			id = uint16(len(t.blocks) / blockSize)
			blockIDs[key] = id
			t.blocks = append(t.blocks, blk[:]...)
		}
		t.index[base>>normBlockBits] = id
		if !hasSingle {
			continue // singleIndex 0: the all-zero block
		}
		skey := string(uint16sBytes(sblk[:]))
		sid, ok := singleIDs[skey]
		if !ok {
			sid = uint16(len(t.singleBlocks) / blockSize)
			singleIDs[skey] = sid
			t.singleBlocks = append(t.singleBlocks, sblk[:]...)
		}
		t.singleIndex[base>>normBlockBits] = sid
	}
	t.singleOut = string(singles)
	return t
}

func uint16sBytes(s []uint16) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}
