package pipeline

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"strconv"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file (with binary_types.go and binary_text.go) holds the binary
// content rules of a tool result's content blocks (docs/pipeline.md,
// "Binary content"):
//
//   - a block's base64 value (an image or audio block's data, a resource's
//     blob) is checked (alphabet, padding, binary-bytes) as before;
//   - its mimeType decides what happens to it: a text type (textMIME) is
//     decoded, sanitized by the string chain and re-encoded; a type outside
//     the allow-list, or bytes that do not start with the signature of the
//     declared type (sigMatch), get the block replaced by a text note
//     (policy binary.disallowed "replace", the default) or the result
//     rejected ("reject");
//   - since the mimeType may come after the data, the block's output is
//     held (the emitter's pin) from its '{' until its binary value is known
//     to be kept, bounded by binary-hold-bytes;
//   - a text string that is base64 (structuredContent mirroring an image)
//     is bounded as binary, not by string-chars (b64Str).

// roleBlockType is the "type" member of a content block: captured, like a
// mimeType, to tell whether its data is binary. Its value is far from the
// roles of pass.go so the two lists do not collide.
const roleBlockType role = 200

// smBlobText is the string mode of a base64 value with a text mimeType:
// decoded, sent through the chain as text and re-encoded.
const smBlobText strMode = 100

// blockType is what a content block's "type" says about its data member.
type blockType uint8

const (
	btUnknown  blockType = iota // no type read yet: data is binary
	btBinary                    // image, audio or a type without a rule: data is binary
	btText                      // text, resource_link: data is text
	btResource                  // resource: binary only inside the resource
)

type valState uint8

const (
	valNone valState = iota
	valReading
	valDone
)

// headChars is how many base64 characters of a value are kept for its
// signature (18 bytes decoded).
const headChars = 24

// binKind is what a value's mimeType makes of it.
type binKind uint8

const (
	bkDenied  binKind = iota // not on the allow-list: the block is replaced
	bkText                   // a text type: sanitized and re-encoded
	bkAllowed                // allowed, no signature known: copied
	bkSigned                 // allowed, its first bytes must match the type's signature
)

// binWatch is the state of the content block being watched: at most one
// at a time (blocks do not nest).
type binWatch struct {
	level   int   // len(stack) of the block's frame; 0: none watched
	pinned  bool  // the block's output is held (emitter.pin)
	mark    int   // offset of the block's '{' in the held buffer
	markCnt int64 // emitter.counted at the mark
	typ     blockType
	ok      bool        // the block is kept, released once its type is known
	reason  wire.Reason // why the block is replaced; "" while it is kept
	doomed  bool        // the block's output goes to scratch (pushed side)
	scratch []byte

	// the block's binary value
	val       valState
	valLevel  int   // len(stack) of the frame that holds it
	valRaw    bool  // copied as base64 (not through the text path)
	valStart  int   // offset just after its opening quote in the held buffer; -1: not held
	valEnd    int   // offset of its closing quote in the held buffer
	valOff    int64 // input offset of its opening quote
	valKey    []byte
	bytes     int64 // decoded length
	head      [headChars]byte
	headN     int
	checked   bool // the head was checked against the signature
	retext    bool // the held raw value has a text type: sanitized at its frame's close
	mime      []byte
	mimeLevel int // len(stack) of the frame whose mimeType is in mime; 0: none

	// a resources/read contents item (binary_kinds.go): its uri, kept
	// for its replacement
	item     bool
	uri      []byte
	uriOK    bool
	uriStart int
	uriSide  bool // the uri is being written into uri (pushSide)

	fp   hash.Hash // keyed fingerprint of the removed value
	fpOn bool

	// the text path: a pending base64 quantum, a pending UTF-8 sequence,
	// pending bytes to encode, scratch buffers
	q   [4]byte
	qn  int
	u   [4]byte
	un  int
	e3  [3]byte
	en  int
	dec []byte
	txt []byte
	fix []byte
	enc []byte
	// invalid counts the invalid UTF-8 sequences of the decoded text of
	// the current value, added to the evidence when the value ends valid.
	invalid int64
	raw     []byte
	tail    []byte
}

// trim drops the buffers that grew past keep bytes, so an idle pass does
// not pin them.
func (w *binWatch) trim(keep int) {
	for _, b := range []*[]byte{&w.scratch, &w.dec, &w.txt, &w.fix, &w.enc, &w.raw, &w.tail} {
		if cap(*b) > keep {
			*b = nil
		}
	}
}

