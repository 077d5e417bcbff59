package pipeline

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file holds the binary content rules of a tool result's content
// blocks (docs/pipeline.md, "Binary content"):
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

	fp   hash.Hash // keyed fingerprint of the removed value
	fpOn bool

	// the text path: a pending base64 quantum, a pending UTF-8 sequence,
	// pending bytes to encode, scratch buffers
	q    [4]byte
	qn   int
	u    [4]byte
	un   int
	e3   [3]byte
	en   int
	dec  []byte
	txt  []byte
	fix  []byte
	enc  []byte
	raw  []byte
	tail []byte
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
	w.retext = false
	w.mime = w.mime[:0]
	w.mimeLevel = 0
	w.fpOn = false
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
	if p.em.side == nil && len(p.em.buf) >= emitFlushAt {
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
	p.em.rawString(`{"type":"text","text":"`)
	p.em.escapedString(p.label)
	p.em.escapedString(binaryNote(w.reason, mime))
	p.em.rawString(`","_meta":{`)
	f.cut = false
	p.writeBlockLabels(f)
	p.em.rawString(`}}`)
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

// binaryNote is the text of a replaced block, in the style of the other
// notes ("[OUTPUT_TRUNCATED: …]"); mime is restricted (noteMIME) or empty.
func binaryNote(r wire.Reason, mime string) string {
	what := "binary content without a type"
	if mime != "" {
		what = "binary content of type " + mime
	}
	why := "type not allowed"
	switch r {
	case wire.ReasonBinaryTypeMismatch:
		why = "its bytes are not of the declared type"
	case wire.ReasonBinaryHoldBytes:
		why = "its type came after more data than can be held"
	}
	return "[BINARY_REMOVED: " + what + " was removed: " + why + "]"
}

// noteMIME restricts a media type to [a-z0-9.+/-] and 64 bytes for the
// note and evidence.
func noteMIME(m []byte) string {
	b := make([]byte, 0, min(len(m), 64))
	for _, c := range m[:min(len(m), 64)] {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == '/' {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// mimeEssence appends the media type of m lower-cased, without
// parameters and blanks (as mimeAllowed reads it), at most 128 bytes.
func mimeEssence(dst, m []byte) []byte {
	for _, c := range m {
		if c == ';' {
			break
		}
		if c == ' ' || c == '\t' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if len(dst) == 128 {
			break
		}
		dst = append(dst, c)
	}
	return dst
}

// textMIME reports whether a media type (an essence) is text that is
// sanitized: text/*, the JSON, XML, YAML, TOML and NDJSON application
// types, and every type with a +json, +xml or +yaml suffix (image/svg+xml
// among them).
func textMIME(m []byte) bool {
	s := string(m)
	if len(s) > 5 && s[:5] == "text/" {
		return true
	}
	switch s {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml",
		"application/toml", "application/x-ndjson", "application/ndjson", "application/jsonl":
		return true
	}
	for _, suf := range [...]string{"+json", "+xml", "+yaml"} {
		if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
			return true
		}
	}
	return false
}

// sigOf names the signature family of a media type.
func sigOf(m []byte) string {
	switch string(m) {
	case "image/png", "image/apng":
		return "png"
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return "jpeg"
	case "image/gif":
		return "gif"
	case "image/webp":
		return "webp"
	case "image/bmp", "image/x-bmp", "image/x-ms-bmp":
		return "bmp"
	case "image/tiff":
		return "tiff"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return "ico"
	case "image/avif", "image/heic", "image/heif", "audio/mp4", "audio/x-m4a", "audio/m4a", "video/mp4", "video/quicktime":
		return "ftyp"
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
		return "wav"
	case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg-3":
		return "mp3"
	case "audio/ogg", "audio/opus", "audio/vorbis", "application/ogg", "video/ogg":
		return "ogg"
	case "audio/flac", "audio/x-flac":
		return "flac"
	case "audio/aac", "audio/x-aac", "audio/aacp":
		return "aac"
	case "audio/webm", "video/webm", "audio/x-matroska", "video/x-matroska":
		return "ebml"
	case "application/pdf":
		return "pdf"
	}
	return ""
}

func sigKnown(m []byte) bool { return sigOf(m) != "" }

// sigMatch reports whether b, the first decoded bytes of a value (all of
// them when it is shorter), starts with a signature of media type m.
func sigMatch(m, b []byte) bool {
	has := func(off int, s string) bool {
		return len(b) >= off+len(s) && string(b[off:off+len(s)]) == s
	}
	switch sigOf(m) {
	case "png":
		return has(0, "\x89PNG\r\n\x1a\n")
	case "jpeg":
		return has(0, "\xff\xd8\xff")
	case "gif":
		return has(0, "GIF87a") || has(0, "GIF89a")
	case "webp":
		return has(0, "RIFF") && has(8, "WEBP")
	case "bmp":
		return has(0, "BM")
	case "tiff":
		return has(0, "II*\x00") || has(0, "MM\x00*")
	case "ico":
		return has(0, "\x00\x00\x01\x00") || has(0, "\x00\x00\x02\x00")
	case "ftyp":
		return has(4, "ftyp")
	case "wav":
		return has(0, "RIFF") && has(8, "WAVE")
	case "mp3":
		return has(0, "ID3") || len(b) >= 2 && b[0] == 0xff && b[1]&0xe0 == 0xe0
	case "ogg":
		return has(0, "OggS")
	case "flac":
		return has(0, "fLaC")
	case "aac":
		return has(0, "ADIF") || len(b) >= 2 && b[0] == 0xff && b[1]&0xf6 == 0xf0
	case "ebml":
		return has(0, "\x1a\x45\xdf\xa3")
	case "pdf":
		return has(0, "%PDF-")
	}
	return true
}

// decodeHead decodes the whole quanta of the kept head characters.
func decodeHead(h []byte) []byte {
	var out [headChars / 4 * 3]byte
	n, _ := base64.StdEncoding.Decode(out[:], h[:len(h)/4*4])
	return out[:n]
}

// blobTextStart starts the text path of a base64 value with a text type:
// decoded, sanitized as text, re-encoded (never a marker in place of
// base64).
func (p *pass) blobTextStart() {
	w := &p.bw
	p.sm = smBlobText
	p.shadowOff()
	p.norm.Reset()
	p.red.Reset()
	w.qn, w.un, w.en = 0, 0, 0
	w.valRaw = false
}

// blobText checks base64 bytes of a text value and sends what they decode
// to through the chain.
func (p *pass) blobText(d []byte) {
	if code, reason := p.checkBase64(d, p.e.lim[bounds.BinaryBytes]); code != "" {
		p.failf(code, reason, p.strStart)
		return
	}
	w := &p.bw
	out := w.dec[:0]
	for w.qn > 0 && w.qn < 4 && len(d) > 0 {
		w.q[w.qn] = d[0]
		w.qn++
		d = d[1:]
	}
	if w.qn == 4 {
		var b [3]byte
		n, _ := base64.StdEncoding.Decode(b[:], w.q[:])
		out = append(out, b[:n]...)
		w.qn = 0
	}
	if k := len(d) / 4 * 4; k > 0 {
		n := len(out)
		out = slices.Grow(out, k/4*3)[:n+k/4*3]
		m, _ := base64.StdEncoding.Decode(out[n:], d[:k])
		out = out[:n+m]
		d = d[k:]
	}
	w.qn += copy(w.q[w.qn:], d)
	w.dec = out
	p.blobFeed(out, false)
}

// blobFeed sends decoded text through the chain: a UTF-8 sequence split
// at the end waits for the rest (final: it does not), invalid bytes become
// U+FFFD and are counted.
func (p *pass) blobFeed(b []byte, final bool) {
	w := &p.bw
	if w.un > 0 {
		t := append(append(w.txt[:0], w.u[:w.un]...), b...)
		w.txt, b, w.un = t, t, 0
	}
	if !final {
		for i := 1; i <= 3 && i <= len(b); i++ {
			c := b[len(b)-i]
			if c < 0x80 {
				break
			}
			if c >= 0xc0 {
				if !utf8.FullRune(b[len(b)-i:]) {
					w.un = copy(w.u[:], b[len(b)-i:])
					b = b[:len(b)-i]
				}
				break
			}
		}
	}
	if !utf8.Valid(b) {
		f := w.fix[:0]
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				f = append(f, "\uFFFD"...)
				p.ev.InvalidUTF8++
			} else {
				f = append(f, b[i:i+n]...)
			}
			i += n
		}
		w.fix, b = f, f
	}
	if !p.strDirty {
		for _, c := range b {
			if c >= 0x7f || c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				p.strDirty = true
				break
			}
		}
	}
	for len(b) > 0 && p.fail == nil {
		var full bool
		if b, full = p.fill(b, false); !full {
			return
		}
		p.flushChain(false)
	}
}

