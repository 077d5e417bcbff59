package pipeline

import (
	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file bounds the strings of structuredContent that the tool's
// outputSchema declares base64 ("contentEncoding": "base64" or
// "format": "byte"; schema.Schema.BinaryAt says which locations) as binary
// data: by binary-bytes (the decoded size), not by string-chars, whatever
// their bytes start with. Such a string must be standard base64 (the
// alphabet of RFC 4648 §4, '=' padding only at its end, a length that is a
// multiple of 4, no line breaks); one that is not is rejected with
// INVALID_CONTENT bad-base64, as base64 data is everywhere else. Strings
// the schema does not declare keep the signature rule of binary_text.go.

// schemaBase64Start tells, at the start of a value string in the held
// structuredContent, whether its location is declared base64.
func (p *pass) schemaBase64Start() {
	s := p.sch
	if s == nil || s.hold != holdStructured || !s.s.HasBinary() {
		return
	}
	n := 0
	for i := s.holdDepth; i < len(p.stack); i++ {
		f := &p.stack[i]
		if n == len(s.path) {
			s.path = append(s.path, schema.Step{})
		}
		st := &s.path[n]
		n++
		if f.obj {
			// Strings of one object share its path: a key is copied
			// only when it changed.
			if st.Item || st.Key != string(f.key) {
				*st = schema.Step{Key: string(f.key)}
			}
		} else {
			*st = schema.Step{Index: int(f.items - 1), Item: true}
		}
	}
	p.strSchemaB64 = s.s.BinaryAt(s.path[:n], &s.scratch)
}

// binaryBound is called when a string of n more characters crosses its
// character bound b. It reports whether the string goes on bounded as
// binary instead (false, with the pass failed, when it crosses
// binary-bytes or is not base64).
func (p *pass) binaryBound(b bounds.Bound, n int64) bool {
	if !p.strSchemaB64 || b != bounds.StringChars {
		return p.base64Bound(b, n)
	}
	if p.b64s.no {
		p.failf(CodeInvalidContent, string(wire.ReasonBadBase64), p.strStart)
		return false
	}
	if (p.strChars+n)/4*3 > p.e.lim[bounds.BinaryBytes] {
		p.failf(CodeBoundExceeded, bounds.BinaryBytes.String(), p.strStart)
		return false
	}
	return true
}

// schemaBase64End checks, at the end of a string declared base64, that it
// is whole standard base64.
func (p *pass) schemaBase64End() {
	if p.b64s.no || p.strChars%4 != 0 {
		p.failf(CodeInvalidContent, string(wire.ReasonBadBase64), p.strStart)
	}
}
