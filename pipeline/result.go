package pipeline

import (
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"time"
)

// finishEvidence completes the evidence of a pass that delivered output.
func (p *pass) finishEvidence(start time.Time) {
	ev := &p.ev
	ev.Input = Digest{Bytes: p.inN, Digest: p.inH.String()}
	ev.Output = Digest{Bytes: p.em.written, Digest: p.em.h.String()}
	ev.Nodes = p.cnt.Nodes()
	ev.Depth = p.cnt.MaxDepth()
	ev.DurationNanos = time.Since(start).Nanoseconds()
	if p.sch != nil {
		r := p.sch.rec
		if r.Outcome == "" {
			r.Outcome = "not-checked"
		}
		ev.Schema = &r
	}
	switch {
	case p.fail != nil:
		ev.Outcome = OutcomeRejected
	case p.truncs > 0:
		ev.Outcome = OutcomeTruncated
		ev.Code = CodeOutputTruncated
	case ev.Redactions() > 0 || ev.RemovedChars() > 0 || ev.InvalidUTF8 > 0 || ev.DroppedKeys > 0 || ev.NFKCChanged > 0 || ev.ConfusablesFolded > 0 || ev.EscapesDecoded > 0 || len(ev.Binary) > 0,
		p.sch != nil && p.sch.changed, p.rpc.changed:
		ev.Outcome = OutcomeSanitized
	default:
		ev.Outcome = OutcomeClean
	}
}

// drainLimit bounds how much unread input a failed pass still hashes so the
// evidence digest covers the whole message.
const drainLimit = 1 << 30

// finishError discards what was written and writes the sanitized error
// result for p.fail instead.
func (p *pass) finishError(out Output, start time.Time) (*Evidence, error) {
	f := p.fail
	p.idScanBegin()
	if f.Code != CodeTimeout && f.Reason != string(wire.ReasonReadError) && p.inReader != nil {
		// Hash the rest of the input for the evidence digest, without
		// parsing it, but for the envelope's id if it is still looked for.
		p.drainRest()
	}
	p.idScanEnd()
	if err := out.Discard(); err != nil {
		p.ev.Outcome = OutcomeRejected
		p.ev.Code, p.ev.Reason = f.Code, f.Reason
		p.finishEvidence(start)
		return p.evidenceCopy(), errOutput{err}
	}
	p.em.reset(out)
	p.writeErrorResult(f)
	p.em.flush()
	p.finishEvidence(start)
	p.ev.Code = f.Code
	p.ev.Reason = f.Reason
	p.ev.ErrorOffset = f.Offset
	p.ev.ErrorPointer = f.Pointer
	if p.em.err != nil {
		return p.evidenceCopy(), errOutput{p.em.err}
	}
	return p.evidenceCopy(), nil
}

// writeErrorResult writes the error result for a failed pass. For a tool
// result it is a CallToolResult with isError, the label and the public
// message; for other kinds a JSON-RPC error object. Either way the stable
// code is in _meta (or data) under MetaPrefix. Nothing of the input is in it.
//
// When the message was a JSON-RPC envelope (its top-level object had
// jsonrpc, id, result, method, params or error), the error result keeps
// that shape: {"jsonrpc":"2.0","id":…,"result":{…}} for a tool result,
// {"jsonrpc":"2.0","id":…,"error":{…}} otherwise, with the id as the pass
// sanitized it (a number verbatim, a string sanitized like any string, at
// most 128 bytes) or null when it was not read whole before the failure.
func (p *pass) writeErrorResult(f *Error) {
	em := &p.em
	if p.info.Kind == KindNotification {
		p.writeNotificationError(f) // a notification has no response (guard_misc.go)
		return
	}
	if p.envelope {
		em.rawString(`{"jsonrpc":"2.0","id":`)
		switch {
		case !p.envIDOK:
			em.rawString("null")
		case p.envIDStr:
			em.byte1('"')
			em.escaped(p.envID)
			em.byte1('"')
		default:
			em.raw(p.envID)
		}
		if p.info.Kind == KindToolResult || p.info.Kind == "" {
			em.rawString(`,"result":`)
			p.writeBareErrorResult(f)
			em.byte1('}')
			return
		}
		em.byte1(',')
		p.writeErrorMember(f)
		em.byte1('}')
		return
	}
	p.writeBareErrorResult(f)
}

func (p *pass) writeBareErrorResult(f *Error) {
	em := &p.em
	if p.info.Kind == KindToolResult || p.info.Kind == "" {
		em.rawString(`{"resultType":"complete","content":[{"type":"text","text":"`)
		em.escapedString(p.label)
		if p.pubMsg != "" {
			em.escapedString(p.pubMsg)
		} else {
			em.escapedString(wire.ReasonPublicMessage(f.Code, wire.Reason(f.Reason)))
		}
		em.rawString(`"}],"isError":true,"_meta":{`)
		p.writeErrorMeta(f)
		em.rawString(`}}`)
		return
	}
	em.byte1('{')
	p.writeErrorMember(f)
	em.byte1('}')
}

// writeErrorMember writes "error":{…}, the JSON-RPC error of other kinds.
func (p *pass) writeErrorMember(f *Error) {
	em := &p.em
	em.rawString(`"error":{"code":-32603,"message":"`)
	em.escapedString(wire.ReasonPublicMessage(f.Code, wire.Reason(f.Reason)))
	em.rawString(`","data":{`)
	p.writeErrorMeta(f)
	em.rawString(`}}`)
}

func (p *pass) writeErrorMeta(f *Error) {
	p.writeCommonLabels()
	p.metaKey("code")
	if privateReason(f.Code) {
		// The guards' one public error says nothing of why.
		p.em.rawString(`"` + string(f.Code) + `"`)
		return
	}
	p.em.rawString(`"` + string(f.Code) + `",`)
	p.metaKey("reason")
	p.em.byte1('"')
	p.em.escapedString(f.Reason)
	p.em.byte1('"')
}
