package pipeline

import (
	"encoding/json"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"math/big"
	"sort"
	"strconv"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// This file holds the structured path: a tool result whose tool declares an
// outputSchema (MessageInfo.OutputSchema). The members "content" and
// "structuredContent" of the result are sanitized by the normal chain but
// held instead of written; the raw bytes of structuredContent are held too.
// When the result object closes, structuredContent is decoded, validated
// (the tool's raw value, then the sanitized one), projected, validated
// again and written, and every text block that mirrored it is regenerated
// from what was written; a text that may mirror it is held unscanned until
// then (structured_defer.go). Everything held is bounded by
// structured-bytes.

// holdKind names a result member held until the result closes.
type holdKind uint8

const (
	holdNone holdKind = iota
	holdContent
	holdStructured
)

// mirrorCand is a content text whose decoded raw text was collected, so it
// can be compared with structuredContent when the result closes.
type mirrorCand struct {
	textStart, textEnd int // the string token (quotes included) in heldResult.content
	rawStart, rawEnd   int // its decoded raw text in heldResult.rawText
	complete           bool

	// A text held unscanned (structured_defer.go): its token in content
	// is the opening quote, the label and the closing quote; what its
	// scan needs of the string's context is kept here.
	deferred bool
	opened   bool   // its first byte other than whitespace was '{' or '['
	demoted  bool   // a mirror whose regenerated text would be cut, scanned instead
	dirtyAt  int    // where in its text the string turned dirty; -1: never
	cutAt    int    // where in content its block's "truncated" label goes; -1: nowhere
	errAt    int    // where its text goes in errText
	strStart int64  // its string's input offset
	counted  int64  // the output count after its label
	region   region // its region
	key      string // its member name (the redactor's context)
	ptr      string // its pointer
}

// heldResult is what is held for one result-shaped object: index 0 is the
// top-level object, index 1 the "result" of a JSON-RPC envelope.
type heldResult struct {
	content, structured []byte
	hasContent          bool
	hasStructured       bool
	contentOver         bool // content crossed structured-bytes
	structuredOver      bool
	raw                 []byte // raw input bytes of structuredContent
	rawOver             bool
	cands               []mirrorCand
	rawText             []byte
}

func (h *heldResult) reset() {
	h.content, h.structured, h.raw, h.rawText = h.content[:0], h.structured[:0], h.raw[:0], h.rawText[:0]
	h.cands = h.cands[:0]
	h.hasContent, h.hasStructured = false, false
	h.contentOver, h.structuredOver, h.rawOver = false, false, false
}

// schemaPass is the per-pass state of the structured path; a pass has one
// only while its message declares an outputSchema.
type schemaPass struct {
	s      *schema.Schema
	digest string
	max    int64 // structured-bytes
	held   [2]heldResult

	hold      holdKind // member being held, or holdNone
	holdIdx   int      // index in held of the result that owns it
	holdDepth int      // len(p.stack) of that result while its member is open

	rawOn   bool // raw bytes of structuredContent are being captured
	rawFrom int  // index in the current chunk from which to capture

	tapOn bool // the current string is a mirror candidate
	cand  mirrorCand

	scSame bool     // no key or string of structuredContent changed (structured_same.go)
	scSnap [3]int64 // the counters sameEnd compares

	// held texts (structured_defer.go)
	replay    []byte // a held text going back to the chain
	drain     []byte // discarded output of held texts scanned on a failure
	pend      int    // index in cands of a held text whose block is open; -1: none
	pendDepth int    // len(p.stack) inside that block
	pendItem  int64  // the content array's item count then
	mirrorBuf []bool

	rec     SchemaRecord
	changed bool   // projection dropped members or a mirror text changed
	out     []byte // serialized projection
	tmpA    []byte // sanitizing scratch
	tmpB    []byte
	path    []schema.Step  // location of a string, for BinaryAt (structured_base64.go)
	scratch schema.Scratch // BinaryAt's buffers
}

func (s *schemaPass) reset(sch *schema.Schema, max int64) {
	s.s = sch
	s.digest = sch.Digest()
	s.max = max
	for i := range s.held {
		s.held[i].reset()
	}
	s.hold, s.rawOn, s.tapOn, s.changed = holdNone, false, false, false
	s.pend = -1
	s.rec = SchemaRecord{Digest: s.digest}
}

// maxHeldCands bounds the mirror candidates of one result (text blocks
// beyond it are kept as text, not compared).
const maxHeldCands = 1024

// The hold's state transitions below are the schemaPass's own: they take
// what they need from the pass as arguments (the stack depth, the chunk,
// whether the emitter's side buffer overflowed, whether the string was
// cut). Pushing and popping the emitter's side buffer is the pass's part.

// beginHold starts holding the value of member h of the result at stack
// depth depth (the result is the top frame). It returns the buffer the
// emitter writes the member to until endHold.
func (s *schemaPass) beginHold(h holdKind, depth int) *[]byte {
	idx := depth - 1
	hr := &s.held[idx]
	s.hold, s.holdIdx, s.holdDepth = h, idx, depth
	buf := &hr.content
	if h == holdStructured {
		buf = &hr.structured
		hr.hasStructured = true
	} else {
		hr.hasContent = true
	}
	*buf = (*buf)[:0]
	return buf
}

// beginHold starts holding the value of member h of the top frame, writing
// it to the hold's buffer.
func (p *pass) beginHold(h holdKind) {
	p.em.pushSide(p.sch.beginHold(h, len(p.stack)), int(p.sch.max))
	if h == holdStructured {
		p.sameBegin()
	}
}

// endHold ends the held member at chunk index i of b (the separator or
// close that follows it); over says the emitter's side buffer crossed
// structured-bytes.
func (s *schemaPass) endHold(b []byte, i int, over bool) {
	hr := &s.held[s.holdIdx]
	if s.hold == holdStructured {
		hr.structuredOver = over
		if s.rawOn {
			s.appendRaw(b[s.rawFrom:i])
			s.rawOn = false
		}
	} else {
		hr.contentOver = over
	}
	s.hold = holdNone
}

// holdEndsAt reports whether a separator or close at stack depth depth
// ends the held member.
func (s *schemaPass) holdEndsAt(depth int) bool {
	return s.hold != holdNone && depth == s.holdDepth
}

// afterValue runs at the separator or close (input offset off) after a
// value: the member held for the outputSchema checks, or the JSON-RPC
// error object held, ends there.
func (p *pass) afterValue(b []byte, off int64) {
	if p.sch != nil || p.rpc.on {
		p.afterValueHeld(b, off) // one call per value, only while one is held
	}
}

func (p *pass) afterValueHeld(b []byte, off int64) {
	if p.sch != nil {
		p.afterHeldValue(b, off)
	}
	if p.rpc.on && len(p.stack) == 1 {
		p.endRPCError(off) // the held error object ends (rpcerror.go)
	}
}

func (p *pass) afterHeldValue(b []byte, off int64) {
	if p.sch.holdEndsAt(len(p.stack)) {
		over := p.em.popSide()
		if p.sch.hold == holdStructured {
			p.sameEnd(over)
		}
		p.sch.endHold(b, int(off-p.inOff), over)
	}
}

// beginRaw starts capturing the raw bytes of structuredContent at chunk
// index i.
func (s *schemaPass) beginRaw(i int) {
	s.held[s.holdIdx].raw = s.held[s.holdIdx].raw[:0]
	s.rawOn, s.rawFrom = true, i
}

// appendRaw keeps raw bytes up to structured-bytes; the excess is noted,
// not kept, and reported when the result closes.
func (s *schemaPass) appendRaw(b []byte) {
	hr := &s.held[s.holdIdx]
	if hr.rawOver {
		return
	}
	if int64(len(hr.raw)+len(b)) > s.max {
		hr.rawOver = true
		hr.raw = hr.raw[:0]
		return
	}
	hr.raw = append(hr.raw, b...)
}

// chunkDone captures what is left of a chunk while structuredContent is
// still open.
func (s *schemaPass) chunkDone(b []byte) {
	if s.rawOn {
		s.appendRaw(b[s.rawFrom:])
		s.rawFrom = 0
	}
}

// beginTap starts collecting the decoded raw text of a content text that
// may mirror structuredContent. Called before the opening quote is written.
func (s *schemaPass) beginTap() {
	hr := &s.held[s.holdIdx]
	if len(hr.cands) >= maxHeldCands || hr.contentOver {
		return
	}
	s.tapOn = true
	s.cand = mirrorCand{textStart: len(hr.content), rawStart: len(hr.rawText), complete: true}
}

// tap collects decoded raw text of a candidate.
func (s *schemaPass) tap(d []byte) {
	hr := &s.held[s.holdIdx]
	if !s.cand.complete {
		return
	}
	if int64(len(hr.rawText)+len(d)) > s.max {
		s.cand.complete = false
		return
	}
	hr.rawText = append(hr.rawText, d...)
}

// endTap ends a candidate after its closing quote was written (cut: the
// string was truncated).
func (s *schemaPass) endTap(cut bool) {
	s.tapOn = false
	hr := &s.held[s.holdIdx]
	c := s.cand
	c.textEnd = len(hr.content)
	c.rawEnd = len(hr.rawText)
	if cut || hr.contentOver {
		c.complete = false
	}
	if !c.complete {
		hr.rawText = hr.rawText[:c.rawStart]
		return
	}
	hr.cands = append(hr.cands, c)
}

// finishHeld writes the held members of the result-shaped object f (at
// stack index idx) before its _meta: for the result itself, after the
// outputSchema checks; for a JSON-RPC envelope (stray members), as held.
func (p *pass) finishHeld(f *frame, off int64) {
	idx := len(p.stack) - 1
	s := p.sch
	hr := &s.held[idx]
	defer hr.reset()
	defer p.drainHeld(hr) // held texts still unscanned, on a failure
	base := "/structuredContent"
	if idx == 1 {
		base = "/result/structuredContent"
	}
	switch {
	case hr.contentOver || hr.structuredOver || hr.rawOver:
		p.failf(CodeBoundExceeded, StructuredBytesLimit, off)
		if hr.contentOver && p.fail.Reason == StructuredBytesLimit {
			p.fail.Pointer = base[:len(base)-len("structuredContent")] + "content"
		} else if p.fail.Reason == StructuredBytesLimit {
			p.fail.Pointer = base
		}
		return
	case f.role == roleTop && f.envelope && !f.hasResult && !f.hasError:
		// An envelope with neither a result nor a JSON-RPC error: the
		// structured result the schema asks for is missing.
		s.rec.Outcome = "missing"
		p.schemaFail(CodeSchemaMismatch, string(wire.ReasonStructuredContentMissing), "/result/structuredContent", off)
		return
	case f.role == roleTop && f.envelope:
		// Not the result: what the envelope itself carries is written
		// sanitized, unchecked (clients read result.structuredContent). A
		// JSON-RPC error response has no result to check.
		p.writeContentMember(f, hr)
		p.writeHeldMember(f, "structuredContent", hr.structured, hr.hasStructured)
		return
	case p.toolErrAt(idx):
		// A tool error needs no structured result; it is rewritten, or
		// passed through sanitized when the policy says so.
		s.rec.Outcome = "not-checked"
		p.writeContentMember(f, hr)
		p.writeHeldMember(f, "structuredContent", hr.structured, hr.hasStructured)
		return
	case !hr.hasStructured:
		s.rec.Outcome = "missing"
		p.schemaFail(CodeSchemaMismatch, string(wire.ReasonStructuredContentMissing), base, off)
		return
	}
	depth := int(p.e.lim[bounds.Depth])
	if p.finishRaw(f, hr, idx, depth, off) {
		return
	}
	rawV, err := schema.Decode(hr.raw, depth)
	if err != nil {
		// The tool's value is not strict JSON (invalid UTF-8, a lone
		// surrogate, a number out of range): it cannot conform.
		s.rec.Outcome = "mismatch"
		s.rec.Keyword = "json"
		p.schemaFail(CodeSchemaMismatch, string(wire.ReasonStructuredContentInvalid), base, off)
		return
	}
	if v := s.s.Validate(rawV); v != nil {
		s.rec.Outcome = "mismatch"
		p.recordViolation(v)
		p.schemaFail(CodeSchemaMismatch, s.rec.Keyword, base+s.rec.InstancePointer, off)
		return
	}
	sanV := rawV
	var viol *schema.Violation
	if !p.sameValue(hr) {
		// Sanitizing changed something: decode and validate what is
		// delivered. (Equal bytes, or the same tokens escaped otherwise,
		// decode alike and are valid already.)
		sanV, err = schema.Decode(hr.structured, depth)
		if err != nil {
			p.failf(CodeInternal, string(wire.ReasonStructuredDecode), off)
			return
		}
		viol = s.s.Validate(sanV)
	}
	if v := viol; v != nil {
		s.rec.Outcome = "mismatch-after-redaction"
		p.recordViolation(v)
		p.schemaFail(CodeSchemaMismatchAfterRedaction, s.rec.Keyword, base+s.rec.InstancePointer, off)
		return
	}
	out := hr.structured
	if *p.e.pol.Schema.Projection {
		proj, dropped := s.s.Project(sanV)
		if len(dropped) > 0 {
			if v := s.s.Validate(proj); v != nil {
				s.rec.Outcome = "mismatch-after-redaction"
				p.recordViolation(v)
				p.schemaFail(CodeSchemaMismatchAfterRedaction, s.rec.Keyword, base+s.rec.InstancePointer, off)
				return
			}
			s.rec.ProjectedCount = len(dropped)
			s.changed = true
			for _, d := range dropped {
				if len(s.rec.Projected) == maxListed {
					break
				}
				s.rec.Projected = append(s.rec.Projected, p.cleanPointer(d))
			}
			s.out, err = appendJSON(s.out[:0], proj)
			if err != nil {
				p.failf(CodeInternal, string(wire.ReasonStructuredEncode), off)
				return
			}
			out = s.out
		}
	}
	s.rec.Outcome = "valid"
	p.writeMirroredContent(f, hr, rawV, true, out, idx, off)
	if p.fail != nil {
		return
	}
	p.writeHeldMember(f, "structuredContent", out, true)
}

// finishRaw is finishHeld's common case told without decoding: the tool's
// value and, when sanitizing changed more than its escapes, the sanitized
// one are strict JSON, valid and declare every member they hold
// (schema.ValidRaw), so every check of the decoding path would pass and
// its projection would drop nothing; the sanitized text is written as it
// is. It reports false, having written nothing, when ValidRaw cannot tell:
// the decoding path then decides, and says why.
func (p *pass) finishRaw(f *frame, hr *heldResult, idx, depth int, off int64) bool {
	s := p.sch
	if p.e.noRawSchema || !s.s.ValidRaw(hr.raw, depth, &s.scratch) {
		return false
	}
	if !p.sameValue(hr) && !s.s.ValidRaw(hr.structured, depth, &s.scratch) {
		return false
	}
	s.rec.Outcome = "valid"
	p.writeMirroredContent(f, hr, nil, false, hr.structured, idx, off)
	if p.fail != nil {
		return true
	}
	p.writeHeldMember(f, "structuredContent", hr.structured, true)
	return true
}

// maxListed bounds lists of pointers in a SchemaRecord.
const maxListed = 64

// schemaFail fails the pass with a schema code; the pointer is the one of
// the failing value inside the message (sanitized keys only).
func (p *pass) schemaFail(c Code, reason, ptr string, off int64) {
	p.failf(c, safeLabel(reason), off)
	if p.fail != nil && p.fail.Code == c {
		p.fail.Pointer = p.cleanPointer(ptr)
	}
}

// recordViolation copies a violation into evidence: the keyword restricted
// to a safe charset, the pointers sanitized (a raw value's keys go through
// the normalizer and the redactor) and bounded. The value and the member
// name of the violation are never kept.
func (p *pass) recordViolation(v *schema.Violation) {
	s := p.sch
	s.rec.Keyword = safeLabel(v.Keyword)
	if len(s.rec.Keyword) > 64 {
		s.rec.Keyword = s.rec.Keyword[:64]
	}
	s.rec.InstancePointer = p.cleanPointer(v.InstancePointer)
	s.rec.SchemaPointer = p.cleanPointer(v.SchemaPointer)
}

// maxPointerBytes bounds a pointer kept in evidence.
const maxPointerBytes = 512

// cleanPointer runs a pointer through the normalizer and the redactor (its
// findings are not recorded: the keys were scanned in the pass already) and
// cuts it to maxPointerBytes on a rune boundary.
func (p *pass) cleanPointer(ptr string) string {
	if ptr == "" {
		return ""
	}
	s := p.sch
	p.norm.Reset()
	s.tmpA = p.norm.Append(s.tmpA[:0], []byte(ptr), true)
	p.red.Reset()
	var fs = p.fs[:0]
	s.tmpB, fs = p.red.Append(s.tmpB[:0], s.tmpA, true, fs)
	p.fs = fs[:0]
	b := s.tmpB
	if len(b) > maxPointerBytes {
		k := maxPointerBytes
		for k > 0 && b[k]&0xC0 == 0x80 {
			k--
		}
		b = b[:k]
	}
	return string(b)
}

// writeHeldMember writes "name":value from a held buffer.
func (p *pass) writeHeldMember(f *frame, name string, v []byte, has bool) {
	if !has {
		return
	}
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	p.em.byte1('"')
	p.em.rawString(name)
	p.em.rawString(`":`)
	p.em.counted -= int64(len(v)) // counted when held
	p.em.raw(v)
}

// writeMirroredContent writes the held content with every text that
// mirrored the tool's structuredContent replaced by the label and the JSON
// that is written as structuredContent, and every text held unscanned
// that did not scanned now (structured_defer.go). rawV is the tool's value
// decoded when haveRaw; otherwise it is decoded here if a text has to be
// compared by value.
func (p *pass) writeMirroredContent(f *frame, hr *heldResult, rawV any, haveRaw bool, js []byte, idx int, off int64) {
	if !hr.hasContent {
		return
	}
	s := p.sch
	mirror := s.mirrorFlags(hr)
	n, streamed := 0, false
	for i := range hr.cands {
		c := &hr.cands[i]
		if p.mirrorText(hr, hr.rawText[c.rawStart:c.rawEnd], &rawV, haveRaw) {
			mirror[i] = true
			n++
			streamed = streamed || !c.deferred
		}
		if rawV != nil {
			haveRaw = true
		}
	}
	ptr := "/content"
	if idx == 1 {
		ptr = "/result/content"
	}
	if n > 0 && p.e.lim.Over(bounds.TextChars, int64(runeCount(js))) {
		// The regenerated text would be cut, and a cut JSON text
		// contradicts the structure: fail closed. A held text is scanned
		// instead: had it streamed, it was a mirror (and this fails) only
		// when its own text was not cut.
		if streamed {
			p.failf(CodeBoundExceeded, bounds.TextChars.String(), off)
			p.fail.Pointer = ptr
			return
		}
		for i := range mirror {
			if mirror[i] {
				mirror[i], hr.cands[i].demoted = false, true
				n--
			}
		}
	}
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	p.em.rawString(`"content":`)
	p.em.counted -= int64(len(hr.content))
	whole := p.writeHeldContent(hr, mirror, js)
	if p.fail != nil {
		return
	}
	if whole {
		p.failf(CodeBoundExceeded, bounds.TextChars.String(), off)
		p.fail.Pointer = ptr
		return
	}
	s.rec.Mirrors += n
	if p.em.counted > p.e.lim[bounds.OutputBytes] {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), off)
	}
}

