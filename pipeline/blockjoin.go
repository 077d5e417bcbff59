package pipeline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Text across blocks (docs/pipeline.md, "Text across blocks").
//
// A model reads the text blocks of a tool result one after the other, so
// a secret written half at the end of one text block and half at the
// start of the next is one secret to it. The pass reads the texts of
// adjacent text blocks as one text for the redactor: when a block's text
// ends, the redactor is not finished; what it still holds (at most
// scanners.MaxHold bytes: what a match could still cover) waits, and so
// does the output written after it (the rest of the block, the next
// block's members and label: at most block-join-bytes), until the next
// block's text has been given to the same redactor far enough to decide
// it. Each text is normalized on its own; the redactor sees the
// normalized texts one after the other, exactly as it sees one string
// split across reads, so a match, its rule and its fingerprint are those
// of the joined text.
//
// The redactor's output is cut at the boundary between the texts: text
// goes to the block it came from, and a marker to the block its match
// starts in. A match that runs on into the next block is replaced by one
// marker at the end of the first block, and its part in the next block is
// removed: both stay text blocks, no byte of the secret is in either, and
// the number of markers is the number of findings. The finding is
// recorded with the pointer of the block it starts in and, as
// endPointer, of the block it ends in.
//
// Two texts are adjacent when they are the text members of consecutive
// items of a tool result's content array that are both text blocks: the
// first block's type was read and is "text", the second block's type is
// "text" or is not read before its text (a block with a text member and
// another type is not valid MCP; a wrong join there can only redact more).
// Anything else between them, or a block that is replaced, a text cut by
// its bound, a text scanned with a member-name context, the end of the
// content array, and the bounds below end the join: the first text is
// finished alone, as it would be without this file.

// maxJoinBlocks bounds how many texts one chain of joined blocks holds; the
// text of the last one is finished alone.
const maxJoinBlocks = 64

// joinPhase is where a held text's join stands.
type joinPhase uint8

const (
	jIdle    joinPhase = iota
	jInBlock           // a text ended with its rest held; its block is still open
	jBetween           // that block closed as a text block; the next item is awaited
	jNext              // the next item is a block; its text is awaited
	jFeeding           // the next block's text is read, joined
)

// joinSeg is one text of a chain of joined texts.
type joinSeg struct {
	tgt    *[]byte // the buffer its rest goes in
	at     int     // where in *tgt: just before its closing quote
	lo, hi int64   // its value offsets in the joined text
	idx    int64   // its block's index in the content array
	inOff  int64   // the input offset of its string token
	chars  int64   // its characters written so far (text-chars)
	errAt  int     // where its rest goes in errText; -1: nowhere
	dead   bool    // its block was replaced: its rest is dropped
	// e0, e1: its normalizer Edits not yet written, bj.edits[e0:e1]
	// (lossless mode), in value offsets.
	e0, e1 int
	// held: normalized text the lossless writer held back at its end
	// (it ends inside an Edit), at value offset heldLo; written first.
	held   []byte
	heldLo int64
}

// joinEdit is a normalizer Edit kept for a held text: its original bytes
// are eb[off:off+n].
type joinEdit struct {
	lo, hi int64
	off, n int
}

// blockJoin is the pass's state of the join.
type blockJoin struct {
	phase   joinPhase
	level   int // len(stack) while the content array is the innermost frame
	segs    []joinSeg
	ptr     string             // the content array's pointer
	pend    int                // segs[pend:] still take output
	red     *scanners.Redactor // holds the joined text while other strings use pass.red
	spare   *scanners.Redactor
	blkType int8 // the open block's type: 0 not read, 1 "text", -1 another
	out     []byte
	fs      []scanners.Finding
	esc     []byte
	// lossless mode: the held texts' Edits, their original bytes, and
	// scratch for the Edits of one text and its piece with them undone
	edits []joinEdit
	eb    []byte
	pub   []scanners.Edit
	lbuf  []byte
	hb    []byte
}

// reset forgets a join of an earlier message.
func (j *blockJoin) reset() {
	if j.red != nil {
		j.spare, j.red = j.red, nil
	}
	j.phase, j.segs, j.pend, j.blkType = jIdle, j.segs[:0], 0, 0
	j.edits, j.eb = j.edits[:0], j.eb[:0]
}

// trim drops the buffers that grew past keep bytes, so an idle pass does
// not pin them.
func (j *blockJoin) trim(keep int) {
	for _, b := range []*[]byte{&j.out, &j.esc, &j.eb, &j.lbuf, &j.hb} {
		if cap(*b) > keep {
			*b = nil
		}
	}
}

