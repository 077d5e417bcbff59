package pipeline

import (
	"bytes"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Whether sanitizing changed structuredContent.
//
// The held structuredContent is the tool's value written again: its
// strings decoded, normalized, redacted and escaped the pass's way. When no
// key or string value changed, the written text differs from the raw one
// only in whitespace and escapes, and every check of the raw value holds
// for it; the result's end then needs no second look at it (the
// token-by-token schema.SameValue, a second schema.ValidRaw or decode).
//
// The pass knows it without comparing: a string it wrote as it was read is
// one that stayed printable ASCII (not dirty: the normalizer never ran on
// it), in which the redactor reported no finding (a replaced match is
// always reported) and which no bound cut. Anything else the pass does to
// a member (dropped by a bound, a reserved key, an invalid sequence
// replaced) is counted in the evidence or the truncation count, which are
// compared at the member's end. When the pass cannot tell, the comparison
// of the texts decides as before (sameValue).

// sameBegin starts tracking the structuredContent member just held.
func (p *pass) sameBegin() {
	s := p.sch
	s.scSame = true
	s.scSnap = [3]int64{p.truncs, p.ev.DroppedKeys, p.ev.InvalidUTF8}
}

// sameEnd ends the tracking at the member's end (over: its text crossed
// structured-bytes).
func (p *pass) sameEnd(over bool) {
	s := p.sch
	if over || s.scSnap != [3]int64{p.truncs, p.ev.DroppedKeys, p.ev.InvalidUTF8} {
		s.scSame = false
	}
}

// sameBatch notes a batch of a string of the held structuredContent that
// went through the chain with findings fs.
func (p *pass) sameBatch(nfs int) {
	if p.strDirty || nfs > 0 || p.strCut || p.strSchemaB64 || p.sm != smText && p.sm != smKey {
		p.sch.scSame = false
	}
}

// sameValue reports whether the held structuredContent is the tool's value
// with nothing but whitespace and escapes changed: told by the pass when it
// knows, else by comparing the two texts.
func (p *pass) sameValue(hr *heldResult) bool {
	same := p.sch.scSame
	if p.e.sameSeen != nil {
		p.e.sameSeen(same)
	}
	if !same || p.e.checkSame {
		slow := bytes.Equal(bytes.TrimSpace(hr.raw), hr.structured) || schema.SameValue(hr.raw, hr.structured)
		if same && !slow {
			// The tests' check (WithSameCheck) that the pass's own
			// account is right: never taken otherwise.
			p.failf(CodeInternal, string(wire.ReasonInternalFault), p.lx.Off())
		}
		same = slow
	}
	return same
}
