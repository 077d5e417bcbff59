package pipeline

import (
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"hash/maphash"
	"strconv"
	"unsafe"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
)

// keySet remembers the (sanitized) keys of one object to reject duplicates:
// a short list first, a map for large objects.
type keySet struct {
	small []uint64
	big   map[uint64]struct{}
}

var keySeed = maphash.MakeSeed()

func (k *keySet) reset() {
	k.small = k.small[:0]
	if k.big != nil {
		clear(k.big)
	}
}

// add reports false when key was already present.
func (k *keySet) add(key []byte) bool {
	return k.addHash(keyHash(key))
}

// keyHash is the hash a keySet keeps of key.
func keyHash(key []byte) uint64 { return maphash.Bytes(keySeed, key) }

// addHash is add for a key whose keyHash is h.
func (k *keySet) addHash(h uint64) bool {
	if k.big != nil && len(k.big) > 0 {
		if _, ok := k.big[h]; ok {
			return false
		}
		k.big[h] = struct{}{}
		return true
	}
	for _, v := range k.small {
		if v == h {
			return false
		}
	}
	if len(k.small) < 16 {
		k.small = append(k.small, h)
		return true
	}
	if k.big == nil {
		k.big = make(map[uint64]struct{}, 64)
	}
	for _, v := range k.small {
		k.big[v] = struct{}{}
	}
	k.big[h] = struct{}{}
	return true
}

func (p *pass) regionAction(r region) Action {
	switch r {
	case regionText:
		return p.e.pol.Actions.Text
	case regionStructured:
		return p.e.pol.Actions.Structured
	case regionMeta:
		return ActionReject
	}
	return p.e.pol.Actions.Other
}

func (p *pass) openContainer(obj bool, nx next, off int64) {
	if !p.cnt.Enter() {
		p.failf(CodeBoundExceeded, bounds.Depth.String(), off)
		return
	}
	if len(p.stack) < cap(p.stack) {
		p.stack = p.stack[:len(p.stack)+1]
	} else {
		p.stack = append(p.stack, frame{})
	}
	f := &p.stack[len(p.stack)-1]
	key, keys, shape := f.key[:0], f.keys, f.shape
	keys.reset()
	*f = frame{obj: obj, skip: nx.drop, role: nx.role, region: nx.region, deferM: nx.deferM, key: key, keys: keys, shape: shape}
	if !obj && nx.role == roleBlock {
		f.role = roleGeneric
		if p.rk == rkSampling {
			// A sampling message's content may be an array of blocks
			// (SamplingMessage, 2025-11-25 and 2026-07-28).
			f.role = roleSamplingBlocks
		}
	}
	if obj && nx.role == roleTop {
		f.envelope = p.framing == framingJSONRPC
	}
	if obj {
		p.shapeOpen(f) // shapememo.go
	}
	if obj && f.role == roleBlock && !f.skip {
		p.binOpen() // before its '{': the block is held until its binary data is kept
	}
	if obj && f.role == roleBlock {
		p.bj.blkType = 0
	}
	if p.bj.red != nil {
		p.joinOpen(f) // a text is held for the next block's (blockjoin.go)
	}
	if obj && f.role == roleResItem && !f.skip {
		p.binOpenItem()
	}
	if !f.skip {
		if f.deferM != deferNone {
			i := int(f.deferM) - 1
			p.heldMeta[i] = p.heldMeta[i][:0]
			p.em.pushSide(&p.heldMeta[i], int(p.e.lim[bounds.MetaBytes]))
		} else if obj {
			p.em.byte1('{')
		} else {
			p.em.byte1('[')
		}
	}
	p.metaJoinOpen(f)
	p.nameCtx = obj
}

