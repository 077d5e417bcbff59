package pipeline

import (
	"hash/maphash"
	"io"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file finds the id of a JSON-RPC envelope after the pass failed
// before reading it. Servers write the id where they like; the TypeScript
// SDK writes it last, after the result, so a failure anywhere in the
// result would leave the error envelope with a null id, which a client
// cannot match to its request. After such a failure the rest of the input
// is read with the lexer only: nothing is sanitized or written, the node
// and other bounds of the pass no longer count, and everything but the
// value of the envelope's top-level id member is dropped as it is read.
// The scan is bounded by the depth bound, by drainLimit (what a failed pass
// reads of its input at all) and by the caller's context.
//
// The id is kept only when the envelope's object closes well formed with
// exactly one top-level id (keys compared after normalizing, as the pass
// compares keys for duplicate-key), a string or a number of at most
// maxEnvelopeID bytes once sanitized. A string is normalized and redacted
// as the pass does it for a member "id"; a number is kept verbatim. In
// every other case the id stays null and evidence (idNullReason) says why,
// with a wire.ReasonRPCID… reason.
//
// A string id is bounded by maxEnvelopeID bytes of normalized text before
// redaction (the pass bounds the redacted text): a found id longer than
// that is not kept even when redacting a secret in it would shorten it.

// idMode is what the scan does with the string or number being read.
type idMode uint8

const (
	idSkip idMode = iota // dropped
	idKey                // a top-level key, normalized while it may be "id"
	idStr                // the id's string value
	idNum                // the id's number value
)

// idKind is what the id's value was.
type idKind uint8

const (
	idNone   idKind = iota // not read
	idString               // a string
	idNumber               // a number
	idOther                // an object, array, true, false or null
)

// idScan is the state of the scan for the id after a failure. Its zero
// value is a pass that has not failed.
type idScan struct {
	begun   bool // the scan was decided for this pass's failure
	on      bool // the rest of the input is read for the id
	mode    idMode
	afterID bool // the last top-level key was "id": the next top-level value is its value
	count   int  // top-level id members
	kind    idKind
	over    bool // the id's text is longer than maxEnvelopeID
	bad     bool // the id holds invalid UTF-8 under the reject policy
	keyNot  bool // the current top-level key is not "id"
	key     []byte
	text    []byte // the id: normalized text or the number's bytes
	out     []byte // the redacted id
	fs      []scanners.Finding
	reason  wire.Reason // why the id stays null
}

func (s *idScan) reset() {
	s.begun, s.on, s.mode, s.afterID = false, false, idSkip, false
	s.count, s.kind, s.over, s.bad, s.keyNot = 0, idNone, false, false, false
	s.key, s.text, s.out, s.fs = s.key[:0], s.text[:0], s.out[:0], s.fs[:0]
	s.reason = wire.ReasonNone
}

// stop ends the scan with the id null for reason r.
func (s *idScan) stop(r wire.Reason) {
	s.on = false
	s.reason = r
}

var idName = []byte("id")

// has reports whether key is in k (add's hash).
func (k *keySet) has(key []byte) bool {
	h := maphash.Bytes(keySeed, key)
	if len(k.big) > 0 {
		_, ok := k.big[h]
		return ok
	}
	for _, v := range k.small {
		if v == h {
			return true
		}
	}
	return false
}

// idScanBegin decides, once the pass has failed, whether the rest of the
// input is read for the envelope's id, from where the pass stopped: the
// lexer's state is left as it was at the failure, so the scan goes on with
// the next token. It runs once per failure, at the failure inside feed or,
// for a failure elsewhere, when the error result is written.
func (p *pass) idScanBegin() {
	s := &p.ids
	if s.begun {
		if s.on && p.fail != nil && p.fail.Reason == string(wire.ReasonInternalFault) {
			// A fault of the pass after the scan began (the scan's own,
			// inside feed): its state is not trusted.
			s.stop(wire.ReasonRPCIDNotRead)
		}
		return
	}
	s.begun = true
	f := p.fail
	if f == nil || !p.envelope || p.envIDOK {
		return
	}
	if f.Code == CodeTimeout || f.Reason == string(wire.ReasonReadError) || f.Reason == string(wire.ReasonInternalFault) {
		s.reason = wire.ReasonRPCIDNotRead
		return
	}
	// The envelope's object is the first frame; once it closed, its frame
	// is still there past the stack's end (nothing opens after it).
	var top *frame
	if len(p.stack) > 0 {
		top = &p.stack[0]
	} else if cap(p.stack) > 0 {
		top = &p.stack[:1][0]
	}
	seen := top != nil && top.keys.has(idName)
	// The pass failed on the top-level key "id" itself (after its key
	// was read, before its value began).
	atKey := p.isKey && !p.lx.InString() && len(p.stack) == 1 && p.lx.Depth() == 1 && string(p.keyBuf) == "id"
	switch {
	case atKey && f.Reason == string(wire.ReasonDuplicateKey):
		s.reason = wire.ReasonRPCIDDuplicate
		return
	case seen && p.nx.role == roleEnvelopeID:
		// The failure is inside the id's value.
		s.reason = wire.ReasonRPCIDUnusable
		return
	case atKey:
		s.count, s.afterID = 1, true
	case seen:
		// The pass read the id (or a bound dropped it) and could not keep it.
		s.reason = wire.ReasonRPCIDUnusable
		return
	}
	switch d := p.lx.Depth(); {
	case d == 0:
		// The envelope's object was read to its close without an id.
		s.reason = wire.ReasonRPCIDMissing
		return
	case int64(d) > p.e.lim[bounds.Depth]:
		s.reason = wire.ReasonRPCIDDepth
		return
	}
	s.on = true
}

// idScanChunk reads b[i:] for the id (b at input offset p.lx.Base).
func (p *pass) idScanChunk(b []byte, i int) {
	s := &p.ids
	lx := &p.lx
	maxDepth := p.e.lim[bounds.Depth]
	for i < len(b) && s.on {
		var k jsonlex.Kind
		k, i = lx.Next(b, i)
		switch k {
		case jsonlex.BeginObject, jsonlex.BeginArray:
			if int64(lx.Depth()) > maxDepth {
				s.stop(wire.ReasonRPCIDDepth)
				return
			}
			if lx.Depth() == 2 {
				p.idValue(idOther)
			}
		case jsonlex.EndObject, jsonlex.EndArray:
			if lx.Depth() == 0 {
				p.idScanClose()
				return
			}
		case jsonlex.BeginName:
			s.afterID = false
			if lx.Depth() == 1 {
				s.mode, s.keyNot, s.key = idKey, false, s.key[:0]
				p.norm.Reset()
			}
		case jsonlex.BeginString:
			if lx.Depth() == 1 && p.idValue(idString) {
				s.mode = idStr
				p.norm.Reset()
			}
		case jsonlex.BeginNumber:
			if lx.Depth() == 1 && p.idValue(idNumber) {
				s.mode = idNum
			}
		case jsonlex.BeginLiteral:
			if lx.Depth() == 1 {
				p.idValue(idOther)
			}
		case jsonlex.Text, jsonlex.Rune:
			p.idText(lx.Seg())
		case jsonlex.Escape:
			one := [1]byte{lx.Byte()}
			p.idText(one[:])
		case jsonlex.Invalid:
			if s.mode == idStr && p.e.pol.InvalidUTF8 == "reject" {
				s.bad = true
			}
			for range lx.N() {
				p.idText(replacementChar)
			}
		case jsonlex.EndString:
			p.idStringEnd()
		case jsonlex.Number:
			if s.mode == idNum {
				if !s.over {
					s.text = append(s.text, lx.Seg()...)
					s.over = len(s.text) > maxEnvelopeID
				}
				if lx.Ended() {
					s.mode = idSkip
				}
			}
		case jsonlex.EndNumber:
			s.mode = idSkip
		case jsonlex.Fail:
			s.stop(wire.ReasonRPCIDMalformed)
			return
		}
		if s.count > 1 {
			s.stop(wire.ReasonRPCIDDuplicate)
			return
		}
	}
}

// idValue starts a value of the envelope's object; it reports whether the
// value is the id's.
func (p *pass) idValue(k idKind) bool {
	s := &p.ids
	if !s.afterID {
		return false
	}
	s.afterID = false
	s.kind = k
	s.text = s.text[:0]
	s.over = false
	return true
}

// idText takes decoded text of the string being read.
func (p *pass) idText(d []byte) {
	s := &p.ids
	switch s.mode {
	case idKey:
		if !s.keyNot {
			s.key = p.norm.Append(s.key, d, false)
			s.keyNot = !idPrefix(s.key)
		}
	case idStr:
		if !s.over {
			s.text = p.norm.Append(s.text, d, false)
			s.over = len(s.text) > maxEnvelopeID
		}
	}
}

// idPrefix reports whether k is a prefix of "id".
func idPrefix(k []byte) bool {
	return len(k) <= len(idName) && string(k) == string(idName[:len(k)])
}

// idStringEnd ends the string being read.
func (p *pass) idStringEnd() {
	s := &p.ids
	switch s.mode {
	case idKey:
		if !s.keyNot {
			s.key = p.norm.Append(s.key, nil, true)
			if string(s.key) == "id" {
				s.count++
				s.afterID = true
			}
		}
	case idStr:
		if !s.over {
			s.text = p.norm.Append(s.text, nil, true)
			s.over = len(s.text) > maxEnvelopeID
		}
	}
	s.mode = idSkip
}

// idScanClose ends the scan at the close of the envelope's object: the id
// is kept when there was exactly one and it is usable.
func (p *pass) idScanClose() {
	s := &p.ids
	s.on = false
	switch {
	case s.count == 0:
		s.reason = wire.ReasonRPCIDMissing
		return
	case s.count > 1:
		s.reason = wire.ReasonRPCIDDuplicate
		return
	case s.over || s.bad || s.kind != idString && s.kind != idNumber:
		s.reason = wire.ReasonRPCIDUnusable
		return
	}
	if s.kind == idNumber {
		p.envID, p.envIDStr, p.envIDOK = append(p.envID[:0], s.text...), false, true
		return
	}
	// Redacted as the pass redacts the value of a member "id".
	p.red.ResetWithContext(idName)
	s.out, s.fs = p.red.Append(s.out[:0], s.text, true, s.fs[:0])
	if len(s.out) > maxEnvelopeID {
		s.reason = wire.ReasonRPCIDUnusable
		return
	}
	p.envID, p.envIDStr, p.envIDOK = append(p.envID[:0], s.out...), true, true
}

// idDrain takes the rest of the input of a failed pass: it hashes it for
// the evidence digest and, while the id is looked for, lexes it.
type idDrain struct{ p *pass }

func (w idDrain) Write(b []byte) (int, error) {
	p := w.p
	p.inH.Write(b)
	if p.ids.on {
		if p.ctx.Err() != nil {
			p.ids.stop(wire.ReasonRPCIDDeadline)
		} else {
			p.lx.Base = p.inN
			p.idScanGuarded(b)
		}
	}
	p.inN += int64(len(b))
	return len(b), nil
}

// idScanGuarded is idScanChunk outside the pass's own recovery (the error
// result is being written): a fault of the scan ends it with the id null.
func (p *pass) idScanGuarded(b []byte) {
	defer func() {
		if r := recover(); r != nil {
			p.ids.stop(wire.ReasonRPCIDNotRead)
		}
	}()
	p.idScanChunk(b, 0)
}

// drainRest reads the rest of the input of a failed pass (at most
// drainLimit bytes), hashing it for the evidence digest without parsing it
// and, while the id is looked for, lexing it for the id; then the scan
// ends.
func (p *pass) drainRest() {
	lr := &io.LimitedReader{R: p.inReader, N: drainLimit}
	if !p.ids.on {
		n, _ := io.CopyBuffer(p.inH, lr, p.inbuf)
		p.inN += n
		return
	}
	_, err := io.CopyBuffer(idDrain{p}, lr, p.inbuf)
	if !p.ids.on {
		return
	}
	switch {
	case err != nil:
		p.ids.stop(wire.ReasonRPCIDNotRead)
	case lr.N == 0:
		p.ids.stop(wire.ReasonRPCIDBytes)
	default:
		p.ids.stop(wire.ReasonRPCIDInputEnded)
	}
}

// idScanEnd ends the scan of a pass whose rest of input was not read and
// records why the error envelope's id is null, if it is.
func (p *pass) idScanEnd() {
	s := &p.ids
	if s.on {
		s.stop(wire.ReasonRPCIDNotRead)
	}
	if p.envelope && !p.envIDOK {
		p.ev.IDNullReason = string(s.reason)
	}
}