// joinCan reports whether the text string ending now may go on into the
// next block's text.
func (p *pass) joinCan() bool {
	n := len(p.stack)
	if p.e.joinMax <= 0 || !p.tool || p.strCut || n < 2 || p.bj.blkType < 0 {
		return false
	}
	if p.stack[n-1].role != roleBlock || p.stack[n-2].role != roleContent || p.stack[n-1].skip {
		return false
	}
	if p.bw.doomed || !p.red.Continued() {
		return false
	}
	if k := len(p.bj.segs); k > 0 && (k+1 >= maxJoinBlocks || p.bj.segs[0].tgt != p.em.target()) {
		return false
	}
	return true
}

// joinHold keeps the rest of the text that just ended for the next
// block's text, or finishes it when the room left under its bounds is too
// small for what its rest may become. It runs before the closing quote.
func (p *pass) joinHold() {
	h := int64(p.red.Held())
	m := int64(p.e.maxMarker)
	if p.strCut || p.e.lim.Remaining(bounds.TextChars, p.strChars) < 4*h+2*m || p.em.counted+6*(4*h+2*m) > p.outBudget {
		p.joinEndLive()
		return
	}
	t := p.em.target()
	s := joinSeg{tgt: t, at: len(*t), lo: p.valBase, hi: p.valBase + p.redFed, idx: p.stack[len(p.stack)-2].items - 1, inOff: p.strStart, chars: p.strChars, errAt: len(p.errText)}
	if len(p.errText) >= maxErrText {
		s.errAt = -1
	}
	if len(p.bj.segs) == 0 {
		p.bj.level = len(p.stack) - 1
		p.bj.pend = 0
		// The content array's pointer: the text's without its last two
		// tokens (the block's index and "text").
		cur := p.pointer()
		i := strings.LastIndexByte(cur, '/')
		i = strings.LastIndexByte(cur[:max(i, 0)], '/')
		p.bj.ptr = cur[:max(i, 0)]
		p.bj.edits, p.bj.eb = p.bj.edits[:0], p.bj.eb[:0]
	}
	s.e0, s.e1 = len(p.bj.edits), len(p.bj.edits)
	if p.ls.on && p.ls.normOn {
		// Lossless: the Edits of the rest still to come, kept to be undone
		// when it is written.
		from := p.red.Released()
		if len(p.ls.held) > 0 {
			s.held = append([]byte(nil), p.ls.held...)
			s.heldLo = p.ls.heldLo
			from = min(from, s.heldLo)
			p.ls.held = p.ls.held[:0]
		}
		for _, e := range p.norm.Edits() {
			if lo, hi := p.ls.normBase+e.Lo, p.ls.normBase+e.Hi; hi > from {
				p.bj.edits = append(p.bj.edits, joinEdit{lo: lo, hi: hi, off: len(p.bj.eb), n: len(e.Orig)})
				p.bj.eb = append(p.bj.eb, e.Orig...)
			}
		}
		s.e1 = len(p.bj.edits)
	}
	p.bj.segs = append(p.bj.segs, s)
	if t == &p.em.buf {
		p.em.jpin = t
	}
	if p.bj.spare == nil {
		p.bj.spare = p.e.cat.NewRedactor(p.e.fpKey)
		p.installAllow(p.bj.spare)
	}
	p.bj.red, p.red, p.bj.spare = p.red, p.bj.spare, nil
	p.bj.phase = jInBlock
	p.joinIn = false
	p.joinResolve(p.bj.red, false)
}

// joinEndLive finishes the current string's text alone (the redactor's
// final Append), when it was flushed to go on but may not.
func (p *pass) joinEndLive() {
	rb, fs := p.red.Append(p.rbuf[:0], nil, true, p.fs[:0])
	p.rbuf, p.fs = rb, fs
	if p.ls.on {
		if lb, own := p.losslessBatch(rb, true); own {
			p.rbuf, p.ls.out, rb = lb, rb[:0], lb
		}
	}
	p.shadowOff()
	if p.joinIn {
		rb = p.joinSplit(p.red, rb, fs, true, true)
	} else {
		for i := range fs {
			p.recordFinding(&fs[i])
		}
	}
	if p.fail == nil {
		p.sink(rb)
	}
}