func (p *pass) closeContainer(obj bool, off int64) {
	f := &p.stack[len(p.stack)-1]
	p.metaJoinClose(f) // before a held _meta's bound is checked (metajoin.go)
	if !f.skip {
		switch {
		case f.deferM != deferNone:
			// The held _meta is complete; its owner merges it on close.
			if p.em.popSide() || int64(len(p.heldMeta[f.deferM-1])) > p.e.lim[bounds.MetaBytes] {
				p.failf(CodeBoundExceeded, bounds.MetaBytes.String(), off)
				return
			}
			if len(p.stack) > 1 {
				p.stack[len(p.stack)-2].heldMeta = true
			}
		case obj:
			if f.binary || p.bw.level == len(p.stack) {
				replaced := p.binClose(f, off)
				if p.fail != nil {
					return
				}
				if replaced {
					break
				}
			}
			if p.sch != nil && (f.role == roleTop || f.role == roleResult) {
				p.finishHeld(f, off)
				if p.fail != nil {
					return
				}
			}
			if f.role == roleTop && f.envelope {
				p.checkEnvelope(f, off)
				if p.fail != nil {
					return
				}
			}
			p.closeObjectMeta(f)
			p.em.byte1('}')
		default:
			if f.role == roleContent && f.dropped > 0 {
				p.omittedBlocksNote(f)
			}
			p.em.byte1(']')
		}
	}
	if p.bj.red != nil && p.fail == nil {
		p.joinClose(f) // a text is held for the next block's (blockjoin.go)
	}
	p.stack = p.stack[:len(p.stack)-1]
	p.cnt.Leave()
	p.valueDone()
}

// metaOnClose decides the _meta written when the object f closes: d is
// the held _meta slot merged into it, write says whether a _meta member is
// written at all, ours whether the sanitizer's labels go in. A JSON-RPC
// envelope carries only its own _meta, if it had one; a bare result, an
// envelope's result and a tool result's content block carry ours.
func (s *shaper) metaOnClose(f *frame) (d deferKind, write, ours bool) {
	switch {
	case f.role == roleTop && f.envelope:
		return deferTop, f.heldMeta, false
	case f.role == roleTop:
		return deferTop, true, true
	case f.role == roleResult:
		return deferResult, true, true
	case f.role == roleBlock && s.tool:
		return deferBlock, true, true
	}
	return deferNone, false, false
}

// closeObjectMeta merges the held _meta of a result or block with the
// sanitizer's own keys (shaper.metaOnClose decides which).
func (p *pass) closeObjectMeta(f *frame) {
	if d, write, ours := p.metaOnClose(f); write {
		p.writeMeta(f, d, ours)
	}
}

func (p *pass) writeMeta(f *frame, d deferKind, ours bool) {
	held := p.heldMeta[d-1]
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	p.em.rawString(`"_meta":{`)
	if f.heldMeta {
		p.em.counted -= int64(len(held)) // already counted when held
		p.em.raw(held)
	}
	if ours {
		if f.heldMeta && len(held) > 0 {
			p.em.byte1(',')
		}
		if d == deferBlock {
			p.writeBlockLabels(f)
		} else {
			p.writeResultLabels()
		}
	}
	p.em.byte1('}')
	p.heldMeta[d-1] = p.heldMeta[d-1][:0]
}

func (p *pass) metaKey(name string) {
	p.em.rawString(`"` + MetaPrefix)
	p.em.rawString(name)
	p.em.rawString(`":`)
}

// writeCommonLabels writes the labels every result and error result
// carries, each followed by a comma.
func (p *pass) writeCommonLabels() {
	p.metaKey("untrusted")
	p.em.rawString("true,")
	p.metaKey("guard")
	p.em.rawString(`"` + GuardVersion + `",`)
	p.metaKey("policy")
	p.em.byte1('"')
	p.em.escapedString(p.e.pol.Version)
	p.em.rawString(`",`)
	if p.sch != nil {
		p.metaKey("outputSchema")
		p.em.rawString(`"` + p.sch.digest + `",`) // "sha256:" and hex digits
	}
}

