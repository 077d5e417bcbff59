package pipeline

import (
	"encoding/binary"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"strconv"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// decodeFlushAt is how much decoded text collects before it goes through
// the normalizer and redactor, so escapes and short runs do not cost a call
// each.
const decodeFlushAt = 32 << 10

func (p *pass) startString(off int64) {
	p.strStart = off
	p.strChars = 0
	p.strCut = false
	p.strDirty = false
	p.strFresh = true
	p.keyPlain = false
	p.shOn = false
	p.batches = 0
	p.joinIn, p.valBase, p.redFed = false, 0, 0
	p.dbuf = p.dbuf[:0]
	p.ls.reset()
}

func (p *pass) beginKey(off int64) {
	top := &p.stack[len(p.stack)-1]
	p.startString(off)
	p.isKey = true
	p.shapeHit, p.shapeRec, p.shapeEnt, p.keyMemo = nil, false, nil, false
	if top.skip {
		p.sm = smSkip
		p.nameCtx = false
		return
	}
	p.sm = smKey
	p.keyBuf = p.keyBuf[:0]
	p.sRole = roleGeneric
	p.sRegion = top.region
	p.normFresh = false
	p.red.Reset()
	p.ev.Strings++
}

func (p *pass) beginValueString(nx next, off int64) {
	p.startString(off)
	p.b64s.reset() // a key's text is never base64-bounded
	p.strSchemaB64 = false
	p.isKey = false
	p.sRole = nx.role
	p.sRegion = nx.region
	if nx.drop {
		p.sm = smSkip
		return
	}
	p.ev.Strings++
	if nx.role == roleText && p.sch != nil && p.sch.hold == holdContent {
		p.sch.beginTap() // before the quote: the candidate spans the token
	}
	p.em.byte1('"')
	if nx.role == roleBinary {
		p.binValueStart(off)
		return
	}
	if nx.role == roleResURI {
		p.binURIStart()
	}
	p.sm = smText
	if p.mj.on && nx.region == regionMeta {
		p.metaJoinBegin()
	}
	p.schemaBase64Start()
	p.shadowStart()
	p.normFresh = false
	if n := len(p.stack); n > 0 && p.stack[n-1].obj {
		// A member's value: its sanitized key is the context of the
		// name-based rules (scanners.Redactor.ResetWithContext).
		if nx.role != roleText || !p.joinContinue() {
			p.resetForValue(p.stack[n-1].key) // shapememo.go
		}
	} else {
		p.red.Reset()
	}
	if nx.role == roleEnvelopeID {
		p.envID, p.envIDStr = p.envID[:0], true
	}
	if nx.role == roleMime || nx.role == roleBlockType || nx.role == roleEnvelopeVersion {
		p.mimeBuf = p.mimeBuf[:0]
	}
	if nx.role == roleErrCode {
		p.errCodeOn = true
		p.errCode = p.errCode[:0]
	}
	if (nx.role == roleText || nx.role == roleResText) && p.label != "" {
		p.em.escapedString(p.label)
	}
	if p.sch != nil && p.sch.tapOn {
		p.deferBegin()
	}
}

// appendDecoded collects decoded string content (plain: holding no byte
// that needs escaping). It coordinates: the chain collects (chain.fill), the
// pass flushes each full batch and checks base64 against the output budget.
func (p *pass) appendDecoded(d []byte, plain bool) {
	switch p.sm {
	case smSkip:
		return
	case smBinary:
		p.base64(d)
		return
	case smBlobText:
		p.blobText(d)
		return
	}
	for len(d) > 0 && !p.strCut && p.fail == nil {
		var full bool
		if d, full = p.fill(d, plain); !full {
			return
		}
		p.flushChain(false)
	}
}

// fill adds decoded text to the batch and its shadow. When the batch fills
// up, it returns the rest of d and full; the batch then goes through the
// chain before the rest is added.
func (c *chain) fill(d []byte, plain bool) (rest []byte, full bool) {
	room := decodeFlushAt - len(c.dbuf)
	if len(d) < room {
		c.shadowAdd(d, plain)
		c.dbuf = append(c.dbuf, d...)
		return nil, false
	}
	// Fill the batch exactly (to a rune boundary), so batches, and so
	// everything counted per batch, do not depend on how reads split the
	// input.
	k := room
	for k > 0 && k < len(d) && d[k]&0xC0 == 0x80 {
		k--
	}
	if k == 0 {
		k = room
		for k < len(d) && d[k]&0xC0 == 0x80 {
			k++
		}
	}
	c.shadowAdd(d[:k], plain)
	c.dbuf = append(c.dbuf, d[:k]...)
	return d[k:], true
}

// flushChain runs collected text through normalization and redaction and
// writes what is final. It coordinates: the chain computes the text
// (chain.runBatch); the pass feeds the structured hold's tap, records the
// evidence and applies the bounds as it writes (sink).
func (p *pass) flushChain(final bool) {
	if p.sm == smDefer {
		p.deferFlush(final) // held unscanned (structured_defer.go)
		return
	}
	if p.bj.red != nil {
		p.joinCheck()
	}
	p.batches++
	if p.sch != nil && p.sch.tapOn {
		if !p.strDirty && !final && len(p.dbuf) > 0 {
			p.sch.tap(p.dbuf[:len(p.dbuf)-1]) // the last byte opens the next batch
		} else {
			p.sch.tap(p.dbuf)
		}
	}
	p.runBatch(final)
	rb, fs := p.rbuf, p.fs
	if p.sch != nil && p.sch.hold == holdStructured {
		p.sameBatch(len(fs))
	}
	if final && p.strDirty {
		p.recordNorm(p.norm.Stats())
	}
	if p.joinIn {
		// The string goes on with held texts: what is theirs goes to them.
		rb = p.joinSplit(p.red, rb, fs, final && !p.joinOut, true)
		if p.fail == nil {
			p.sink(rb)
		}
		p.shadowTake()
		return
	}
	for i := range fs {
		p.recordFinding(&fs[i])
	}
	if p.fail == nil {
		p.sinkLast = final
		p.sink(rb)
		p.sinkLast = false
	}
	p.shadowTake()
}

// runBatch sends the collected batch through the normalizer and the
// redactor (final: the string ends with it) and plans how the shadow writes
// the result. The text that is final is left in rbuf, the redactor's
// findings in it in fs; both stay valid until the next batch.
func (c *chain) runBatch(final bool) {
	batch := c.dbuf
	var nb []byte
	carry := false
	switch {
	case !c.strDirty && final:
		// Everything so far is printable ASCII (tab, newline and carriage
		// return included): nothing to strip, and NFKC leaves it as it is.
		nb = c.dbuf
		c.dbuf = c.nbuf[:0]
		c.nbuf = nb
	case !c.strDirty && len(c.dbuf) > 0:
		// The same, but later text may still combine with the last
		// character, so it stays behind to open the next batch, exactly as
		// the normalizer would carry it (for ASCII its carry is the last
		// character).
		nb = c.dbuf[:len(c.dbuf)-1]
		carry = true
	default:
		if c.ls.on && !c.isKey && !c.ls.normOn {
			c.ls.normOn, c.ls.normBase = true, c.ls.fed
		}
		if !c.normFresh {
			// Reset where the string first needs the normalizer: most
			// strings are clean ASCII and never do.
			c.norm.Reset()
			c.normFresh = true
		}
		nb = c.norm.Append(c.nbuf[:0], c.dbuf, final)
		c.nbuf = nb
		c.dbuf = c.dbuf[:0]
	}
	if !c.strDirty {
		c.red.HintASCII()
	}
	// The redactor's string ends with this one's, unless it goes on into
	// the next block's text (blockjoin.go); the normalizer's always does.
	redFinal := final && !c.joinOut
	rb, fs := c.red.Append(c.rbuf[:0], nb, redFinal, c.fs[:0])
	c.rbuf, c.fs = rb, fs
	c.redFed += int64(len(nb))
	if c.ls.on && !c.isKey {
		c.ls.fed += int64(len(nb))
		if lb, own := c.losslessBatch(rb, redFinal); own {
			// Written from the lossless buffer; the redactor writes into
			// the other one next time.
			c.rbuf, c.ls.out = lb, rb[:0]
		}
		if !final {
			c.losslessTrim()
		}
	}
	if carry {
		last := c.dbuf[len(c.dbuf)-1]
		c.dbuf = append(c.dbuf[:0], last)
	}
	if c.shOn {
		c.shadowSettle(batch, rb, redFinal)
	}
}

// recordNorm adds what the normalizer did to a string to the evidence.
func (p *pass) recordNorm(st scanners.NormStats) {
	for c, n := range st.Removed {
		if n > 0 {
			if p.ev.Removed == nil {
				p.ev.Removed = map[string]int64{}
			}
			p.ev.Removed[scanners.NormClass(c).String()] += n
		}
	}
	p.ev.ConfusablesFolded += st.Folded
	p.ev.EscapesDecoded += st.Unescaped
	if st.NFKCChanged {
		p.ev.NFKCChanged++
	}
	if p.attr {
		p.recordNormAt(st)
	}
}

// sink applies the character and output bounds to final text and writes it.
func (p *pass) sink(r []byte) {
	if len(r) == 0 || p.strCut {
		return
	}
	if p.sm == smBlobText {
		p.blobEncode(r)
		return
	}
	if p.sm == smKey {
		// A key has no more characters than bytes: its runes are counted
		// only when its bytes are over the bound (and a key that is not
		// dirty is ASCII: its runes are its bytes).
		if nk := int64(len(p.keyBuf) + len(r)); p.e.lim.Over(bounds.KeyChars, nk) &&
			(!p.strDirty || p.e.lim.Over(bounds.KeyChars, countRunes(p.keyBuf)+countRunes(r))) {
			p.failf(CodeBoundExceeded, string(wire.ReasonKeyChars), p.strStart)
			return
		}
		p.keyBuf = append(p.keyBuf, r...)
		return
	}
	b := bounds.StringChars
	if p.sRole == roleText || p.sRole == roleResText {
		b = bounds.TextChars
	}
	chunk := r
	// A string that is not dirty holds printable ASCII only, and every
	// marker the redactor puts in is ASCII (scanners checks its alphabet):
	// its runes are its bytes.
	n := int64(len(chunk))
	if p.strDirty {
		n = countRunes(chunk)
	}
	rem := p.e.lim.Remaining(b, p.strChars)
	if b == bounds.StringChars && !p.b64s.no && (n > rem || !p.sinkLast || p.strSchemaB64) {
		// Whether the string is base64 is asked only where it crosses
		// string-chars (binaryBound) and at the end of one declared base64
		// or bounded as binary (base64StringEnd): the last chunk of a
		// string that stays under the bound needs no scan.
		p.b64s.scan(chunk)
	}
	if n > rem && !p.binaryBound(b, n) {
		if p.fail != nil || !p.cut(b) {
			return
		}
		k, c := cutRunes(chunk, rem)
		chunk, n = chunk[:k], c
	}
	if p.planLen >= 0 && len(chunk) == len(r) && p.em.counted+int64(p.planLen) <= p.outBudget {
		// Text as it was decoded is written from the escaped shadow.
		p.writePlan(chunk)
	} else {
		if p.planLen >= 0 {
			p.shadowOff() // cut: the rest of the string is dropped
		}
		if p.em.counted+2*int64(len(chunk)) > p.outBudget && p.em.counted+int64(escapedLen(chunk)) > p.outBudget {
			if !p.cut(bounds.OutputBytes) {
				return
			}
			p.exhausted = true
			chunk = fitEscaped(chunk, p.outBudget-p.em.counted)
			n = countRunes(chunk)
		}
		p.em.escaped(chunk)
	}
	p.strChars += n
	if (p.sRole == roleMime || p.sRole == roleBlockType || p.sRole == roleEnvelopeVersion) && len(p.mimeBuf)+len(chunk) <= 256 {
		p.mimeBuf = append(p.mimeBuf, chunk...)
	}
	if p.sRole == roleEnvelopeID && len(p.envID) <= maxEnvelopeID {
		p.envID = append(p.envID, chunk...)
	}
	if b == bounds.TextChars && len(p.errText) < maxErrText {
		p.errText = append(p.errText, chunk[:min(len(chunk), maxErrText-len(p.errText))]...)
	}
	if p.errCodeOn && len(p.errCode) <= maxErrCode {
		p.errCode = append(p.errCode, chunk[:min(len(chunk), maxErrCode+1-len(p.errCode))]...)
	}
}

// cut records a crossed bound on the current string. It reports whether the
// string may be truncated (false: the pass failed under a reject action).
func (p *pass) cut(b bounds.Bound) bool {
	if b.Crossing() == bounds.Reject || p.regionAction(p.sRegion) == ActionReject {
		p.failf(CodeBoundExceeded, b.String(), p.strStart)
		return false
	}
	p.strCut = true
	p.recordBound(b, ActionTruncate)
	if len(p.stack) > 0 {
		p.stack[len(p.stack)-1].cut = true
	}
	return true
}

// fitEscaped returns the longest prefix of s, ending on a rune boundary,
// whose escaped form fits in room bytes.
func fitEscaped(s []byte, room int64) []byte {
	if room <= 0 {
		return s[:0]
	}
	used := int64(0)
	i := 0
	for i < len(s) {
		c := s[i]
		w := int64(1)
		size := 1
		if escTable[c] {
			w = int64(escapedLen(s[i : i+1]))
		} else if c >= 0x80 {
			size = runeLen(c)
			w = int64(size)
		}
		if used+w > room || i+size > len(s) {
			break
		}
		used += w
		i += size
	}
	return s[:i]
}

func runeLen(lead byte) int {
	switch {
	case lead >= 0xF0:
		return 4
	case lead >= 0xE0:
		return 3
	case lead >= 0xC0:
		return 2
	}
	return 1
}

var b64ok = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = true
	}
	return t
}()