// begin starts watching the block whose frame is at level.
func (w *binWatch) begin(level int) {
	w.level = level
	w.pinned = false
	w.typ = btUnknown
	w.ok = false
	w.reason = ""
	w.doomed = false
	w.val = valNone
	w.valLevel = 0
	w.valStart = -1
	w.bytes = 0
	w.headN = 0
	w.checked = false
	w.invalid = 0
	w.retext = false
	w.mime = w.mime[:0]
	w.mimeLevel = 0
	w.fpOn = false
	w.item, w.uriOK, w.uriStart, w.uriSide = false, false, -1, false
}

// binHeld is how many bytes of the watched block's output are held.
func (p *pass) binHeld() int64 { return int64(len(*p.em.pin) - p.bw.mark) }

func (w *binWatch) mimeKnown() bool { return w.mimeLevel != 0 && w.mimeLevel == w.valLevel }

// binOpen starts watching a content block of a tool result whose frame was
// just pushed, before its '{' is written: its output is held from here.
func (p *pass) binOpen() {
	w := &p.bw
	if w.level != 0 || p.em.pin != nil {
		return
	}
	w.begin(len(p.stack))
	t := p.em.target()
	p.em.pin = t
	w.pinned = true
	w.mark = len(*t)
	w.markCnt = p.em.counted
}

// binRelease lets the held output of the block go: the block is kept. A
// block whose type is not known yet stays held (ok) until its type comes.
func (p *pass) binRelease() {
	w := &p.bw
	w.ok = true
	if !w.pinned || w.typ == btUnknown {
		return
	}
	w.pinned = false
	w.valStart = -1
	p.em.pin = nil
	if p.em.side == nil && p.em.jpin == nil && len(p.em.buf) >= emitFlushAt {
		p.em.flush()
	}
}

// binTypeDone takes the block's "type" (sanitized, in mimeBuf).
func (p *pass) binTypeDone() {
	w := &p.bw
	if w.level == 0 || w.level != len(p.stack) {
		return
	}
	switch string(p.mimeBuf) {
	case "text", "resource_link":
		w.typ = btText
		if w.val == valNone {
			p.binRelease() // nothing binary can follow at this level
		}
	case "resource":
		w.typ = btResource
	default:
		w.typ = btBinary
	}
	if w.ok && w.typ != btText {
		p.binRelease()
	}
}

// blockData is the role of a block's "data" member: binary unless the
// block's type, read before it, says the block holds no binary data.
func (s *shaper) blockData() next {
	if s.bw.typ == btText || s.bw.typ == btResource {
		return next{region: regionText}
	}
	return next{role: roleBinary, region: regionText}
}

// binMime takes a mimeType (sanitized, in mimeBuf) read in the current
// frame.
func (p *pass) binMime() {
	w := &p.bw
	if w.level == 0 {
		return
	}
	w.mime = mimeEssence(w.mime[:0], p.mimeBuf)
	w.mimeLevel = len(p.stack)
	if w.val == valDone && w.valLevel == w.mimeLevel && w.reason == "" {
		p.binJudge(p.lx.Off())
	}
}

// binKind classifies the value by its mimeType.
func (p *pass) binKind() binKind {
	m := p.bw.mime
	switch {
	case textMIME(m):
		return bkText
	case !p.e.mime[string(m)]:
		return bkDenied
	case sigKnown(m):
		return bkSigned
	}
	return bkAllowed
}

// binValueStart starts a base64 value (its opening quote is written).
func (p *pass) binValueStart(off int64) {
	p.sm = smBinary
	p.b64n, p.b64pad = 0, 0
	w := &p.bw
	if w.level == 0 {
		return
	}
	second := w.val != valNone
	w.ok = false
	w.val = valReading
	w.valLevel = len(p.stack)
	w.valOff = off
	w.valKey = append(w.valKey[:0], p.stack[len(p.stack)-1].key...)
	w.valRaw = true
	w.headN, w.checked, w.retext = 0, false, false
	w.valStart = -1
	if w.pinned {
		w.valStart = len(*p.em.pin)
	}
	switch {
	case w.doomed:
		return
	case second:
		// A block holds one binary value.
		p.binDoom(wire.ReasonBinaryTypeMismatch, off)
		return
	case !w.mimeKnown():
		return // held until the mimeType comes
	}
	switch p.binKind() {
	case bkText:
		p.blobTextStart()
		p.binRelease()
	case bkDenied:
		p.binDoom(wire.ReasonMIMENotAllowed, off)
	case bkAllowed:
		p.binRelease()
	}
}