func (p *pass) writeResultLabels() {
	p.writeCommonLabels()
	p.metaKey("truncated")
	if p.truncs > 0 {
		p.em.rawString("true,")
		p.metaKey("code")
		p.em.rawString(`"` + string(CodeOutputTruncated) + `",`)
		p.metaKey("truncations")
		p.em.rawString(strconv.FormatInt(p.truncs, 10) + ",")
	} else {
		p.em.rawString("false,")
	}
	p.metaKey("redactions")
	p.em.rawString(strconv.FormatInt(p.secrets, 10) + ",")
	p.metaKey("removedChars")
	p.em.rawString(strconv.FormatInt(p.ev.RemovedChars(), 10))
}

func (p *pass) writeBlockLabels(f *frame) {
	p.metaKey("untrusted")
	p.em.rawString("true,")
	p.metaKey("source")
	p.em.byte1('"')
	p.em.escapedString("tool:" + p.toolName())
	p.em.byte1('"')
	if f.cut {
		p.em.byte1(',')
		p.metaKey("truncated")
		p.em.rawString("true")
	} else if p.sch != nil {
		p.deferLabels() // where a held text's truncation would be said
	}
}

// omittedBlocksNote appends a text block saying how many blocks were
// dropped and how to see them.
func (p *pass) omittedBlocksNote(f *frame) {
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	p.em.rawString(`{"type":"text","text":"`)
	p.em.escapedString(p.label)
	p.em.escapedString("[OUTPUT_TRUNCATED: " + strconv.FormatInt(f.dropped, 10) +
		" more content blocks were omitted. Narrow the request (fewer items, a filter or a page size) to see them.]")
	p.em.rawString(`"}`)
}

// itemNext decides the next array item: its role and whether it is dropped
// by a bound. It writes the separator of a kept item.
func (p *pass) itemNext(f *frame, off int64) next {
	f.items++
	nx := itemRole(f)
	if f.skip {
		nx.drop = true
		return nx
	}
	if p.e.lim.Over(bounds.ArrayItems, f.items) {
		if !p.dropMember(f, bounds.ArrayItems, off) {
			return nx
		}
		nx.drop = true
		return nx
	}
	if p.exhausted {
		if !p.dropMember(f, bounds.OutputBytes, off) {
			return nx
		}
		nx.drop = true
		return nx
	}
	if f.emitted > 0 {
		p.em.byte1(',')
	}
	f.emitted++
	return nx
}

// itemRole gives the role of an item of the array f.
func itemRole(f *frame) next {
	nx := next{region: f.region}
	switch f.role {
	case roleContent:
		nx.role = roleBlock
	case roleStructured:
		nx.role = roleStructured
	case roleMeta:
		nx.region = regionMeta
	default:
		if r, ok := kindItemRole(f.role); ok {
			nx.role = r
		}
	}
	return nx
}

// dropMember applies a container bound: under truncate the member is
// dropped (counted); under reject the pass fails. It reports whether the
// pass goes on.
func (p *pass) dropMember(f *frame, b bounds.Bound, off int64) bool {
	if b.Crossing() == bounds.Reject || p.regionAction(f.region) == ActionReject {
		p.failf(CodeBoundExceeded, b.String(), off)
		return false
	}
	if f.dropped == 0 {
		p.truncs++
		p.recordBound(b, ActionTruncate)
	}
	f.dropped++
	return true
}

var metaPrefixBytes = []byte(MetaPrefix)

// protoKey reports whether k is "__proto__", "constructor" or "prototype"
// (a switch on the length: this runs for every member name).
func protoKey(k []byte) bool {
	switch len(k) {
	case 9:
		return string(k) == "__proto__" || string(k) == "prototype"
	case 11:
		return string(k) == "constructor"
	}
	return false
}