// b64Word reports whether the eight bytes of the little-endian word w are
// all b64ok, in eight lanes at once. For a byte x below 0x80, x+(0x80-c)
// has its high bit set exactly when x >= c, without a carry out of the
// lane: letters are x|0x20 in 'a'..'z', '/' and the digits x in
// '/'..'9', and '+' the one byte whose XOR with '+' is zero.
func b64Word(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	if w&hi != 0 {
		return false
	}
	l := w | lo*0x20
	letters := (l + lo*(0x80-'a')) &^ (l + lo*(0x80-'z'-1))
	digits := (w + lo*(0x80-'/')) &^ (w + lo*(0x80-'9'-1))
	plus := ^((w ^ lo*'+') + lo*0x7f)
	return (letters|digits|plus)&hi == hi
}

// base64 copies base64 data through once the chain has checked it
// (chain.checkBase64): binary payloads are not text and are not scanned.
func (p *pass) base64(d []byte) {
	if p.bw.level != 0 {
		if k := p.binSplit(len(d)); k < len(d) {
			// The head check or the hold bound falls inside d: the bytes
			// before it first, so faults come in input order.
			if p.base64(d[:k]); p.fail == nil {
				p.base64(d[k:])
			}
			return
		}
	}
	if code, reason := p.checkBase64(d, p.e.lim[bounds.BinaryBytes]); code != "" {
		p.failf(code, reason, p.strStart)
		return
	}
	if p.bw.level != 0 {
		p.binData(d)
		return
	}
	if p.em.counted+int64(len(d)) > p.outBudget {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), p.strStart)
		return
	}
	p.em.raw(d)
}

