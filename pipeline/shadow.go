package pipeline

// The escaped shadow of a text string.
//
// Text written out goes through three stages after it is decoded: the
// normalizer, the redactor and the JSON escaper. For almost all text the
// first two change nothing, and the escaper then only rebuilds escapes
// the decoding has just undone: a fifth of the pass on code and JSON-in-text,
// whose strings hold a backslash every 10-20 bytes.
//
// So while the chain decodes a text string it also writes the shadow: the
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
func (c *chain) shadowStart() {
	c.sh = c.sh[:0]
	c.shD, c.shBase = 0, 0
	c.planLen, c.shDrop = -1, -1
	c.shOn = !c.noShadow
}

// shadowOff ends the shadow for the rest of the current string.
func (c *chain) shadowOff() {
	c.shOn = false
	c.planLen, c.shDrop = -1, -1
	c.sh = c.sh[:0]
	c.shD = 0
}

// shadowAdd adds decoded text that took the lexer's general path (plain:
// it holds no byte that needs escaping).
func (c *chain) shadowAdd(d []byte, plain bool) {
	if !c.shOn {
		return
	}
	if plain {
		c.sh = append(c.sh, d...)
	} else {
		c.sh = appendEscaped(c.sh, d)
	}
	c.shD += len(d)
}

// shadowByte adds one decoded byte.
func (c *chain) shadowByte(b byte) {
	if escTable[b] {
		c.sh = appendEscByte(c.sh, b)
	} else {
		c.sh = append(c.sh, b)
	}
	c.shD++
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
func (c *chain) shadowSettle(batch, rb []byte, final bool) {
	c.plan, c.planLen, c.shDrop = c.plan[:0], -1, -1
	if c.strDirty && c.norm.Changed() {
		c.shadowOff()
		return
	}
	end := c.shBase + c.shD // decoded offset after the last byte lexed
	bs := end - len(batch)  // decoded offset of batch[0]
	rel := end              // at the end of the string everything is released
	if !final {
		rel = int(c.red.Released())
	}
	if rel < c.shBase || rel > end || bs < 0 {
		// What cannot happen: never write what is not understood.
		c.shadowOff()
		return
	}
	if spans := c.red.Spans(); final && bs == c.shBase && !c.joinIn && len(spans) == 1 &&
		int(spans[0].Lo) == bs && int(spans[0].Hi) == end && spans[0].Out == 0 && len(rb) == end-bs {
		// The string's last batch is the whole shadow and the redactor
		// released it as it was (most strings): the shadow is written
		// whole, as the general plan below would write it.
		c.shDrop, c.shRel = len(c.sh), rel
		c.planFrom = 0
		c.plan = append(c.plan, piece{shadow: true, lo: 0, hi: len(c.sh)})
		c.planLen = len(c.sh)
		return
	}
	// The shadow holds the escaped form of the decoded bytes shBase..end.
	// An offset in the batch is located by counting back from the end of
	// the shadow over the batch's decoded bytes; one before the batch (text
	// the normalizer or the redactor held back across the batch boundary,
	// such as a PEM block of the whole hold) by walking the shadow from its
	// start, where each escape stands for one decoded byte. The offsets are
	// asked for in decreasing order.
	loc := shadowLoc{cur: end, off: len(c.sh), bs: bs, base: c.shBase}
	at := func(x int) int { return loc.at(x, batch, c.sh) }
	c.shDrop, c.shRel = at(rel), rel
	if c.shDrop < 0 {
		c.shadowOff() // the shadow does not match the text: never write it
		return
	}
	spans := c.red.Spans()
	c.planFrom = 0
	if c.joinIn {
		// The string goes on with held texts (blockjoin.go): the plan is
		// made for its own part of rb, after theirs.
		spans, rb = c.joinPlanSpans(spans, rb)
	}
	c.offs = c.offs[:0]
	for i := len(spans) - 1; i >= 0; i-- {
		lo, hi := int(spans[i].Lo), int(spans[i].Hi)
		if lo < c.shBase || lo > hi || hi > loc.cur {
			// Spans out of order or outside the released text: what
			// cannot happen. rb goes through the escaper; the shadow
			// stays in line.
			return
		}
		c.offs = append(c.offs, at(hi), at(lo))
	}
	for _, o := range c.offs {
		if o < 0 || o > len(c.sh) {
			c.shadowOff() // the shadow does not match the text: never write it
			return
		}
	}
	pos, total := 0, 0
	for i, sp := range spans {
		if sp.Out > pos {
			c.plan = append(c.plan, piece{lo: pos, hi: sp.Out})
			total += escapedLen(rb[pos:sp.Out])
		}
		k := 2 * (len(spans) - 1 - i)
		lo, hi := c.offs[k+1], c.offs[k]
		c.plan = append(c.plan, piece{shadow: true, lo: lo, hi: hi})
		total += hi - lo
		pos = sp.Out + int(sp.Hi-sp.Lo)
	}
	if pos < len(rb) {
		c.plan = append(c.plan, piece{lo: pos, hi: len(rb)})
		total += escapedLen(rb[pos:])
	}
	c.planLen = total
}

// shadowLoc locates decoded offsets, asked for in decreasing order, in the
// shadow (shadowSettle).
type shadowLoc struct {
	cur, off int // the last offset located, and its place in the shadow
	bs, base int // the decoded offsets of the batch's and the shadow's start
	walked   bool
}

// at returns the place of x in the shadow sh, counting back over batch
// while x is in it.
func (l *shadowLoc) at(x int, batch, sh []byte) int {
	if x >= l.bs && x != l.base && !l.walked {
		l.off -= escapedLenFast(batch[x-l.bs : l.cur-l.bs])
		l.cur = x
		return l.off
	}
	return l.slow(x, sh)
}

func (l *shadowLoc) slow(x int, sh []byte) int {
	if x == l.base {
		l.off = 0
	} else {
		l.off = shadowWalk(sh, x-l.base)
		l.walked = true
	}
	l.cur = x
	return l.off
}

// shadowWalk returns the offset in the escaped shadow sh of the decoded
// byte k (counted from the shadow's start), or -1 when sh is shorter. The
// shadow writes each decoded byte as itself or as one escape (\" \\ \n \r
// \t, \u00XX): a byte that is not a backslash stands for itself.
func shadowWalk(sh []byte, k int) int {
	i := 0
	for ; k > 0 && i < len(sh); k-- {
		if sh[i] != '\\' {
			i++
		} else if i+1 < len(sh) && sh[i+1] == 'u' {
			i += 6
		} else {
			i += 2
		}
	}
	if k > 0 || i > len(sh) {
		return -1
	}
	return i
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
func (c *chain) shadowTake() {
	if !c.shOn || c.shDrop < 0 {
		return
	}
	k := copy(c.sh, c.sh[c.shDrop:])
	c.sh = c.sh[:k]
	c.shD -= c.shRel - c.shBase
	c.shBase = c.shRel
	c.plan, c.planLen, c.shDrop = c.plan[:0], -1, -1
}
