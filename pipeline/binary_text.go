package pipeline

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The text path of the binary rules (binary.go): a base64 value of a text
// type decoded into the string chain and its output encoded again, and
// strings that are base64, bounded as binary.
// blobTextStart starts the text path of a base64 value with a text type:
// decoded, sanitized as text, re-encoded (never a marker in place of
// base64).
func (p *pass) blobTextStart() {
	w := &p.bw
	p.sm = smBlobText
	p.shadowOff()
	p.norm.Reset()
	p.normFresh = true
	p.red.Reset()
	w.qn, w.un, w.en = 0, 0, 0
	w.valRaw = false
}

// blobText checks base64 bytes of a text value and sends what they decode
// to through the chain.
func (p *pass) blobText(d []byte) {
	lim := p.e.lim[bounds.BinaryBytes]
	n0, pad0 := p.b64n, p.b64pad
	if code, reason := p.checkBase64(d, lim); code != "" {
		// What came before the fault goes through the chain first, as it
		// does when a read ends there: the evidence of the rejected
		// message does not depend on how reads split the value.
		j := p.b64Valid(d, n0, pad0, lim)
		p.b64n, p.b64pad = n0, pad0
		if j > 0 {
			p.checkBase64(d[:j], lim)
			p.blobDecode(d[:j])
		}
		p.failf(code, reason, p.strStart)
		return
	}
	p.blobDecode(d)
}

// b64Valid is the length of the longest prefix of d that checkBase64
// passes from the state (n0, pad0); d as a whole does not. The state is
// left as it was found by the last check made.
func (p *pass) b64Valid(d []byte, n0 int64, pad0 int, lim int64) int {
	lo, hi := 0, len(d) // d[:lo] passes, d[:hi] does not
	for hi-lo > 1 {
		m := (lo + hi) / 2
		p.b64n, p.b64pad = n0, pad0
		if code, _ := p.checkBase64(d[:m], lim); code == "" {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// blobDecode decodes checked base64 bytes of a text value and sends them
// through the chain.
func (p *pass) blobDecode(d []byte) {
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
				w.invalid++ // counted once the value is known base64 (blobTextEnd)
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
	// Invalid UTF-8 of the decoded text counts once the value is known to
	// be base64 (both callers know it here): where a bad character is found
	// first depends on how the value was split into reads, so the count of
	// a value rejected later would too.
	p.ev.InvalidUTF8 += w.invalid
	w.invalid = 0
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
// that a long one whose bytes start with a binary signature (sigAny), or
// with the first characters of a content block's binary value of the same
// message (seenBinary), is bounded as binary (binary-bytes) rather than by
// string-chars: structuredContent that mirrors an image's data.
type b64Str struct {
	no    bool // a byte outside base64 was seen
	pad   int  // '=' seen
	bin   bool // the string crossed string-chars as base64
	head  [headChars]byte
	headN int
}

// reset starts a string. The head's bytes past headN are never read, so
// they are left as they are.
func (s *b64Str) reset() {
	s.no, s.pad, s.bin, s.headN = false, 0, false, 0
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

// base64Bound is called when a string of n more characters crosses its
// character bound b. It reports whether the string goes on bounded as
// binary instead; false, with the pass failed, when it crosses
// binary-bytes or stops being base64 after the crossing.
func (p *pass) base64Bound(b bounds.Bound, n int64) bool {
	if b != bounds.StringChars {
		return false
	}
	if p.b64s.no || !p.b64s.bin && !sigAny(decodeHead(p.b64s.head[:p.b64s.headN])) && !p.seenBinary() {
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

// maxSeenB64 bounds the binary values of one message whose first
// characters are kept for seenBinary.
const maxSeenB64 = 32

// seenBinary reports whether the string so far starts with the first
// headChars characters of a binary value of a content block of this
// message: structuredContent that mirrors a block's data (the filesystem
// server's read_media_file does) is binary whatever its type's signature.
func (p *pass) seenBinary() bool {
	if p.b64s.headN < headChars {
		return false
	}
	for i := range p.seenB64 {
		if p.seenB64[i] == p.b64s.head {
			return true
		}
	}
	return false
}

// base64StringEnd checks, at the end of a string bounded as binary, that
// it is whole base64 (else it was text over string-chars: rejected).
func (p *pass) base64StringEnd() {
	if p.b64s.bin && (p.b64s.no || p.strChars%4 != 0) {
		p.failf(CodeBoundExceeded, bounds.StringChars.String(), p.strStart)
	}
}