// binData copies checked base64 bytes of a watched value.
func (p *pass) binData(d []byte) {
	w := &p.bw
	if w.headN < headChars {
		w.headN += copy(w.head[w.headN:], d)
	}
	if w.doomed {
		if w.fpOn {
			w.fp.Write(d)
		}
		return
	}
	if p.em.counted+int64(len(d)) > p.outBudget {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), p.strStart)
		return
	}
	p.em.raw(d)
	if !w.pinned {
		return
	}
	if w.mimeKnown() && !w.checked && w.headN == headChars && p.binKind() == bkSigned {
		w.checked = true
		if !sigMatch(w.mime, decodeHead(w.head[:w.headN])) {
			p.binDoom(wire.ReasonBinaryTypeMismatch, p.strStart)
			return
		}
		p.binRelease()
	}
	if w.pinned && p.binHeld() > p.e.holdMax {
		p.binDoom(wire.ReasonBinaryHoldBytes, p.strStart)
	}
}

// binSplit returns how many of the next n base64 bytes of a watched value
// come before its next decision point (the head is complete, the held
// output crosses binary-hold-bytes), or n. At least one byte is taken.
func (p *pass) binSplit(n int) int {
	w := &p.bw
	k := n
	if w.doomed {
		return k
	}
	if w.headN < headChars {
		k = min(k, headChars-w.headN)
	}
	if w.pinned {
		room := p.e.holdMax - p.binHeld() + 1
		if room < int64(k) {
			k = int(max(room, 1))
		}
	}
	return k
}

// binValueEnd ends a base64 value (its closing quote is written).
func (p *pass) binValueEnd() {
	w := &p.bw
	if w.level == 0 {
		return
	}
	w.val = valDone
	w.bytes = p.b64n/4*3 - int64(p.b64pad)
	if w.doomed {
		return
	}
	if w.headN == headChars && len(p.seenB64) < maxSeenB64 {
		p.seenB64 = append(p.seenB64, w.head)
	}
	if w.pinned {
		w.valEnd = len(*p.em.pin) - 1
		if p.binHeld() > p.e.holdMax {
			p.binDoom(wire.ReasonBinaryHoldBytes, p.strStart)
			return
		}
	}
	if w.mimeKnown() {
		p.binJudge(p.strStart)
	}
}

// binJudge decides on a complete value whose mimeType is known.
func (p *pass) binJudge(off int64) {
	w := &p.bw
	switch p.binKind() {
	case bkText:
		if w.valRaw {
			w.retext = true // at the close of the value's frame
		}
	case bkDenied:
		p.binDoom(wire.ReasonMIMENotAllowed, off)
	case bkSigned:
		if !w.checked {
			w.checked = true
			if !sigMatch(w.mime, decodeHead(w.head[:w.headN])) {
				p.binDoom(wire.ReasonBinaryTypeMismatch, off)
				return
			}
		}
		p.binRelease()
	case bkAllowed:
		p.binRelease()
	}
}

// binDoom decides that the watched block is replaced for reason r: its
// held output is dropped and the rest of it discarded until it closes.
// Under binary.disallowed "reject", or when the block's output was already
// let go, the pass fails instead.
func (p *pass) binDoom(r wire.Reason, off int64) {
	w := &p.bw
	if w.reason != "" || p.fail != nil {
		return
	}
	if p.e.pol.Binary.Disallowed == BinaryReject || !w.pinned {
		code := CodeInvalidContent
		if r == wire.ReasonBinaryHoldBytes {
			code = CodeBoundExceeded
		}
		p.failf(code, string(r), off)
		return
	}
	w.reason = r
	t := p.em.pin
	if w.val != valNone {
		p.binFPStart()
		end := len(*t)
		if w.val == valDone {
			end = w.valEnd
		}
		if w.valStart >= 0 && w.valStart <= end && end <= len(*t) {
			w.fp.Write((*t)[w.valStart:end])
		}
	}
	p.joinDoomed(t, w.mark)
	*t = (*t)[:min(w.mark, len(*t))]
	p.binDropCands()
	p.em.counted = w.markCnt
	p.em.pin = nil
	w.pinned = false
	w.valStart = -1
	w.scratch = w.scratch[:0]
	p.em.pushSide(&w.scratch, 0)
	w.doomed = true
}

