package pipeline

import (
	"encoding/json"
	"slices"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Secrets across _meta members (docs/pipeline.md, "Secrets across _meta
// members").
//
// A tool's _meta (of the result, of the message, of a content block) is
// held whole before it is merged with the sanitizer's labels (meta-bytes
// bounds it, 64 KiB by default, and a _meta over it fails the pass), so
// the pass can look at it again when it closes, with no memory beyond the
// bound it already keeps. A model reads two adjacent string members as it
// reads two adjacent text blocks: a key written half in one member's
// value and half in the next's ({"a":"ghp_1234…","b":"…5678"}) is one key
// to it. Each value is first scanned alone, as any string; when the _meta
// closes, each two string values that are adjacent in the same object or
// array (consecutive members or items as written, dropped reserved members
// not counted) are read as one text: the first's sanitized value, then the
// second's. A match that crosses the point where they meet is redacted as
// in text blocks: one marker at the end of the first value, its part in
// the second removed, a finding recorded with the first value's pointer
// and, as endPointer, the second's (Offset counts bytes of the first
// value as sanitized). A chain of three or more values is read pair by
// pair, each pair after the previous one's change. A value cut by a bound,
// a key and a value of another type end adjacency. The _meta objects that
// are not held (a resource's, one nested in other members) are not read
// this way.

// maxMetaJoinValues bounds the string values of one held _meta that are
// recorded; past it the rest are not joined (a _meta of 64 KiB holds at
// most about 10^4 values, and every one costs a record).
const maxMetaJoinValues = 4096

// metaVal is one string value of a held _meta, as written in its buffer.
type metaVal struct {
	lo, hi  int   // its escaped bytes in the held buffer; hi -1 while open
	serial  int32 // the container it is in
	emitted int64 // its place there (members or items written)
	inOff   int64 // the input offset of its string token
	ptr     string
}

// metaJoin is the pass's state of the _meta join.
type metaJoin struct {
	on      bool
	buf     *[]byte // the held _meta's buffer
	serials []int32 // the open containers of the held _meta, innermost last
	next    int32
	vals    []metaVal
	red     *scanners.Redactor
	a, b    []byte
}

// metaJoinOpen follows the containers opened (f, just pushed).
func (p *pass) metaJoinOpen(f *frame) {
	j := &p.mj
	if f.deferM != deferNone && !f.skip && p.e.joinMax > 0 {
		j.on, j.buf = true, &p.heldMeta[f.deferM-1]
		j.serials, j.next, j.vals = append(j.serials[:0], 1), 2, j.vals[:0]
		return
	}
	if j.on {
		j.serials = append(j.serials, j.next)
		j.next++
	}
}

// metaJoinBegin records a string value of the held _meta whose opening
// quote was just written.
func (p *pass) metaJoinBegin() {
	j := &p.mj
	t := p.em.target()
	if t != j.buf || len(j.vals) >= maxMetaJoinValues || len(p.stack) == 0 {
		return
	}
	j.vals = append(j.vals, metaVal{lo: len(*t), hi: -1, serial: j.serials[len(j.serials)-1],
		emitted: p.stack[len(p.stack)-1].emitted, inOff: p.strStart, ptr: p.pointer()})
}

// metaJoinEnd closes the value recorded last, before its closing quote; a
// value that was cut is forgotten.
func (p *pass) metaJoinEnd() {
	j := &p.mj
	k := len(j.vals) - 1
	if k < 0 || j.vals[k].hi >= 0 {
		return
	}
	if p.strCut || p.em.target() != j.buf {
		j.vals = j.vals[:k]
		return
	}
	j.vals[k].hi = len(*j.buf)
}

// metaJoinClose follows the containers closed (f, about to be popped).
// For the held _meta itself it reads the adjacent values across.
func (p *pass) metaJoinClose(f *frame) {
	j := &p.mj
	if !j.on {
		return
	}
	if f.deferM == deferNone {
		if len(j.serials) > 1 {
			j.serials = j.serials[:len(j.serials)-1]
		}
		return
	}
	j.on = false
	if p.fail != nil {
		return
	}
	for i := 1; i < len(j.vals) && p.fail == nil; i++ {
		a, b := &j.vals[i-1], &j.vals[i]
		if a.hi < 0 || b.hi < 0 || a.serial != b.serial || b.emitted != a.emitted+1 {
			continue
		}
		p.metaJoinPair(i)
	}
	j.vals = j.vals[:0]
}

// metaJoinPair reads values i-1 and i as one text and redacts a match
// that crosses from one into the other.
func (p *pass) metaJoinPair(i int) {
	j := &p.mj
	a, b := &j.vals[i-1], &j.vals[i]
	buf := *j.buf
	var ta, tb string
	if json.Unmarshal(quoted(&j.a, buf[a.lo:a.hi]), &ta) != nil || json.Unmarshal(quoted(&j.b, buf[b.lo:b.hi]), &tb) != nil {
		return // cannot happen: the pass wrote them
	}
	if ta == "" || tb == "" {
		return
	}
	if j.red == nil {
		j.red = p.e.cat.NewRedactor(p.e.fpKey)
		p.installAllow(j.red)
	}
	j.red.Reset()
	joined := append(append(j.a[:0], ta...), tb...)
	_, fs := j.red.Append(nil, joined, true, nil)
	n := int64(len(ta))
	for k := range fs {
		f := &fs[k]
		if f.Offset >= n || f.Offset+int64(f.Length) <= n {
			continue
		}
		if f.Suppressed {
			s := len(p.ev.Suppressed)
			p.recordFinding(f)
			if len(p.ev.Suppressed) > s {
				p.ev.Suppressed[s].Pointer = a.ptr
			}
			return
		}
		na := appendEscapedString(nil, ta[:f.Offset])
		na = appendEscapedString(na, p.e.cat.Marker(f.Rule))
		nb := appendEscapedString(nil, tb[f.Offset+int64(f.Length)-n:])
		p.metaJoinReplace(i, na, nb)
		if p.fail != nil {
			return
		}
		s := len(p.ev.Findings)
		p.recordFinding(f)
		if len(p.ev.Findings) > s {
			r := &p.ev.Findings[s]
			r.Pointer, r.InputOffset, r.EndPointer, r.InKey = a.ptr, a.inOff, b.ptr, false
		}
		return // one match can cross the point where two values meet
	}
}

// metaJoinReplace writes na and nb as the escaped bytes of values i-1 and
// i and moves the values after them.
func (p *pass) metaJoinReplace(i int, na, nb []byte) {
	j := &p.mj
	a, b := &j.vals[i-1], &j.vals[i]
	d := len(na) - (a.hi - a.lo) + len(nb) - (b.hi - b.lo)
	if p.em.counted+int64(d) > p.outBudget {
		p.failf(CodeBoundExceeded, bounds.OutputBytes.String(), a.inOff)
		return
	}
	buf := *j.buf
	buf = slices.Replace(buf, b.lo, b.hi, nb...)
	buf = slices.Replace(buf, a.lo, a.hi, na...)
	*j.buf = buf
	p.em.counted += int64(d)
	da := len(na) - (a.hi - a.lo)
	a.hi += da
	b.lo += da
	b.hi = b.lo + len(nb)
	for k := i + 1; k < len(j.vals); k++ {
		if v := &j.vals[k]; v.hi >= 0 {
			v.lo += d
			v.hi += d
		}
	}
}

// quoted returns s between double quotes, in *scratch.
func quoted(scratch *[]byte, s []byte) []byte {
	*scratch = append(append(append((*scratch)[:0], '"'), s...), '"')
	return *scratch
}