// joinContinue starts the next block's text on the held redactor, when
// the held text waits for it. It runs where the string would Reset the
// redactor, and reports whether it took its place.
func (p *pass) joinContinue() bool {
	j := &p.bj
	if j.red == nil {
		return false
	}
	if j.phase != jNext || len(p.stack) != j.level+1 || p.sRole != roleText {
		p.joinFinish()
		return false
	}
	j.spare, p.red, j.red = p.red, j.red, nil
	j.phase = jFeeding
	p.joinIn = true
	p.valBase = j.segs[len(j.segs)-1].hi
	p.shBase = int(p.valBase)
	p.ls.fed = p.valBase
	return true
}

// joinFinish ends the join of the held text: the redactor is finished and
// its output goes to the texts it belongs to.
func (p *pass) joinFinish() {
	j := &p.bj
	r := j.red
	if r == nil {
		return
	}
	j.out, j.fs = r.Append(j.out[:0], nil, true, j.fs[:0])
	p.joinSplit(r, j.out, j.fs, true, false)
	j.spare, j.red = r, nil
	p.joinClear()
}

// joinClear forgets the chain once nothing of it is held.
func (p *pass) joinClear() {
	j := &p.bj
	j.phase, j.segs, j.pend = jIdle, j.segs[:0], 0
	p.joinIn = false
	p.joinUnpin()
}

// joinUnpin lets the emitter flush again.
func (p *pass) joinUnpin() {
	if p.em.jpin == nil {
		return
	}
	p.em.jpin = nil
	if p.em.side == nil && p.em.pin == nil && len(p.em.buf) >= emitFlushAt {
		p.em.flush()
	}
}

// joinSplit sends what the redactor r wrote (rb, with the findings fs) to
// the texts it belongs to: the held ones (inserted where they wait) and,
// when live, the current string, whose part it returns. final: r was
// finished.
func (p *pass) joinSplit(r *scanners.Redactor, rb []byte, fs []scanners.Finding, final, live bool) []byte {
	j := &p.bj
	spans, marks := r.Spans(), r.Marks()
	pos := 0
	for i := j.pend; i < len(j.segs) && p.fail == nil; i++ {
		cut := len(rb)
		if live || i+1 < len(j.segs) {
			cut = joinCut(spans, marks, j.segs[i].hi, len(rb))
		}
		if cut > pos {
			p.joinInsert(i, p.joinPiece(&j.segs[i], rb, spans, pos, cut))
			pos = cut
		}
	}
	if pos != p.planFrom {
		p.planLen = -1 // the plan was made for another part of rb: the escaper writes it
	}
	p.joinFindings(fs, live)
	p.joinResolve(r, final)
	if final && live {
		p.joinClear()
	}
	return rb[pos:]
}

// joinPiece returns rb[pos:cut], the output for held text s, with s's
// normalizer Edits that lie wholly inside a stretch written as it was
// undone (lossless mode, lossless.go).
func (p *pass) joinPiece(s *joinSeg, rb []byte, spans []scanners.Span, pos, cut int) []byte {
	j := &p.bj
	if s.e0 == s.e1 && len(s.held) == 0 {
		return rb[pos:cut]
	}
	j.pub = j.pub[:0]
	for _, e := range j.edits[s.e0:s.e1] {
		j.pub = append(j.pub, scanners.Edit{Lo: e.lo, Hi: e.hi, Orig: j.eb[e.off : e.off+e.n]})
	}
	var ls losslessState // normBase 0: the Edits are in value offsets
	out, at, ei := j.lbuf[:0], pos, 0
	for _, sp := range spans {
		lo, hi := sp.Out, sp.Out+int(sp.Hi-sp.Lo)
		if hi <= pos {
			continue
		}
		if lo >= cut {
			break
		}
		a, b := max(lo, pos), min(hi, cut)
		text, tlo := rb[a:b], sp.Lo+int64(a-lo)
		if len(s.held) > 0 {
			// The stretch held back goes on here, or stands alone.
			if a == pos && tlo == s.heldLo+int64(len(s.held)) {
				j.hb = append(append(j.hb[:0], s.held...), text...)
				text, tlo = j.hb, s.heldLo
			} else {
				out = append(out, s.held...)
			}
			s.held = nil
		}
		out = append(out, rb[at:a]...) // markers
		out, ei = ls.undo(out, text, tlo, j.pub, ei)
		at = b
	}
	if len(s.held) > 0 {
		out = append(out, s.held...)
		s.held = nil
	}
	out = append(out, rb[at:cut]...)
	j.lbuf = out
	return out
}