// mirrorFlags returns a cleared flag per candidate of hr.
func (s *schemaPass) mirrorFlags(hr *heldResult) []bool {
	m := s.mirrorBuf[:0]
	for range hr.cands {
		m = append(m, false)
	}
	s.mirrorBuf = m
	return m
}

// writeContentMember writes the held content of hr as it is, but for the
// texts held unscanned, which are scanned now (structured_defer.go).
func (p *pass) writeContentMember(f *frame, hr *heldResult) {
	if !hr.hasContent {
		return
	}
	held := false
	for i := range hr.cands {
		held = held || hr.cands[i].deferred
	}
	if !held {
		p.writeHeldMember(f, "content", hr.content, true)
		return
	}
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	p.em.rawString(`"content":`)
	p.em.counted -= int64(len(hr.content))
	p.writeHeldContent(hr, p.sch.mirrorFlags(hr), nil)
}

func isNumStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// jsonEqual compares two values of the schema.Decode representation:
// numbers by exact value (1.0 equals 1, 1e2 equals 100), objects by members
// whatever their order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		// Decode keeps numbers within the range of a double, so the
		// exponent is small enough for exact rationals.
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// errEncode reports a value outside the schema.Decode representation.
var errEncode = &Error{Code: CodeInternal, Reason: string(wire.ReasonStructuredEncode)}

// appendJSON writes v (schema.Decode representation) as compact JSON with
// object members sorted by key and strings escaped as the pass escapes
// them (only '"', '\' and control characters).
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = appendEscapedString(dst, k)
			dst = append(dst, '"', ':')
			var err error
			if dst, err = appendJSON(dst, x[k]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case json.Number:
		return append(dst, x...), nil
	case string:
		dst = append(dst, '"')
		dst = appendEscapedString(dst, x)
		return append(dst, '"'), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case nil:
		return append(dst, "null"...), nil
	}
	return dst, errEncode
}
