package scanners

import "unsafe"

// Edits: where the Normalizer's output differs from its input. A lossless
// writer (the pipeline's lossless mode) lets the redactor read the
// normalized text but writes the original characters wherever the
// redactor kept the text: it needs to know which output bytes stand for
// which input characters. With RecordEdits set, the Normalizer keeps one
// Edit for each change that is not a removal:
//
//   - an NFKC segment that came out changed ("ｇ" → "g", "x²" → "x2" is one
//     Edit for "²", "e\u0301" → "é"): Orig is the segment as it went in,
//     without the runes removed from it;
//   - a confusable folded to Latin ("а" → "a"): Orig is the letter. A fold
//     inside the output of an NFKC Edit belongs to that Edit.
//
// Output between Edits is the input without the removed runes, byte for
// byte. Removals are not Edits: what the Normalizer removes (invisible and
// control characters, escape sequences) is removed in every mode. An
// escaped character the Normalizer decodes (normalize_literal.go) counts as
// the character it decodes to: its Edit's Orig is that character, not the
// six-byte escape.
//
// Edits are in output offsets since Reset, in order and disjoint; an Edit is
// reported once every byte of its output has been returned by Append. The
// Normalizer keeps them until TrimEdits: the caller drops those it has
// written, so memory follows the text not yet written (a batch and what the
// redactor holds back), not the string.

// An Edit says that Normalizer output [Lo, Hi) stands for the input
// characters Orig.
type Edit struct {
	Lo, Hi int64
	Orig   []byte // valid until the next Append, TrimEdits or Reset
}

// edit is an Edit whose Orig is at eb[off:off+n].
type edit struct {
	lo, hi int64
	off, n int32
}

// foldRec is one folded confusable at NFKC-output offset pos.
type foldRec struct {
	pos  int64
	orig [2]byte // every confusable is two bytes of UTF-8
}

// foldRecorder notes the folds of one Append for the Edits.
type foldRecorder struct {
	on    bool
	base  int64 // NFKC-output offset of this Append's NFKC output
	held  int64 // NFKC-output offset of the first held byte
	folds []foldRec
}

func (f *foldRecorder) note(pos int64, orig []byte) {
	var r foldRec
	r.pos = pos
	copy(r.orig[:], orig)
	f.folds = append(f.folds, r)
}

// editState is the Normalizer's edit bookkeeping.
type editState struct {
	nout   int64  // NFKC output so far (before folding)
	nfold  int64  // folds converted to Edits so far: output offset = NFKC offset - folds before it
	dst0   int    // where this Append's output starts in dst
	pend   []edit // NFKC Edits, in NFKC-output offsets, not yet converted
	edits  []edit // converted Edits, in output offsets
	eb     []byte // the Orig bytes of pend and edits
	public []Edit
}

func (e *editState) reset() {
	e.nout, e.nfold = 0, 0
	e.pend, e.edits, e.eb = e.pend[:0], e.edits[:0], e.eb[:0]
}

// noteNFKC records that NFKC wrote dst[from:] for the segment orig.
func (n *Normalizer) noteNFKC(dst []byte, from int, orig []byte) {
	e := &n.ed
	lo := e.nout + int64(from-e.dst0)
	off := len(e.eb)
	e.eb = append(e.eb, orig...)
	e.pend = append(e.pend, edit{lo: lo, hi: lo + int64(len(dst)-from), off: int32(off), n: int32(len(orig))})
}

// settleEdits converts the NFKC Edits and folds that are decided (all before
// the bytes folding still holds) to Edits in output offsets.
func (n *Normalizer) settleEdits() {
	e, f := &n.ed, &n.fold
	limit := e.nout
	if f.nheld > 0 {
		limit = f.rec.held
	}
	fi, pi := 0, 0
	for ; pi < len(e.pend); pi++ {
		p := e.pend[pi]
		if p.hi > limit {
			break
		}
		for ; fi < len(f.rec.folds) && f.rec.folds[fi].pos < p.lo; fi++ {
			n.addFold(&f.rec.folds[fi])
		}
		lo := p.lo - e.nfold
		for ; fi < len(f.rec.folds) && f.rec.folds[fi].pos < p.hi; fi++ {
			e.nfold++ // inside the segment: its Orig covers it
		}
		e.edits = append(e.edits, edit{lo: lo, hi: p.hi - e.nfold, off: p.off, n: p.n})
	}
	stop := limit
	if pi < len(e.pend) {
		stop = min(stop, e.pend[pi].lo)
	}
	for ; fi < len(f.rec.folds) && f.rec.folds[fi].pos < stop; fi++ {
		n.addFold(&f.rec.folds[fi])
	}
	e.pend = append(e.pend[:0], e.pend[pi:]...)
	f.rec.folds = append(f.rec.folds[:0], f.rec.folds[fi:]...)
}

func (n *Normalizer) addFold(r *foldRec) {
	e := &n.ed
	lo := r.pos - e.nfold
	off := len(e.eb)
	e.eb = append(e.eb, r.orig[:]...)
	e.edits = append(e.edits, edit{lo: lo, hi: lo + 1, off: int32(off), n: 2})
	e.nfold++
}

// Edits returns the Edits reported so far and not trimmed, in order. The
// slice is reused by the next call.
func (n *Normalizer) Edits() []Edit {
	e := &n.ed
	e.public = e.public[:0]
	for _, x := range e.edits {
		e.public = append(e.public, Edit{Lo: x.lo, Hi: x.hi, Orig: e.eb[x.off : x.off+x.n : x.off+x.n]})
	}
	return e.public
}

// TrimEdits drops the Edits that end at or before output offset upTo.
func (n *Normalizer) TrimEdits(upTo int64) {
	e := &n.ed
	k := 0
	for k < len(e.edits) && e.edits[k].hi <= upTo {
		k++
	}
	if k == 0 {
		return
	}
	e.edits = append(e.edits[:0], e.edits[k:]...)
	if len(e.edits) == 0 && len(e.pend) == 0 {
		e.eb = e.eb[:0]
		return
	}
	// Compact the Orig bytes once the dropped part is the larger.
	first := len(e.eb)
	for _, x := range e.edits {
		first = min(first, int(x.off))
	}
	for _, x := range e.pend {
		first = min(first, int(x.off))
	}
	if first > len(e.eb)/2 {
		k := copy(e.eb, e.eb[first:])
		e.eb = e.eb[:k]
		for i := range e.edits {
			e.edits[i].off -= int32(first)
		}
		for i := range e.pend {
			e.pend[i].off -= int32(first)
		}
	}
}

// DropEditBuffers lets go of the Edits' buffers when they hold more than
// max bytes, so a pooled Normalizer does not pin the memory of one large
// string. It implies Reset.
func (n *Normalizer) DropEditBuffers(max int) {
	n.Reset()
	e := &n.ed
	if cap(e.eb) > max {
		e.eb = nil
	}
	if cap(e.edits)*int(unsafe.Sizeof(edit{})) > max || cap(e.pend)*int(unsafe.Sizeof(edit{})) > max {
		e.edits, e.pend = nil, nil
	}
	if cap(e.public)*int(unsafe.Sizeof(Edit{})) > max {
		e.public = nil
	}
	if cap(n.fold.rec.folds)*int(unsafe.Sizeof(foldRec{})) > max {
		n.fold.rec.folds = nil
	}
}
