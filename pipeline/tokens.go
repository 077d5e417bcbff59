package pipeline

import (
	"github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file is the loop of the pass over the lexer's tokens: jsonlex reads
// JSON and returns one token at a time to feed, which hands it to the shape
// layer (shape.go: roles, _meta, bounds per container), to the string chain
// (decode.go, strings.go) or to the emitter. No call per byte or per token
// goes through an interface.

// feed runs the lexer over one chunk. The lexer's state survives the chunk
// boundary, so any split of the input gives the same result.
func (p *pass) feed(b []byte) {
	p.lx.Base = p.inOff
	i, n := 0, len(b)
	for i < n && p.fail == nil {
		if p.lx.InString() {
			i = p.lexString(b, i)
			continue
		}
		var k jsonlex.Kind
		k, i = p.lx.Next(b, i)
		switch k {
		case jsonlex.BeginObject, jsonlex.BeginArray, jsonlex.BeginString, jsonlex.BeginNumber, jsonlex.BeginLiteral:
			p.beginValue(b, k, p.lx.Off())
		case jsonlex.EndObject:
			p.afterValue(b, p.lx.Off())
			p.closeContainer(true, p.lx.Off())
		case jsonlex.EndArray:
			p.afterValue(b, p.lx.Off())
			p.closeContainer(false, p.lx.Off())
		case jsonlex.Comma:
			p.afterValue(b, p.lx.Off())
			p.nameCtx = p.lx.Object()
		case jsonlex.BeginName:
			p.beginKey(p.lx.Off())
			i = p.members(b, i) // member.go
		case jsonlex.Number:
			p.number()
		case jsonlex.EndNumber:
			p.endNumber()
		case jsonlex.EndLiteral:
			if !p.curSkip() {
				p.em.raw(p.lx.Seg())
				p.literalDone(p.lx.Seg())
			}
			p.valueDone()
		case jsonlex.Fail:
			p.lexFailed(b)
		}
	}
	if p.fail != nil {
		// The rest of this chunk may hold the envelope's id (envelope_id.go).
		p.idScanBegin()
		p.idScanChunk(b, i)
	}
}

// number takes a Number token: its bytes are written as they are.
func (p *pass) number() {
	if p.numEmit {
		seg := p.lx.Seg()
		p.em.raw(seg)
		if p.nx.role == roleEnvelopeID {
			p.envID = append(p.envID, seg...)
		}
	}
	if p.lx.Ended() {
		p.endNumber()
	}
}

// finishDoc checks the end of input.
func (p *pass) finishDoc() {
	p.lx.Base = p.inOff
	for p.fail == nil {
		switch p.lx.End() {
		case jsonlex.EndNumber:
			p.endNumber()
		case jsonlex.Done:
			return
		default:
			p.lexFailed(nil)
			return
		}
	}
}

// lexFailed fails the pass for the lexer's syntax error. The shape layer's
// checks that come first at the same byte (the node and item bounds of a
// value, the end of a held member) run first, so the error reported does not
// depend on which part found its fault.
func (p *pass) lexFailed(b []byte) {
	off := p.lx.Off()
	code := CodeInvalidJSON
	switch p.lx.Err() {
	case jsonlex.ErrExpectedValue:
		p.beginValue(b, jsonlex.Fail, off)
	case jsonlex.ErrExpectedCommaOrClose:
		p.afterValue(b, off)
	case jsonlex.ErrNumberTooLong:
		code = CodeBoundExceeded
	}
	p.failf(code, p.lx.Err().String(), off)
}

// curSkip reports whether output is suppressed for the current value.
func (p *pass) curSkip() bool { return p.nx.drop }

// beginValue starts the value whose first byte, at input offset off, the
// lexer reported as k (Fail: a byte that starts no value, counted and
// placed all the same). It counts the value, decides its role (the item
// bound of its array, a _meta that is not an object, a tool result that is
// not an object, the start of a held structuredContent) and opens it.
func (p *pass) beginValue(b []byte, k jsonlex.Kind, off int64) {
	i := int(off - p.inOff)
	c := b[i]
	if !p.cnt.Node() {
		p.failf(CodeBoundExceeded, string(wire.ReasonNodes), off)
		return
	}
	if len(p.stack) > 0 && !p.stack[len(p.stack)-1].obj {
		p.nx = p.itemNext(&p.stack[len(p.stack)-1], off)
		if p.fail != nil {
			return
		}
	}
	if p.bj.red != nil {
		p.joinValue(k == jsonlex.BeginObject) // a text is held for the next block's (blockjoin.go)
	}
	if p.nx.deferM != deferNone && c != '{' {
		// A _meta that is not an object is dropped: its key was held back.
		p.nx.drop = true
		p.ev.DroppedKeys++
	}
	nx := p.nx
	if (nx.role == roleTop || nx.role == roleResult && !nx.drop) && c != '{' && p.tool && valueStart(c) {
		// A tool result is an object, at the top level or as an
		// envelope's "result": known at the first byte of the value, said
		// once the input is known to be JSON (input that is not JSON is
		// INVALID_JSON whatever its first byte). The value is read and
		// dropped meanwhile; nothing of a failed pass is delivered.
		if p.notObjAt < 0 {
			p.notObjAt, p.notObjPtr = off, p.pointer()
		}
		p.nx.drop = true
		nx = p.nx
	}
	if !nx.drop && typedRole(nx.role) && valueStart(c) {
		p.checkValueType(nx.role, c, off)
		if p.fail != nil {
			return
		}
	}
	if nx.hold == holdStructured && !nx.drop {
		p.sch.beginRaw(i)
	}
	if len(p.stack) == 1 && !nx.drop && p.rpcErrorMember() {
		p.beginRPCError() // a JSON-RPC error object (rpcerror.go)
	}
	switch k {
	case jsonlex.BeginObject:
		p.openContainer(true, nx, off)
	case jsonlex.BeginArray:
		p.openContainer(false, nx, off)
	case jsonlex.BeginString:
		p.beginValueString(nx, off)
	case jsonlex.BeginNumber:
		if nx.role == roleEnvelopeID {
			p.envID, p.envIDStr = p.envID[:0], false
		}
		p.numEmit = !nx.drop
	}
}

// valueStart reports whether c starts a JSON value (well formed or not).
func valueStart(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// valueDone finishes any value: the parent expects a comma or its close.
func (p *pass) valueDone() {
	p.nx = next{}
	p.nameCtx = false
}

// endNumber ends a number the lexer found well formed.
func (p *pass) endNumber() {
	if p.nx.role == roleEnvelopeID {
		p.envIDOK = len(p.envID) <= maxEnvelopeID
	}
	p.valueDone()
}
