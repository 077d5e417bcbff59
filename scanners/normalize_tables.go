package scanners

import (
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/normdata"
)

//go:generate go run ./internal/normgen -o normalize_tables_gen.go

// This file builds, once and on first use, the immutable per-code-point table
// that drives Normalizer: which runes are stripped (and in which class), which
// runes NFKC leaves alone, and how many non-starters each rune counts for in
// the Stream-Safe Text Format. The data is computed at build time
// (normdata.Entry, from package unicode and norm, written compactly into
// normalize_tables_gen.go by normgen); at run time the table is assembled
// from it on first use, with nothing computed at package init.

// normMaxNonStarters is the Stream-Safe Text Format limit used by
// golang.org/x/text/unicode/norm: after 30 non-starters it inserts U+034F.
const normMaxNonStarters = 30

// Table entry layout. An entry of 0 is the common case: a starter that NFKC
// never changes and that leaves no trailing non-starters.
const (
	entLeadMask   = normdata.LeadMask // number of leading non-starters in the NFKD expansion
	entTrailShift = normdata.TrailShift
	entTrailMask  = normdata.TrailMask // number of trailing non-starters
	entChanged    = normdata.Changed   // a starter that NFKC changes even on its own
	entStrip      = normdata.Strip     // removed; the low 3 bits hold the NormClass
	entClassMask  = normdata.ClassMask
)

const (
	normBlockBits = 8
	normBlockSize = 1 << normBlockBits
)

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

	emoji *emojiBitmap // isEmojiBase of the emoji blocks (normalize_joiners.go)
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

// normTabBuilt says whether normTab has built the table in this process
// (TestASCIIBuildsNoNormTable: text of ASCII only never needs it).
var normTabBuilt atomic.Bool

// stripClass reports whether r is removed by Normalizer and in which class
// (normdata.StripClass: controls other than \t \n \r, DEL, and
// Default_Ignorable_Code_Point as Unicode derives it).
func stripClass(r rune) (NormClass, bool) {
	c, ok := normdata.StripClass(r)
	return NormClass(c), ok
}

// normFill writes the entries of the normBlockSize code points from base
// into blk, and into out the NFKC output of each one marked entChanged.
// buildNormTable calls it for each block in order. uniform may report that
// all the block's entries are blk[0] (which saves a lookup by content).
type normFill func(base rune, blk *[normBlockSize]uint8, out *[normBlockSize]string) (uniform bool)

// buildNormTable builds the table from the generated data
// (normalize_tables_gen.go, written by normgen from normdata.Encode).
func buildNormTable() *normTable {
	normTabBuilt.Store(true)
	return assembleNormTable(generatedFill(normRuns, normSingles, normSingleOut))
}

// generatedFill reads the runs and singles of normdata.Encode block by
// block.
func generatedFill(runs, singles, outs string) normFill {
	var left uint64 // code points left in the current run
	var ent uint8
	next, off := rune(-1), 0 // the next code point with a single, its output
	nextLen := 0
	readSingle := func() {
		if len(singles) == 0 {
			next = unicode.MaxRune + 1
			return
		}
		d, n := uvarint(singles)
		l, m := uvarint(singles[n:])
		singles = singles[n+m:]
		next += rune(d)
		nextLen = int(l)
	}
	readSingle()
	return func(base rune, blk *[normBlockSize]uint8, out *[normBlockSize]string) (uniform bool) {
		uniform = left >= normBlockSize
		for k := 0; k < normBlockSize; {
			if left == 0 {
				var n int
				left, n = uvarint(runs)
				ent = runs[n]
				runs = runs[n+1:]
			}
			m := min(uint64(normBlockSize-k), left)
			fillBytes(blk[k:k+int(m)], ent)
			k += int(m)
			left -= m
		}
		for next < base+normBlockSize {
			out[next-base] = outs[off : off+nextLen]
			off += nextLen
			readSingle()
		}
		return uniform
	}
}

// fillBytes sets every byte of b to v: a memclr for the common zero entry,
// doubling copies otherwise (the table is filled over every code point, so
// a byte loop here was most of building it).
func fillBytes(b []uint8, v uint8) {
	if v == 0 {
		clear(b)
		return
	}
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// uvarint decodes a uvarint of generated data, which is well formed
// (TestNormTableGenerated).
func uvarint(s string) (uint64, int) {
	var v uint64
	for i := 0; ; i++ {
		c := s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
}

// assembleNormTable builds the two-level table from fill, sharing identical
// blocks.
func assembleNormTable(fill normFill) *normTable {
	t := &normTable{}
	blockIDs := map[string]uint16{}
	singleIDs := map[string]uint16{}
	var blk [normBlockSize]uint8
	var sblk [normBlockSize]uint16
	var outs [normBlockSize]string
	var skeyBuf [2 * normBlockSize]byte
	var uniformIDs [256]uint16 // id+1 of the block whose entries are all the index
	// Output id runs from singleOff[id] to singleOff[id+1]; id 0 is none.
	t.singleOff = append(t.singleOff, 0, 0)
	var singles []byte
	t.singleBlocks = make([]uint16, normBlockSize) // block 0: no outputs
	for base := rune(0); base <= unicode.MaxRune; base += normBlockSize {
		if fill(base, &blk, &outs) && blk[0]&entChanged == 0 {
			if id := uniformIDs[blk[0]]; id != 0 {
				t.index[base>>normBlockBits] = id - 1
				continue // singleIndex 0: the all-zero block
			}
		}
		hasSingle := false
		for k, e := range blk {
			sblk[k] = 0
			if e&entChanged != 0 {
				singles = append(singles, outs[k]...)
				t.singleOff = append(t.singleOff, uint32(len(singles)))
				sblk[k] = uint16(len(t.singleOff) - 2)
				hasSingle = true
			}
		}
		id, ok := blockIDs[string(blk[:])] // no copy of the key for a lookup
		if !ok {
			id = uint16(len(t.blocks) / normBlockSize)
			blockIDs[string(blk[:])] = id
			t.blocks = append(t.blocks, blk[:]...)
		}
		t.index[base>>normBlockBits] = id
		if allSame(&blk) {
			uniformIDs[blk[0]] = id + 1
		}
		if !hasSingle {
			continue // singleIndex 0: the all-zero block
		}
		skey := uint16sBytes(skeyBuf[:0], sblk[:])
		sid, ok := singleIDs[string(skey)]
		if !ok {
			sid = uint16(len(t.singleBlocks) / normBlockSize)
			singleIDs[string(skey)] = sid
			t.singleBlocks = append(t.singleBlocks, sblk[:]...)
		}
		t.singleIndex[base>>normBlockBits] = sid
	}
	t.singleOut = string(singles)
	t.emoji = buildEmojiBits(t)
	return t
}

func allSame(blk *[normBlockSize]uint8) bool {
	for _, e := range blk {
		if e != blk[0] {
			return false
		}
	}
	return true
}

func uint16sBytes(b []byte, s []uint16) []byte {
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}
