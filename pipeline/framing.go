package pipeline

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Framing says how a message body is framed (wire.Framing): a bare result
// or a JSON-RPC message. It comes from the caller (MessageInfo.Framing),
// never from the body: see docs/pipeline.md, "Framing".
type Framing = wire.Framing

// The framings, under their pipeline names.
const (
	FramingAuto    = wire.FramingAuto
	FramingBare    = wire.FramingBare
	FramingJSONRPC = wire.FramingJSONRPC
)

// ParseFraming checks a framing name (wire.ParseFraming).
func ParseFraming(s string) (Framing, bool) { return wire.ParseFraming(s) }

// framing is the pass's form of a Framing; the zero value is auto.
type framing uint8

const (
	framingAuto framing = iota
	framingBare
	framingJSONRPC
)

// framingOf maps a MessageInfo's Framing; ok is false for a name that is
// not one ("" is auto).
func framingOf(f Framing) (framing, bool) {
	switch f {
	case "", FramingAuto:
		return framingAuto, true
	case FramingBare:
		return framingBare, true
	case FramingJSONRPC:
		return framingJSONRPC, true
	}
	return framingAuto, false
}

// envelopeMember reports whether k is a member of a JSON-RPC message.
func envelopeMember(k string) bool {
	switch k {
	case "jsonrpc", "id", "method", "params", "result", "error":
		return true
	}
	return false
}

// resultMember reports whether k is a tool result's own member, one that
// says what the result is (the result's _meta is neither: an envelope has
// one of its own).
func resultMember(k string) bool {
	switch k {
	case "content", "structuredContent", "isError", "resultType":
		return true
	}
	return false
}

// decidingObject reports whether an object of role r is one whose members
// say what a tool result means: the result (top level or an envelope's),
// a content block, an embedded resource. Crossing the object-entries bound
// in one rejects the message rather than dropping members, since a dropped
// isError, type or content would change what the rest means.
func decidingObject(r role) bool {
	return r == roleTop || r == roleResult || r == roleBlock || r == roleResource
}

// keptWhenExhausted reports what happens to the member k of the deciding
// object of role r once the output budget is spent: keep (written all the
// same: isError, a literal, and content, whose blocks are then dropped with
// a note, both within the budget's reserve), refuse (the message is
// rejected: a member whose loss or cut changes what the result means), or
// neither (dropped like any other member).
func keptWhenExhausted(r role, k string) (keep, refuse bool) {
	switch r {
	case roleTop, roleResult:
		switch k {
		case "isError", "content":
			return true, false
		case "structuredContent", "resultType", "result", "id":
			return false, true
		}
	case roleBlock, roleResource:
		switch k {
		case "type", "text", "resource", "data", "blob", "mimeType", "uri":
			return false, true
		}
	}
	return false, false
}

// metaReserved reports whether key, a _meta key, is under MetaPrefix in
// any letter case: its first len(MetaPrefix) characters equal the prefix
// under Unicode simple case folding.
func metaReserved(key []byte) bool {
	const n = len(MetaPrefix)
	if len(key) < n {
		return false
	}
	i, runes := 0, 0
	for i < len(key) && runes < n {
		if key[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(key[i:])
			i += size
		}
		runes++
	}
	return runes == n && bytes.EqualFold(key[:i], metaPrefixBytes)
}

// maxToolNameIn bounds the bytes of a tool name that are normalized.
const maxToolNameIn = 512

// cleanToolName returns the tool name as labels and evidence carry it:
// normalized like text (NFKC, invisible and control characters removed,
// look-alikes folded, by n) when it holds anything but [A-Za-z0-9_.:/-],
// then restricted to that set and to 128 bytes (safeLabel). scratch is
// reused for the normalized bytes.
func cleanToolName(n *scanners.Normalizer, scratch []byte, s string) (string, []byte) {
	plain := len(s) <= 128
	for i := 0; plain && i < len(s); i++ {
		plain = labelByte(s[i])
	}
	if plain {
		return s, scratch
	}
	if len(s) > maxToolNameIn {
		s = s[:maxToolNameIn]
	}
	n.Reset()
	scratch = n.Append(scratch[:0], []byte(s), true)
	return safeLabel(string(scratch)), scratch
}

// topMember classifies a member of the top-level object that the framing
// decides (ok false: the member is not one, memberNext goes on). A member
// named like a JSON-RPC envelope's makes the object an envelope, unless the
// caller said the body is bare (then it is data); a tool result's own
// member is the result's, unless the caller said JSON-RPC. The two kinds
// of member in one object are refused (next.mixed), in either order, so a
// tool cannot turn its result into an envelope (or back) by adding one.
func (s *shaper) topMember(f *frame, k string) (next, bool) {
	if envelopeMember(k) {
		f.envMember = true
		if s.tool && f.resMember {
			return next{mixed: true}, true
		}
		if s.framing == framingBare {
			return next{region: regionOther}, true
		}
		f.envelope, s.envelope = true, true
		switch k {
		case "result":
			return next{role: roleResult, region: regionOther}, true
		case "id":
			return next{role: roleEnvelopeID, region: regionOther}, true
		case "jsonrpc":
			return next{role: roleEnvelopeVersion, region: regionOther}, true
		case "params":
			switch s.rk {
			case rkSampling:
				// A sampling request's params hold its messages, read
				// like a prompt result's (binary_kinds.go).
				return next{role: roleResult, region: regionOther}, true
			case rkNotification:
				// A notification's params: its texts bounded, no labels
				// added (binary_kinds.go).
				return next{role: roleNotifyParams, region: regionOther}, true
			}
		}
		return next{region: regionOther}, true
	}
	if s.tool && resultMember(k) {
		if f.envMember || s.framing == framingJSONRPC {
			return next{mixed: true}, true
		}
		f.resMember = true
	}
	return next{}, false
}

