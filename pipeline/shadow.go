package pipeline

// The escaped shadow of a text string.
//
// Text written out goes through three stages after the lexer decodes it: the
// normalizer, the redactor and the JSON escaper. For almost all text the
// first two change nothing, and the escaper then only rebuilds escapes the
// lexer has just decoded: a fifth of the pass on code and JSON-in-text,
// whose strings hold a backslash every 10-20 bytes.
//
// So while the lexer decodes a text string it also writes the shadow: the
// decoded text as the escaper would write it (its canonical escapes: \" \\
// \n \r \t and \u00XX for other controls, everything else as itself). A
// plain word goes to both buffers with one more store, an escape the input
// already wrote canonically is copied, and one written otherwise (\/,
// \u003c, \u00e9) goes in as the escaper would write its character. While
// nothing has changed the string (the normalizer reports no change and the
// redactor no finding), what the redactor releases is the next stretch of
// decoded text, and its escaped form is the next stretch of the shadow,
// which is written with one copy instead of being escaped again.
//
// The length of that stretch comes from the other end: everything in the
// shadow minus the escaped length of the decoded bytes still held back
// (the redactor's and the normalizer's holds, a few bytes as a rule), which
// are the last bytes of the batch just flushed.
//
// The first change (a finding, a removed or folded character, a cut) ends
// the shadow for the rest of the string; from there the escaper writes as
// before. Both ways write the same bytes: TestShadowDifferential and
// FuzzShadow compare them on every corpus, split at random.

// shadowStart starts the shadow for a text string.
func (p *pass) shadowStart() {
	p.sh = p.sh[:0]
	p.shD, p.shBase = 0, 0
	p.planLen, p.shDrop = -1, -1
	p.shOn = !p.e.noShadow
}

// shadowOff ends the shadow for the rest of the current string.
func (p *pass) shadowOff() {
	p.shOn = false
	p.planLen, p.shDrop = -1, -1
	p.sh = p.sh[:0]
	p.shD = 0
}

// shadowAdd adds decoded text that took the lexer's general path (plain:
// it holds no byte that needs escaping).
func (p *pass) shadowAdd(d []byte, plain bool) {
	if !p.shOn {
		return
	}
	if plain {
		p.sh = append(p.sh, d...)
	} else {
		p.sh = appendEscaped(p.sh, d)
	}
	p.shD += len(d)
}

// shadowByte adds one decoded byte.
func (p *pass) shadowByte(c byte) {
	if escTable[c] {
		p.sh = appendEscByte(p.sh, c)
	} else {
		p.sh = append(p.sh, c)
	}
	p.shD++
}

// A piece of the text to write: a stretch of the shadow, or of the
// redactor's output (a marker) to escape.
type piece struct {
	shadow bool
	lo, hi int
}

// shadowSettle runs after a batch went through the normalizer and the
// redactor, which wrote rb. It plans how rb is written (p.plan, planLen
// bytes once escaped): each stretch the redactor wrote as it was
// (scanners.Span) from the shadow, and the markers between them through the
// escaper. It sets shDrop to the part of the shadow the released text
// stands for, dropped after the write (shadowTake), so that the shadow
// lines up with what the redactor has still to release. batch is the
// decoded batch just flushed: the shadow's offsets are counted back from
// its end.
//
// A change by the normalizer ends the shadow for the rest of the string:
// the normalizer does not say which of its input bytes its output stands
// for, and a change there is rare (an invisible or look-alike character).
func (p *pass) shadowSettle(batch, rb []byte, final bool) {
	p.plan, p.planLen, p.shDrop = p.plan[:0], -1, -1
	if p.strDirty && p.norm.Changed() {
		p.shadowOff()
		return
	}
	end := p.shBase + p.shD // decoded offset after the last byte lexed
	bs := end - len(batch)  // decoded offset of batch[0]
	rel := end              // at the end of the string everything is released
	if !final {
		rel = int(p.red.Released())
	}
	if rel < p.shBase || rel > end || rel < bs && rel != p.shBase {
		// Held back more than this batch (a long encoded run, rare), or
		// what cannot happen: never write what is not understood.
		p.shadowOff()
		return
	}
	// Shadow offsets of the spans' ends, counted back from the end of the
	// shadow (its end is the end of batch) over the decoded bytes between.
	cur, off := end, len(p.sh)
	at := func(x int) int {
		if x == p.shBase {
			return 0
		}
		off -= escapedLenFast(batch[x-bs : cur-bs])
		cur = x
		return off
	}
	p.shDrop, p.shRel = at(rel), rel
	spans := p.red.Spans()
	p.offs = p.offs[:0]
	for i := len(spans) - 1; i >= 0; i-- {
		lo, hi := int(spans[i].Lo), int(spans[i].Hi)
		if lo < p.shBase || hi > cur || lo < bs && lo != p.shBase {
			return // rb goes through the escaper; the shadow stays in line
		}
		p.offs = append(p.offs, at(hi), at(lo))
	}
	pos, total := 0, 0
	for i, sp := range spans {
		if sp.Out > pos {
			p.plan = append(p.plan, piece{lo: pos, hi: sp.Out})
			total += escapedLen(rb[pos:sp.Out])
		}
		k := 2 * (len(spans) - 1 - i)
		lo, hi := p.offs[k+1], p.offs[k]
		p.plan = append(p.plan, piece{shadow: true, lo: lo, hi: hi})
		total += hi - lo
		pos = sp.Out + int(sp.Hi-sp.Lo)
	}
	if pos < len(rb) {
		p.plan = append(p.plan, piece{lo: pos, hi: len(rb)})
		total += escapedLen(rb[pos:])
	}
	p.planLen = total
}

// writePlan writes rb as shadowSettle planned.
func (p *pass) writePlan(rb []byte) {
	for _, pc := range p.plan {
		if pc.shadow {
			p.em.raw(p.sh[pc.lo:pc.hi])
		} else {
			p.em.escaped(rb[pc.lo:pc.hi])
		}
	}
}

// shadowTake drops the part of the shadow the released text stood for.
func (p *pass) shadowTake() {
	if !p.shOn || p.shDrop < 0 {
		return
	}
	k := copy(p.sh, p.sh[p.shDrop:])
	p.sh = p.sh[:k]
	p.shD -= p.shRel - p.shBase
	p.shBase = p.shRel
	p.plan, p.planLen, p.shDrop = p.plan[:0], -1, -1
}