// joinPlanSpans returns the spans of what the current string's own part
// of rb holds, and that part, for the shadow's plan (shadow.go): its part
// starts where the held texts' end (joinCut at valBase), and a span
// across that point is clipped to it. The Outs are counted from there.
func (c *chain) joinPlanSpans(spans []scanners.Span, rb []byte) ([]scanners.Span, []byte) {
	from := joinCut(spans, c.red.Marks(), c.valBase, len(rb))
	if from == 0 {
		return spans, rb
	}
	c.planFrom = from
	c.spTmp = c.spTmp[:0]
	for _, sp := range spans {
		n := int(sp.Hi - sp.Lo)
		if sp.Out+n <= from {
			continue
		}
		if sp.Out < from {
			sp.Lo += int64(from - sp.Out)
			sp.Out = from
		}
		sp.Out -= from
		c.spTmp = append(c.spTmp, sp)
	}
	return c.spTmp, rb[from:]
}

// joinResolve drops the held texts whose rest has all been written.
func (p *pass) joinResolve(r *scanners.Redactor, final bool) {
	j := &p.bj
	rel := r.Released()
	for j.pend < len(j.segs) && (final || rel >= j.segs[j.pend].hi) {
		if s := &j.segs[j.pend]; len(s.held) > 0 && p.fail == nil {
			h := s.held // nothing came after it: written as it is
			s.held = nil
			p.joinInsert(j.pend, h)
		}
		j.pend++
	}
	if j.pend == len(j.segs) {
		p.joinUnpin()
	}
}

// joinCut returns where in what an Append wrote (n bytes, described by
// its spans and marks) the text at value offset v and after begins: text
// before v and markers of matches that start before v come first.
func joinCut(spans []scanners.Span, marks []scanners.Mark, v int64, n int) int {
	si, mi := 0, 0
	for si < len(spans) || mi < len(marks) {
		if mi < len(marks) && (si == len(spans) || marks[mi].Out < spans[si].Out) {
			if marks[mi].At >= v {
				return marks[mi].Out
			}
			mi++
			continue
		}
		sp := spans[si]
		if sp.Hi > v {
			return sp.Out + int(max(0, v-sp.Lo))
		}
		si++
	}
	return n
}

// joinInsert writes piece, the redactor's output for held text i, where
// that text waits.
func (p *pass) joinInsert(i int, piece []byte) {
	j := &p.bj
	s := &j.segs[i]
	if s.dead {
		return
	}
	n := countRunes(piece)
	if p.e.lim.Over(bounds.TextChars, s.chars+n) {
		p.failf(CodeBoundExceeded, bounds.TextChars.String(), s.inOff)
		return
	}
	s.chars += n
	j.esc = appendEscaped(j.esc[:0], piece)
	k := len(j.esc)
	if p.em.counted+int64(k) > p.outBudget {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), s.inOff)
		return
	}
	t := s.tgt
	if s.at > len(*t) {
		return // the buffer was dropped (a side buffer past its bound): the pass fails there
	}
	at := s.at
	*t = slices.Insert(*t, at, j.esc...)
	p.em.counted += int64(k)
	p.joinShift(t, at, k)
	if s.errAt >= 0 && len(p.errText) < maxErrText {
		e := piece[:min(len(piece), maxErrText-len(p.errText))]
		ea := s.errAt
		p.errText = slices.Insert(p.errText, ea, e...)
		for x := j.pend; x < len(j.segs); x++ {
			if j.segs[x].errAt >= ea {
				j.segs[x].errAt += len(e)
			}
		}
	}
}

// joinShift moves every offset into *t at or after at by k: where the held
// texts wait, the watched binary block's marks (binary.go), the mirror
// candidates of the outputSchema hold (structured.go).
func (p *pass) joinShift(t *[]byte, at, k int) {
	j := &p.bj
	for x := j.pend; x < len(j.segs); x++ {
		if s := &j.segs[x]; s.tgt == t && s.at >= at {
			s.at += k
		}
	}
	if w := &p.bw; w.pinned && p.em.pin == t {
		if w.mark >= at {
			w.mark += k
			w.markCnt += int64(k)
		}
		for _, o := range []*int{&w.valStart, &w.valEnd, &w.uriStart} {
			if *o >= at {
				*o += k
			}
		}
	}
	if p.sch != nil {
		hr := &p.sch.held[p.sch.holdIdx]
		if t == &hr.content {
			for x := range hr.cands {
				c := &hr.cands[x]
				if c.textStart >= at {
					c.textStart += k
				}
				if c.textEnd >= at {
					c.textEnd += k
				}
			}
			if p.sch.tapOn && p.sch.cand.textStart >= at {
				p.sch.cand.textStart += k
			}
		}
	}
}

