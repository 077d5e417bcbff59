package pipeline

import (
	"bytes"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// A mirror candidate's scan, deferred.
//
// A text block of a structured result that is the JSON of its
// structuredContent (a server serializes once and sends both) is replaced,
// when the result closes, by the label and the sanitized structuredContent
// (writeMirroredContent): its own scan is wasted. So the text of a
// candidate that opens like a JSON object or array is held as it was
// decoded (the tap that collects it for the comparison) instead of going
// through the chain. When the result closes, a mirror is written from the
// sanitized value and never scanned; any other candidate is given to the
// chain then, from what was held, in the context its string had (its
// pointer, input offset, member-name context, output count and the
// error-text position), and its output spliced where it stood: the same
// bytes and findings as when it streamed (the findings come later in the
// evidence). Held text is bounded by structured-bytes, as the tap is.
//
// The candidate goes back to streaming, from what was held, as soon as it
// cannot be held: it grows past structured-bytes, it does not open with
// '{' or '[', it ends otherwise than with '}' or ']', or structuredContent
// is already known when it ends and it is not its mirror. A candidate that continues the previous block's text
// (blockjoin.go) is never held. A held candidate's block learns whether
// the text was cut only when the result closes: the place of the block's
// "truncated" label is kept and the label written there then.
//
// What differs from a text that streamed, all at a bound or a failure but
// the first: a held text does not go on into the next block's text (a
// text after it starts on its own); it counts toward the content's
// structured-bytes by its decoded size, not by its sanitized output;
// members after it are bounded by output-bytes without its sanitized size
// counted; a pass that fails inside a held text records no findings of
// that text (a held text that ended is scanned for the evidence of a
// failed pass, the one still open is not); the error text of a
// tool error (kept to classify it) takes it at its place only while it
// stays under its bound.

// deferBegin holds the text of the candidate whose string just began (its
// opening quote and label written) when it may be.
func (p *pass) deferBegin() {
	s := p.sch
	if p.e.noDefer || p.sm != smText || p.joinIn || p.ls.on || p.attr || p.mj.on || p.strSchemaB64 || !s.cand.complete {
		return
	}
	n := len(p.stack)
	if n == 0 || !p.stack[n-1].obj {
		return
	}
	p.shadowOff()
	p.sm = smDefer
	c := &s.cand
	c.deferred = true
	c.dirtyAt = -1
	c.cutAt = -1
	c.opened = false
	c.strStart = p.strStart
	c.counted = p.em.counted
	c.region = p.sRegion
	c.key = string(p.stack[n-1].key)
	c.ptr = p.pointer()
	c.errAt = len(p.errText)
}

// deferFlush takes a full batch (final: the string's last) of a held text
// into the held text, as flushChain would give it to the chain (the clean
// carry included, so the decoder's view of the batch is the same).
func (p *pass) deferFlush(final bool) {
	s := p.sch
	hr := &s.held[s.holdIdx]
	c := &s.cand
	b := p.dbuf
	keep := !p.strDirty && !final && len(b) > 0
	if keep {
		b = b[:len(b)-1]
	}
	if !c.opened {
		for _, x := range b {
			if x == ' ' || x == '\t' || x == '\n' || x == '\r' {
				continue
			}
			if x != '{' && x != '[' {
				p.deferFallback()
				return
			}
			c.opened = true
			break
		}
	}
	if int64(len(hr.rawText)+len(b)) > s.max {
		p.deferFallback()
		return
	}
	if p.strDirty && c.dirtyAt < 0 {
		c.dirtyAt = len(hr.rawText) - c.rawStart
	}
	hr.rawText = append(hr.rawText, b...)
	// The held text counts toward the content's structured-bytes by its
	// decoded size, where the streamed text counted by its output.
	if p.em.side == &hr.content {
		p.em.sideLimit -= len(b)
	}
	if keep {
		p.dbuf = append(p.dbuf[:0], p.dbuf[len(p.dbuf)-1])
	} else {
		p.dbuf = p.dbuf[:0]
	}
}

// deferFallback sends a held text back to streaming: what was held goes
// through the chain (and the tap again) now, in the string's own context.
func (p *pass) deferFallback() {
	s := p.sch
	hr := &s.held[s.holdIdx]
	c := &s.cand
	s.replay = append(append(s.replay[:0], hr.rawText[c.rawStart:]...), p.dbuf...)
	if p.em.side == &hr.content {
		p.em.sideLimit += len(hr.rawText) - c.rawStart
	}
	hr.rawText = hr.rawText[:c.rawStart]
	p.dbuf = p.dbuf[:0]
	p.sm = smText
	c.deferred = false
	p.feedHeld(s.replay, c.dirtyAt, p.strDirty)
}

// feedHeld gives held text to the chain as the lexer gave it: clean up to
// dirtyAt (-1: all of it), dirty from there.
func (p *pass) feedHeld(text []byte, dirtyAt int, dirty bool) {
	if dirtyAt >= 0 {
		p.strDirty = false
		p.appendDecoded(text[:dirtyAt], false)
		p.strDirty = true
		p.appendDecoded(text[dirtyAt:], false)
		return
	}
	p.strDirty = false
	p.appendDecoded(text, false)
	p.strDirty = dirty
}

// deferEnd ends a held text at its closing quote. It reports true when the
// text stays held for the result's end (its closing quote written);
// false when it went back to streaming and the string ends as a text.
func (p *pass) deferEnd() bool {
	s := p.sch
	hr := &s.held[s.holdIdx]
	c := &s.cand
	p.deferFlush(true)
	if p.sm != smDefer {
		return false
	}
	if t := bytes.TrimRight(hr.rawText[c.rawStart:], " \t\n\r"); !c.opened || len(t) == 0 || t[len(t)-1] != '}' && t[len(t)-1] != ']' {
		// Not a JSON object or array: no mirror, scanned now.
		p.deferFallback()
		return false
	}
	if hr.hasStructured && s.hold != holdStructured && !hr.rawOver && !hr.structuredOver {
		// structuredContent came first: compare now, and scan now what is
		// not its mirror.
		if !p.mirrorText(hr, hr.rawText[c.rawStart:], nil, false) {
			p.deferFallback()
			return false
		}
	}
	p.em.byte1('"')
	s.pend = len(hr.cands)
	s.pendDepth = len(p.stack)
	s.pendItem = -1
	if len(p.stack) > 1 {
		s.pendItem = p.stack[len(p.stack)-2].items
	}
	s.endTap(false)
	if len(hr.cands) == s.pend {
		s.pend = -1
	}
	p.errCodeOn = false
	return true
}

// deferLabels runs where a block writes its labels without "truncated": a
// held text of that block keeps the place, for the label its scan may
// call for at the result's end.
func (p *pass) deferLabels() {
	s := p.sch
	if s.pend < 0 || s.hold != holdContent || len(p.stack) != s.pendDepth {
		return
	}
	if s.pendItem >= 0 && (len(p.stack) < 2 || p.stack[len(p.stack)-2].items != s.pendItem) {
		return
	}
	hr := &s.held[s.holdIdx]
	if p.em.target() == &hr.content && s.pend < len(hr.cands) {
		hr.cands[s.pend].cutAt = len(hr.content)
	}
	s.pend = -1
}

// mirrorText reports whether text is the same JSON value as the tool's
// structuredContent (hr.raw); rawV is that value decoded when haveRaw.
func (p *pass) mirrorText(hr *heldResult, text []byte, rawV *any, haveRaw bool) bool {
	rawTrim := bytes.TrimSpace(hr.raw)
	t := bytes.TrimSpace(text)
	if bytes.Equal(t, rawTrim) {
		return true // the same bytes (a server that serialized once)
	}
	if len(t) == 0 || len(rawTrim) == 0 || t[0] != rawTrim[0] && !(isNumStart(t[0]) && isNumStart(rawTrim[0])) {
		return false // another kind of JSON value, or none
	}
	depth := int(p.e.lim[bounds.Depth])
	tv, err := schema.Decode(text, depth)
	if err != nil {
		return false
	}
	var v any
	if rawV == nil {
		rawV = &v
	}
	if !haveRaw {
		if *rawV, err = schema.Decode(hr.raw, depth); err != nil {
			return false
		}
	}
	return jsonEqual(tv, *rawV)
}

// replayHeld writes the held candidate c of hr as the streaming pass would
// have written its string token: the chain runs now over its held text in
// the string's context. It reports whether the text was cut.
func (p *pass) replayHeld(hr *heldResult, c *mirrorCand) (cut bool) {
	c.deferred = false
	// The opening quote and label, written when the string began (not
	// where the content crossed structured-bytes: it was dropped then, and
	// the pass fails).
	if 0 <= c.textStart && c.textStart < c.textEnd && c.textEnd <= len(hr.content) {
		p.em.raw(hr.content[c.textStart : c.textEnd-1])
	}
	sm, role, region, isKey, start := p.sm, p.sRole, p.sRegion, p.isKey, p.strStart
	tap := p.sch.tapOn
	p.sch.tapOn = false
	p.startString(c.strStart)
	p.isKey = false
	p.sRole, p.sRegion = roleText, c.region
	p.sm = smText
	p.b64s.reset()
	p.strSchemaB64 = false
	p.shadowOff()
	p.normFresh = false
	p.red.ResetWithContext([]byte(c.key))
	p.ptrOver = c.ptr
	counted := p.em.counted
	p.em.counted = c.counted
	errEnd := len(p.errText)

	p.feedHeld(hr.rawText[c.rawStart:c.rawEnd], c.dirtyAt, c.dirtyAt >= 0)
	if p.fail == nil {
		p.flushChain(true)
	}
	if p.fail == nil {
		if p.strCut {
			p.truncs++
			p.em.escapedString(p.truncationNote())
		}
		p.em.byte1('"')
		if len(p.errText) > 0 && len(p.errText) < maxErrText {
			p.errText = append(p.errText, '\n')
		}
	}
	if c.errAt < errEnd && errEnd < len(p.errText) {
		// Its text goes where it stood among the texts, not after them.
		rotate(p.errText[c.errAt:], errEnd-c.errAt)
	}
	cut = p.strCut
	p.em.counted = counted + (p.em.counted - c.counted)
	p.ptrOver = ""
	p.sch.tapOn = tap
	p.sm, p.sRole, p.sRegion, p.isKey, p.strStart = sm, role, region, isKey, start
	p.strCut = false
	return cut
}

// rotate turns b left by k: b[k:] then b[:k].
func rotate(b []byte, k int) {
	rev := func(x []byte) {
		for i, j := 0, len(x)-1; i < j; i, j = i+1, j-1 {
			x[i], x[j] = x[j], x[i]
		}
	}
	rev(b[:k])
	rev(b[k:])
	rev(b)
}

// truncatedLabel is what writeBlockLabels adds for a cut text.
func truncatedLabel() string { return `,"` + MetaPrefix + `truncated":true` }

// writeHeldContent writes the held content of hr: every held candidate
// scanned now, a mirror (mirror[i]) replaced by the label and js, the
// rest as it was held. It reports whether a held candidate that would
// have been a mirror had it streamed turned out not cut (see
// writeMirroredContent), and fails the pass on a fault.
func (p *pass) writeHeldContent(hr *heldResult, mirror []bool, js []byte) (demotedWhole bool) {
	pos := 0
	for i := range hr.cands {
		c := &hr.cands[i]
		if !mirror[i] && !c.deferred {
			continue
		}
		p.em.raw(hr.content[pos:c.textStart])
		pos = c.textEnd
		if mirror[i] {
			if !bytes.Equal(hr.rawText[c.rawStart:c.rawEnd], js) {
				p.sch.changed = true
			}
			p.em.byte1('"')
			p.em.escapedString(p.label)
			p.em.escaped(js)
			p.em.byte1('"')
			// The replaced text was counted when held; the new one is
			// counted as written, so take the old one out.
			p.em.counted -= int64(c.textEnd - c.textStart)
			c.deferred = false
			continue
		}
		demoted := c.demoted
		cut := p.replayHeld(hr, c)
		if p.fail != nil {
			return false
		}
		if demoted && !cut {
			demotedWhole = true
		}
		if cut && c.cutAt >= 0 {
			// The block's "truncated" label, where writeBlockLabels would
			// have put it.
			p.em.raw(hr.content[pos:c.cutAt])
			pos = c.cutAt
			p.em.rawString(truncatedLabel())
		}
	}
	p.em.raw(hr.content[pos:])
	return demotedWhole
}

// drainHeld gives every candidate of hr still held to the chain, its
// output discarded: on a path that fails, so the evidence holds its
// findings as when it streamed.
func (p *pass) drainHeld(hr *heldResult) {
	any := false
	for i := range hr.cands {
		any = any || hr.cands[i].deferred
	}
	if !any {
		return
	}
	fail := p.fail
	p.fail = nil
	s := p.sch
	s.drain = s.drain[:0]
	p.em.pushSide(&s.drain, int(s.max))
	counted := p.em.counted
	for i := range hr.cands {
		if c := &hr.cands[i]; c.deferred {
			p.replayHeld(hr, c)
			p.fail = nil
		}
	}
	p.em.popSide()
	p.em.counted = counted
	p.fail = fail
}

// drainAllHeld scans what is still held of every result when the pass
// failed before they closed, for the evidence.
func (p *pass) drainAllHeld() {
	for i := range p.sch.held {
		p.drainHeld(&p.sch.held[i])
	}
}