// keyDone acts on the member whose key was just read. It coordinates: the
// shape layer decides the value's role (shaper.memberNext), the pass refuses
// prototype-polluting and duplicate keys, applies the container and output
// bounds, records evidence and writes the key. The refusals stay inline
// here, not a call of their own: this runs for every member name.
func (p *pass) keyDone(off int64) {
	f := &p.stack[len(p.stack)-1]
	p.nameCtx = false
	f.items++
	if f.skip {
		p.nx = next{drop: true}
		return
	}
	key := p.keyBuf
	if p.keyMemo {
		key = p.shapeHit.key // the name read, byte for byte (wholeString)
	}
	if protoKey(key) {
		p.failf(CodeBoundExceeded, string(wire.ReasonPrototypeKey), off)
		return
	}
	// A name the object's shape memo holds at this place (shapememo.go):
	// its hash and its value's role as computed when it was recorded.
	hit := p.shapeHit
	var h uint64
	if hit != nil && int64(f.lazyKeys) == f.items-1 {
		// The names before this one were memo hits too, so the object so
		// far is the memo's first names, which one object held without a
		// duplicate (shapememo.go): this name repeats none of them. Its
		// hash goes into keys when a later name needs the check
		// (keysLazy).
		f.lazyKeys++
	} else {
		if hit != nil {
			h = hit.h
		} else {
			h = keyHash(key)
		}
		if f.lazyKeys > 0 {
			f.keysLazy()
		}
		if !f.keys.addHash(h) {
			// Not one well-formed JSON value for every reader (RFC 8259
			// leaves which member wins open; I-JSON, RFC 7493, forbids it).
			p.failf(CodeInvalidJSON, string(wire.ReasonDuplicateKey), off)
			return
		}
	}
	f.key = append(f.key[:0], key...)
	var nx next
	if hit != nil {
		nx = hit.nx
		p.shapeEnt = hit
	} else {
		nx = p.memberNext(f, key)
		if f.shapeOn {
			p.shapeRecord(f, key, h, nx)
		}
	}
	if nx.mixed {
		p.failf(CodeInvalidContent, string(wire.ReasonEnvelopeMixed), off)
		return
	}
	if nx.reserved {
		p.ev.DroppedKeys++
	}
	if !nx.drop && p.e.lim.Over(bounds.ObjectEntries, f.items) {
		if p.tool && decidingObject(f.role) {
			// A member the entries bound would drop may be the one that
			// says what the rest means (a later isError): never cut.
			p.failf(CodeBoundExceeded, bounds.ObjectEntries.String(), off)
			return
		}
		if !p.dropMember(f, bounds.ObjectEntries, off) {
			return
		}
		nx.drop = true
	}
	if !nx.drop && p.exhausted && !p.keepExhausted(f, nx, key, off) {
		if p.fail != nil || !p.dropMember(f, bounds.OutputBytes, off) {
			return
		}
		nx.drop = true
	}
	if !nx.drop && f.role == roleTop {
		// What the envelope carries, as far as it is written: a dropped
		// result is a missing one.
		f.hasResult = f.hasResult || nx.role == roleResult && string(key) == "result"
		f.hasError = f.hasError || string(key) == "error"
		f.reqMember = f.reqMember || f.envelope && (string(key) == "method" || string(key) == "params")
		f.hasMethod = f.hasMethod || f.envelope && string(key) == "method"
	}
	p.nx = nx
	if nx.drop || nx.deferM != deferNone {
		return
	}
	if nx.hold != holdNone {
		p.beginHold(nx.hold) // the key is written with the value, on close
		return
	}
	if hit != nil && p.keyPlain {
		// What emitter.member writes for this plain key, kept by the memo.
		w := hit.w
		if f.emitted == 0 {
			w = w[1:]
		}
		p.em.raw(w)
	} else {
		p.em.member(f.emitted > 0, key, p.keyPlain)
	}
	f.emitted++
}