// joinFindings records the findings of a joined Append, each in the text
// its match starts in, with the pointer of the text it ends in when that
// is another.
func (p *pass) joinFindings(fs []scanners.Finding, live bool) {
	j := &p.bj
	for i := range fs {
		f := &fs[i]
		var ptr string
		inOff, off := int64(0), f.Offset
		end := f.Offset + int64(max(f.Length, 1)) - 1
		endPtr := ""
		k := j.owner(f.Offset)
		switch {
		case k >= 0:
			ptr, inOff, off = p.joinPointer(k), j.segs[k].inOff, f.Offset-j.segs[k].lo
			if e := j.owner(end); e != k {
				if e >= 0 {
					endPtr = p.joinPointer(e)
				} else if live {
					endPtr = p.pointer()
				}
			}
		case live:
			ptr, inOff, off = p.pointer(), p.strStart, f.Offset-p.valBase
		default:
			continue // cannot happen: every finding starts in a text of the chain
		}
		if f.Suppressed {
			n := len(p.ev.Suppressed)
			p.recordFinding(f)
			if len(p.ev.Suppressed) > n {
				p.ev.Suppressed[n].Pointer, p.ev.Suppressed[n].Offset = ptr, off
			}
			continue
		}
		n := len(p.ev.Findings)
		p.recordFinding(f)
		if len(p.ev.Findings) > n {
			r := &p.ev.Findings[n]
			r.Pointer, r.InputOffset, r.Offset, r.EndPointer = ptr, inOff, off, endPtr
			r.InKey = false // a held text may be finished while a key is read
		}
	}
}

// joinPointer returns the pointer of held text k's text member: the
// content array's pointer, its block's index, "text".
func (p *pass) joinPointer(k int) string {
	return p.bj.ptr + "/" + strconv.FormatInt(p.bj.segs[k].idx, 10) + "/text"
}

// owner returns the held text value offset v lies in, or -1 (the current
// string's).
func (j *blockJoin) owner(v int64) int {
	for k := range j.segs {
		if v >= j.segs[k].lo && v < j.segs[k].hi {
			return k
		}
	}
	return -1
}

// joinDoomed marks the held texts at or after mark in t as dropped: the
// block that holds them is replaced (binary.go).
func (p *pass) joinDoomed(t *[]byte, mark int) {
	for x := range p.bj.segs {
		if s := &p.bj.segs[x]; s.tgt == t && s.at >= mark {
			s.dead = true
		}
	}
}

// joinCheck finishes the join when the output held after the first text
// still waiting crosses block-join-bytes.
func (p *pass) joinCheck() {
	j := &p.bj
	if j.pend < len(j.segs) {
		s := &j.segs[j.pend]
		if int64(len(*s.tgt)-s.at) > p.e.joinMax {
			p.joinFinish()
		}
	}
}

// joinValue follows the values read while a text is held: any item of the
// content array but a content block ends the join.
func (p *pass) joinValue(obj bool) {
	j := &p.bj
	if len(p.stack) == j.level && !obj {
		// an item of the content array that is no block
		p.joinFinish()
		return
	}
	p.joinCheck()
}

// joinOpen follows the containers opened while a text is held (f: the
// frame just pushed).
func (p *pass) joinOpen(f *frame) {
	j := &p.bj
	if len(p.stack) == j.level+1 {
		if j.phase == jBetween && f.obj && f.role == roleBlock && !f.skip {
			j.phase = jNext
			return
		}
		p.joinFinish()
		return
	}
	p.joinCheck()
}

// joinClose follows the containers closed while a text is held (f: the
// frame about to be popped).
func (p *pass) joinClose(f *frame) {
	j := &p.bj
	switch n := len(p.stack); {
	case n == j.level+1 && j.phase == jInBlock && j.blkType == 1 && !p.bj.segs[len(p.bj.segs)-1].dead:
		j.phase = jBetween
	case n <= j.level+1:
		p.joinFinish()
	default:
		p.joinCheck()
	}
}

// joinType takes the open block's "type" (sanitized, in mimeBuf).
func (p *pass) joinType() {
	j := &p.bj
	j.blkType = -1
	if string(p.mimeBuf) == "text" {
		j.blkType = 1
	}
	if j.red != nil && j.blkType < 0 && len(p.stack) == j.level+1 && (j.phase == jInBlock || j.phase == jNext) {
		p.joinFinish()
	}
}