// checkBase64 checks the next bytes of base64 data (standard alphabet,
// padded, no whitespace) under lim, the binary bound in decoded bytes. It
// returns the code and reason of the first fault, or an empty code.
func (c *chain) checkBase64(d []byte, lim int64) (Code, string) {
	// Bytes up to the one that crosses the bound are checked in order, so
	// which failure comes first does not depend on how reads split the input.
	// maxChars is the longest payload whose decoded size stays in the
	// bound; the byte after it is still checked for validity first.
	room := int64(len(d))
	crossed := false
	if maxChars := (lim/3+1)*4 - 1; c.b64n+room > maxChars {
		room = maxChars - c.b64n + 1
		crossed = true
	}
	i := 0
	if c.b64pad == 0 {
		for i+8 <= int(room) && b64Word(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < int(room) && b64ok[d[i]] {
			i++
		}
	}
	for ; i < int(room); i++ {
		switch b := d[i]; {
		case b == '=':
			c.b64pad++
			if c.b64pad > 2 {
				return CodeInvalidContent, string(wire.ReasonBadBase64)
			}
		case c.b64pad > 0 || !b64ok[b]:
			return CodeInvalidContent, string(wire.ReasonBadBase64)
		}
	}
	c.b64n += room
	if crossed {
		return CodeBoundExceeded, bounds.BinaryBytes.String()
	}
	return "", ""
}

// base64Complete reports whether the base64 data read so far ends a whole
// quantum (its length a multiple of 4).
func (c *chain) base64Complete() bool { return c.b64n%4 == 0 }

// endString finishes a string at the closing quote at input offset off.
func (p *pass) endString(off int64) {
	if p.isKey {
		if p.sm == smKey {
			p.flushChain(true)
			if p.fail != nil {
				return
			}
		}
		p.keyDone(off)
		return
	}
	if p.sm == smDefer && p.deferEnd() {
		p.valueDone() // held for the result's end (structured_defer.go)
		return
	}
	switch p.sm {
	case smSkip:
	case smBinary:
		if !p.base64Complete() {
			p.failf(CodeInvalidContent, string(wire.ReasonBadBase64), p.strStart)
			return
		}
		p.em.byte1('"')
		if len(p.stack) > 0 {
			p.stack[len(p.stack)-1].binary = true
		}
		p.binValueEnd()
	case smBlobText:
		p.endBlobText()
	case smText:
		join := p.sRole == roleText && p.joinCan()
		p.joinOut = join
		p.flushChain(true)
		p.joinOut = false
		if p.fail != nil || !p.textEnd(join) {
			return
		}
	}
	p.valueDone()
}

// textEnd finishes a text string after its last batch went through the
// chain (join: it goes on into the next block's text): the held join, the
// base64 checks, the truncation note, the closing quote and what its role
// keeps. It reports false when the pass failed.
func (p *pass) textEnd(join bool) bool {
	if join {
		p.joinHold() // before the truncation note and the closing quote
		if p.fail != nil {
			return false
		}
	}
	if p.strSchemaB64 {
		p.schemaBase64End()
	} else if p.b64s.bin {
		p.base64StringEnd()
	}
	if p.fail != nil {
		return false
	}
	if p.strCut {
		p.truncs++
		p.em.escapedString(p.truncationNote())
	}
	if p.mj.on {
		p.metaJoinEnd()
	}
	p.em.byte1('"')
	if p.sRole == roleEnvelopeID {
		p.envIDOK = len(p.envID) <= maxEnvelopeID && !p.strCut
	}
	if p.sch != nil && p.sch.tapOn {
		p.sch.endTap(p.strCut)
	}
	if (p.sRole == roleText || p.sRole == roleResText) && len(p.errText) > 0 && len(p.errText) < maxErrText {
		p.errText = append(p.errText, '\n')
	}
	p.errCodeOn = false
	if p.sRole == roleMime && len(p.stack) > 0 {
		f := &p.stack[len(p.stack)-1]
		f.mimeState = -1
		if p.mimeAllowed(p.mimeBuf) {
			f.mimeState = 1
		}
		p.binMime()
	}
	if p.sRole == roleBlockType {
		p.binTypeDone()
		p.joinType()
	}
	if p.sRole == roleEnvelopeVersion {
		p.envelopeVersion()
	}
	if p.sRole == roleResURI {
		p.binURIEnd()
	}
	return true
}

// truncationNote is the note appended to a string that was cut.
func (c *chain) truncationNote() string {
	if c.sRole == roleText || c.sRole == roleResText {
		return "\n[OUTPUT_TRUNCATED: this text was cut at " + strconv.FormatInt(c.strChars, 10) +
			" characters. Narrow the request (a smaller range, a filter or a page size) to see the rest.]"
	}
	return "…[OUTPUT_TRUNCATED]"
}

// mimeAllowed checks a media type against the allow-list, ignoring case and
// parameters.
func (p *pass) mimeAllowed(m []byte) bool {
	for i, c := range m {
		if c == ';' {
			m = m[:i]
			break
		}
	}
	var low [256]byte
	n := 0
	for _, c := range m {
		if c == ' ' || c == '\t' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if n == len(low) {
			return false
		}
		low[n] = c
		n++
	}
	return p.e.mime[string(low[:n])]
}

func (p *pass) recordFinding(f *scanners.Finding) {
	if f.Suppressed {
		p.recordSuppressed(f)
		return
	}
	name := p.e.cat.RuleName(f.Rule)
	if p.ev.Rules == nil {
		p.ev.Rules = map[string]int64{}
	}
	p.ev.Rules[name]++
	if f.Kind != scanners.KindTag {
		p.secrets++
	}
	if len(p.ev.Findings) >= p.e.pol.MaxFindings {
		p.ev.FindingsCut++
		return
	}
	kind := "secret"
	if f.Kind == scanners.KindTag {
		kind = "tag"
	}
	cs := ""
	switch f.Checksum {
	case scanners.ChecksumValid:
		cs = "valid"
	case scanners.ChecksumInvalid:
		cs = "invalid"
	}
	p.ev.Findings = append(p.ev.Findings, FindingRecord{
		Rule:        name,
		Kind:        kind,
		Pointer:     p.pointer(),
		InKey:       p.sm == smKey,
		InputOffset: p.strStart,
		Offset:      f.Offset,
		Length:      f.Length,
		Checksum:    cs,
		Encoding:    f.Encoding.String(),
		Fingerprint: hexFP(f.Fingerprint),
	})
}

const maxBoundHits = 64

func (p *pass) recordBound(b bounds.Bound, a Action) {
	name := b.String()
	ptr := p.pointer()
	for i := range p.ev.Bounds {
		h := &p.ev.Bounds[i]
		if h.Bound == name && h.Pointer == ptr {
			h.Count++
			return
		}
	}
	if len(p.ev.Bounds) >= maxBoundHits {
		return
	}
	p.ev.Bounds = append(p.ev.Bounds, BoundHit{Bound: name, Action: string(a), Pointer: ptr, Count: 1})
}