// keepExhausted decides a member of a deciding object read once the output
// budget is spent (keptWhenExhausted): it reports whether the member is
// kept, and fails the pass for one that must not be lost.
func (p *pass) keepExhausted(f *frame, nx next, key []byte, off int64) bool {
	if !p.tool || !decidingObject(f.role) || len(key) > 32 {
		return false
	}
	k := string(key)
	if f.role == roleTop && (k == "result" || k == "id") && nx.role != roleResult && nx.role != roleEnvelopeID {
		return false // data of a bare result
	}
	keep, refuse := keptWhenExhausted(f.role, k)
	if refuse {
		p.failf(CodeBoundExceeded, string(wire.ReasonResultMemberDropped), off)
	}
	return keep
}

// typedRole reports whether a value of role r must be of one JSON type
// (checkValueType).
func typedRole(r role) bool { return typedRoles[r] }

// typedRoles lists the roles of typedRole: one load per value.
var typedRoles = [256]bool{roleIsError: true, roleContent: true, roleText: true, roleResText: true, roleEnvelopeVersion: true}

// checkValueType fails the pass when the value of role r, whose first byte
// is c, is not of the type its role needs: isError a boolean (a string
// "true", a 1 or a null would be read as true by some clients and as
// false by others), content an array, a text a string. It is decided at
// the first byte, before the value is read.
func (p *pass) checkValueType(r role, c byte, off int64) {
	switch r {
	case roleIsError:
		if c != 't' && c != 'f' {
			p.failf(CodeInvalidContent, string(wire.ReasonIsErrorNotBoolean), off)
		}
	case roleContent:
		if c != '[' {
			p.failf(CodeInvalidContent, string(wire.ReasonContentNotArray), off)
		}
	case roleText, roleResText:
		if c != '"' {
			p.failf(CodeInvalidContent, string(wire.ReasonTextNotString), off)
		}
	case roleEnvelopeVersion:
		if c != '"' {
			p.failf(CodeInvalidContent, string(wire.ReasonEnvelopeVersion), off)
		}
	}
}

// genericEnvelope checks the envelope of a KindGeneric message, which may
// be any one JSON-RPC message: a request or notification (a "method", no
// "result" or "error") or a response (exactly one of "result" and "error",
// no "method" or "params"). It returns the reason of a failure, or "".
func genericEnvelope(f *frame) wire.Reason {
	switch {
	case f.reqMember && (f.hasResult || f.hasError):
		return wire.ReasonEnvelopeAmbiguous
	case f.reqMember && !f.hasMethod:
		return wire.ReasonEnvelopeNotRequest
	case f.reqMember:
		return ""
	case f.hasResult && f.hasError:
		return wire.ReasonEnvelopeAmbiguous
	case !f.hasResult && !f.hasError:
		return wire.ReasonEnvelopeNoResult
	}
	return ""
}

// roleEnvelopeVersion is the "jsonrpc" member of an envelope: captured
// (in mimeBuf, like a block's type) and checked when its string ends.
const roleEnvelopeVersion role = 206

// envelopeVersion takes the envelope's "jsonrpc" value (sanitized, in
// mimeBuf): JSON-RPC 2.0 says it is exactly "2.0".
func (p *pass) envelopeVersion() {
	if len(p.stack) == 0 {
		return
	}
	f := &p.stack[len(p.stack)-1]
	if string(p.mimeBuf) == "2.0" {
		f.version = 1
	} else {
		f.version = -1
	}
}

// checkEnvelope decides, when the top-level object taken for a JSON-RPC
// envelope closes, whether it is one message of the kind the caller named
// (docs/pipeline.md, "Framing"): "jsonrpc" is "2.0"; a result kind's
// envelope is a response, exactly one of "result" and "error" and no
// "method" or "params"; a request kind's carries a "method" and neither
// "result" nor "error". Anything else is ambiguous (a request delivered as
// a tool result, a result beside an error that clients read differently,
// a body with envelope-named members that is neither) and fails the pass,
// so no member a tool writes makes a body pass for an envelope it is not.
func (p *pass) checkEnvelope(f *frame, off int64) {
	var reason wire.Reason
	switch {
	case f.version != 1:
		reason = wire.ReasonEnvelopeVersion
	case p.request:
		if !f.reqMember || f.hasResult || f.hasError {
			reason = wire.ReasonEnvelopeNotRequest
		}
	case p.generic:
		reason = genericEnvelope(f)
	case f.reqMember:
		reason = wire.ReasonEnvelopeNotResponse
	case f.hasResult && f.hasError:
		reason = wire.ReasonEnvelopeAmbiguous
	case !f.hasResult && !f.hasError:
		reason = wire.ReasonEnvelopeNoResult
	}
	if reason != "" {
		p.failf(CodeInvalidContent, string(reason), off)
	}
}