// binFPStart starts the keyed fingerprint of the removed value:
// HMAC-SHA256(key, reason ‖ 0 ‖ base64 text), as findings are keyed.
func (p *pass) binFPStart() {
	w := &p.bw
	if w.fpOn {
		return
	}
	if w.fp == nil {
		w.fp = hmac.New(sha256.New, p.e.fpKey)
	}
	w.fp.Reset()
	w.fp.Write([]byte(w.reason))
	w.fp.Write([]byte{0})
	w.fpOn = true
}

// binClose acts when an object of a watched block closes (the frame that
// holds the value, or the block itself). It reports whether it wrote the
// block's replacement in place of the block's end.
func (p *pass) binClose(f *frame, off int64) bool {
	w := &p.bw
	if w.level == 0 {
		if f.binary && f.mimeState != 1 {
			p.failf(CodeInvalidContent, string(wire.ReasonMIMENotAllowed), off)
		}
		return false
	}
	lvl := len(p.stack)
	if w.val != valNone && w.valLevel == lvl && w.reason == "" {
		switch {
		case !w.mimeKnown():
			p.binDoom(wire.ReasonMIMENotAllowed, off)
		case w.retext:
			w.retext = false
			p.binRetext(f)
			p.binRelease()
		}
		if p.fail != nil {
			return false
		}
	}
	if lvl != w.level {
		return false
	}
	if w.reason == "" && w.val != valNone && w.valLevel == lvl && (w.typ == btText || w.typ == btResource) {
		// base64 data read before a type that holds none
		p.binDoom(wire.ReasonBinaryTypeMismatch, off)
		if p.fail != nil {
			return false
		}
	}
	if w.reason == "" {
		p.binRelease()
		if w.pinned {
			// The block closed without a type: none will come, so its
			// output goes now. Left held, the pin would keep the next
			// block from being watched, and a disallowed binary there
			// would fail the whole result instead of being replaced.
			w.pinned = false
			w.valStart = -1
			p.em.pin = nil
		}
		w.level = 0
		return false
	}
	p.em.popSide()
	p.binDropCands()
	p.em.counted = w.markCnt
	if f.heldMeta {
		p.heldMeta[deferBlock-1] = p.heldMeta[deferBlock-1][:0]
	}
	mime := ""
	if w.mimeKnown() {
		mime = noteMIME(w.mime)
	}
	p.binReplacement(f, binaryNote(w.reason, mime))
	if len(p.ev.Binary) < maxBoundHits {
		nc := p.nameCtx
		p.nameCtx = true
		rec := BinaryRecord{Reason: string(w.reason), Pointer: p.pointer(), MimeType: mime, Bytes: w.bytes}
		p.nameCtx = nc
		if w.fpOn {
			var fp [16]byte
			copy(fp[:], w.fp.Sum(nil))
			rec.Fingerprint = hexFP(fp)
		}
		p.ev.Binary = append(p.ev.Binary, rec)
	}
	w.level = 0
	w.doomed = false
	return true
}

// binDropCands forgets the mirror candidates (structured.go) of a block
// being replaced: texts held at or after the block's mark.
func (p *pass) binDropCands() {
	if p.sch == nil || p.sch.hold != holdContent {
		return
	}
	hr := &p.sch.held[p.sch.holdIdx]
	for n := len(hr.cands); n > 0 && hr.cands[n-1].textStart >= p.bw.mark; n = len(hr.cands) {
		hr.rawText = hr.rawText[:hr.cands[n-1].rawStart]
		hr.cands = hr.cands[:n-1]
	}
}

// BinaryRecord is a binary content block replaced by a note: why, where
// (the block's pointer), its declared type (restricted, as in the note),
// its decoded length and a keyed fingerprint of its base64 text (hex of
// the first 16 bytes of HMAC-SHA256(key, reason ‖ 0 ‖ base64)). Never the
// data.
type BinaryRecord struct {
	Reason      string `json:"reason"`
	Pointer     string `json:"pointer"`
	MimeType    string `json:"mimeType,omitempty"`
	Bytes       int64  `json:"bytes"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

func (r *BinaryRecord) appendJSON(b []byte) []byte {
	b = AppendJSONString(append(b, `{"reason":`...), r.Reason)
	b = AppendJSONString(append(b, `,"pointer":`...), r.Pointer)
	b = optString(b, `,"mimeType":`, r.MimeType)
	b = strconv.AppendInt(append(b, `,"bytes":`...), r.Bytes, 10)
	b = optString(b, `,"fingerprint":`, r.Fingerprint)
	return append(b, '}')
}