// blobEncode writes sanitized text of a text value as base64, three bytes
// to four characters, the last one or two bytes kept for the next call.
func (p *pass) blobEncode(r []byte) {
	w := &p.bw
	if p.em.counted+int64((len(r)+w.en)/3*4+4) > p.outBudget {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), p.strStart)
		return
	}
	for w.en > 0 && w.en < 3 && len(r) > 0 {
		w.e3[w.en] = r[0]
		w.en++
		r = r[1:]
	}
	if w.en == 3 {
		var o [4]byte
		base64.StdEncoding.Encode(o[:], w.e3[:])
		p.em.raw(o[:])
		w.en = 0
	}
	if k := len(r) / 3 * 3; k > 0 {
		w.enc = slices.Grow(w.enc[:0], k/3*4)[:k/3*4]
		base64.StdEncoding.Encode(w.enc, r[:k])
		p.em.raw(w.enc)
		r = r[k:]
	}
	w.en = copy(w.e3[:], r)
}

// blobTextEnd ends the text path: the rest of the text through the chain,
// the last bytes encoded with padding.
func (p *pass) blobTextEnd() {
	w := &p.bw
	p.blobFeed(nil, true)
	if p.fail != nil {
		return
	}
	p.flushChain(true)
	if p.fail != nil {
		return
	}
	if w.en > 0 {
		var o [4]byte
		base64.StdEncoding.Encode(o[:], w.e3[:w.en])
		p.em.raw(o[:])
		w.en = 0
	}
}