// memberNext gives the role of a member's value from its object and key:
// how a message is classified (a result or a JSON-RPC envelope, content
// blocks, resources, _meta, structuredContent, isError and the tool error's
// code). It changes nothing but the envelope flags (topMember).
func (s *shaper) memberNext(f *frame, key []byte) next {
	// Every key with a role is short; a long key is just data. k shares
	// key's bytes instead of copying them (a copy per member name was 2%
	// of a listing's pass): it does not outlive this call, whose callees
	// only compare it and keep nothing of it.
	var k string
	if len(key) <= 32 {
		k = unsafe.String(unsafe.SliceData(key), len(key))
	}
	tool := s.tool
	if s.rk != rkOther {
		if nx, ok := s.kindMember(f, k); ok {
			return nx
		}
	}
	switch f.role {
	case roleTop, roleResult:
		metaSlot := deferResult
		if f.role == roleTop {
			metaSlot = deferTop
			if nx, ok := s.topMember(f, k); ok {
				return nx
			}
		}
		switch {
		case k == "_meta":
			return next{role: roleMeta, region: regionMeta, deferM: metaSlot}
		case tool && k == "content":
			if s.sch != nil {
				return next{role: roleContent, region: regionText, hold: holdContent}
			}
			return next{role: roleContent, region: regionText}
		case tool && k == "structuredContent":
			if s.sch != nil {
				return next{role: roleStructured, region: regionStructured, hold: holdStructured}
			}
			return next{role: roleStructured, region: regionStructured}
		case tool && k == "isError":
			return next{role: roleIsError, region: regionOther}
		}
		if nx, ok := s.kindResultMember(k); ok {
			return nx
		}
		return next{region: regionOther}
	case roleBlock:
		switch k {
		case "text":
			return next{role: roleText, region: regionText}
		case "data":
			return s.blockData()
		case "type":
			return next{role: roleBlockType, region: regionText}
		case "resource":
			return next{role: roleResource, region: regionText}
		case "mimeType":
			return next{role: roleMime, region: regionText}
		case "_meta":
			return next{role: roleMeta, region: regionMeta, deferM: deferBlock}
		}
		return next{region: regionText}
	case roleResource:
		switch k {
		case "text":
			return next{role: roleResText, region: regionText}
		case "blob":
			return next{role: roleBinary, region: regionText}
		case "mimeType":
			return next{role: roleMime, region: regionText}
		case "_meta":
			return next{role: roleMeta, region: regionMeta}
		}
		return next{region: regionText}
	case roleMeta:
		if metaReserved(key) {
			return next{drop: true, reserved: true}
		}
		return next{region: regionMeta}
	case roleStructured:
		if k == "code" && len(s.stack) >= 2 {
			if r := s.stack[len(s.stack)-2].role; r == roleTop || r == roleResult {
				return next{role: roleErrCode, region: regionStructured}
			}
		}
		return next{role: roleStructured, region: regionStructured}
	}
	if k == "_meta" && f.region != regionStructured {
		return next{role: roleMeta, region: regionMeta}
	}
	return next{region: f.region}
}

// pointer builds the JSON pointer of the current value from sanitized keys.
// Inside a key, it is the pointer of the object that holds the key.
func (s *shaper) pointer() string {
	if s.ptrOver != "" {
		return s.ptrOver // a held text scanned later (structured_defer.go)
	}
	b := s.ptrBuf[:0]
	last := len(s.stack) - 1
	for i := range s.stack {
		f := &s.stack[i]
		if f.obj {
			if i == last && s.nameCtx {
				break
			}
			b = append(b, '/')
			for _, c := range f.key {
				switch c {
				case '~':
					b = append(b, '~', '0')
				case '/':
					b = append(b, '~', '1')
				default:
					b = append(b, c)
				}
			}
		} else if f.items > 0 {
			b = append(b, '/')
			b = strconv.AppendInt(b, f.items-1, 10)
		}
	}
	s.ptrBuf = b
	return string(b)
}