// endBlobText ends a text value at its closing quote.
func (p *pass) endBlobText() {
	if !p.base64Complete() {
		p.failf(CodeInvalidContent, string(wire.ReasonBadBase64), p.strStart)
		return
	}
	p.blobTextEnd()
	if p.fail != nil {
		return
	}
	p.em.byte1('"')
	if len(p.stack) > 0 {
		p.stack[len(p.stack)-1].binary = true
	}
	p.binValueEnd()
}

// binRetext sends a value that was held as base64 (its mimeType came
// after it and is a text type) through the text path, in place in the
// held buffer, at the close of the frame that holds it.
func (p *pass) binRetext(f *frame) {
	w := &p.bw
	t := p.em.pin
	if t == nil || w.valStart < 0 || w.valEnd < w.valStart || w.valEnd > len(*t) {
		p.failf(CodeInternal, string(wire.ReasonInternalFault), p.lx.Off())
		return
	}
	w.raw = append(w.raw[:0], (*t)[w.valStart:w.valEnd]...)
	w.tail = append(w.tail[:0], (*t)[w.valEnd:]...)
	p.em.counted -= int64(len(*t) - w.valStart)
	*t = (*t)[:w.valStart]
	f.key = append(f.key[:0], w.valKey...)
	p.nameCtx = false
	p.startString(w.valOff)
	p.isKey = false
	p.sRole, p.sRegion = roleBinary, regionText
	p.b64n, p.b64pad = 0, 0
	p.blobTextStart()
	p.blobText(w.raw)
	if p.fail != nil {
		return
	}
	p.blobTextEnd()
	if p.fail != nil {
		return
	}
	p.em.raw(w.tail)
}

// b64Str tells whether the text of a string so far is base64 (standard
// alphabet, padding only at its end) and keeps its first characters, so
// that a long one whose bytes start with a binary signature (sigAny) is
// bounded as binary (binary-bytes) rather than by string-chars:
// structuredContent that mirrors an image's data.
type b64Str struct {
	no    bool // a byte outside base64 was seen
	pad   int  // '=' seen
	bin   bool // the string crossed string-chars as base64
	head  [headChars]byte
	headN int
}

func (s *b64Str) scan(b []byte) {
	if s.headN < headChars {
		s.headN += copy(s.head[s.headN:], b)
	}
	for _, c := range b {
		if c == '=' {
			s.pad++
			if s.pad > 2 {
				s.no = true
				return
			}
			continue
		}
		if s.pad > 0 || !b64ok[c] {
			s.no = true
			return
		}
	}
}

// sigAny reports whether b starts with the signature of a binary format:
// one of the media types of sigMatch, or gzip, zip, 7z, xz or zstd.
func sigAny(b []byte) bool {
	for _, m := range [...]string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff",
		"image/x-icon", "video/mp4", "audio/wav", "audio/ogg", "audio/flac", "video/webm", "application/pdf"} {
		if sigMatch([]byte(m), b) {
			return true
		}
	}
	if len(b) >= 3 && string(b[:3]) == "ID3" {
		return true
	}
	for _, s := range [...]string{"\x1f\x8b", "PK\x03\x04", "7z\xbc\xaf\x27\x1c", "\xfd7zXZ\x00", "\x28\xb5\x2f\xfd"} {
		if len(b) >= len(s) && string(b[:len(s)]) == s {
			return true
		}
	}
	return false
}

// base64Bound is called when a string of n more characters crosses its
// character bound b. It reports whether the string goes on bounded as
// binary instead; false, with the pass failed, when it crosses
// binary-bytes or stops being base64 after the crossing.
func (p *pass) base64Bound(b bounds.Bound, n int64) bool {
	if b != bounds.StringChars {
		return false
	}
	if p.b64s.no || !p.b64s.bin && !sigAny(decodeHead(p.b64s.head[:p.b64s.headN])) {
		if p.b64s.bin {
			// Written past string-chars as base64, and then not base64: it
			// can no longer be cut, so the message is rejected.
			p.failf(CodeBoundExceeded, bounds.StringChars.String(), p.strStart)
		}
		return false
	}
	if (p.strChars+n)/4*3 > p.e.lim[bounds.BinaryBytes] {
		p.failf(CodeBoundExceeded, bounds.BinaryBytes.String(), p.strStart)
		return false
	}
	p.b64s.bin = true
	return true
}

// base64StringEnd checks, at the end of a string bounded as binary, that
// it is whole base64 (else it was text over string-chars: rejected).
func (p *pass) base64StringEnd() {
	if p.b64s.bin && (p.b64s.no || p.strChars%4 != 0) {
		p.failf(CodeBoundExceeded, bounds.StringChars.String(), p.strStart)
	}
}
