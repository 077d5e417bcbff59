package pipeline_test

import (
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// The reference's model of text across blocks (pipeline/blockjoin.go,
// docs/pipeline.md "Text across blocks"), by its definition rather than
// the pass's streaming: the reference cleans every text alone as it reads
// it, and when a tool result's content array ends it finds the chains of
// adjacent text blocks (consecutive items that are content blocks, each
// with a text member, whose type read before the text is "text" or not
// there, and all but the last of type "text"; at most 64 texts, none
// scanned with a member-name context) and replaces their texts: the
// normalized texts of a chain are joined, redacted whole in one Append,
// and cut at the boundaries by the findings: text to the block it came
// from, a marker to the block its match starts in. The counters and the
// kept error text follow.
//
// What the model does not express, so such a document is not compared
// (refJoinUnexpressed): a chain in which a text comes within the held
// tail's room of text-chars (the pass checks the room against what its
// redactor holds, which is its streaming state), more than what
// block-join-bytes allows between two texts, and a replaced block with a
// text (the pass may have joined it before it knew).

// refJoinItem is what the reference saw of one item of a content array.
type refJoinItem struct {
	block      bool   // a content block object, kept
	hasText    bool   // it has a text member
	raw        string // the text as decoded
	typeBefore string // its type read before its text
	typeSeen   bool
	typ        string // its type
	replaced   bool   // the block was replaced by a note
	cut        bool   // its text alone was cut by text-chars
	item       int    // its index among the array's written items
	secrets    int64  // the secret findings of its text alone
	part       int    // its text's index in refJoinCtx.parts; -1: none
	end        int64  // the input offset after its text's token
}

// refJoinCtx is the content array being read.
type refJoinCtx struct {
	items    []refJoinItem
	cur      *refJoinItem
	errStart int      // len(errText) when the array began
	parts    []string // the texts kept for the error text, in order
}

// refJoinUnexpressed marks a document the model does not express.
type refJoinUnexpressed struct{}

// joinBegin starts a tool result's content array; the returned func ends
// it.
func (r *reference) joinBegin() func() {
	saved := r.jc
	r.jc = &refJoinCtx{errStart: len(r.errText)}
	return func() { r.jc = saved }
}

// joinItemStart and joinItemEnd bracket one item of the content array.
func (r *reference) joinItemStart() {
	if r.jc != nil {
		r.jc.cur = &refJoinItem{item: -1, part: -1}
	}
}

func (r *reference) joinItemEnd(dropped bool, idx int) {
	if r.jc == nil || r.jc.cur == nil {
		return
	}
	it := *r.jc.cur
	if dropped {
		it.block = false
	} else {
		it.item = idx
	}
	r.jc.items = append(r.jc.items, it)
	r.jc.cur = nil
}

// joinBlock notes that the current item is a content block.
func (r *reference) joinBlock() {
	if r.jc != nil && r.jc.cur != nil {
		r.jc.cur.block = true
	}
}

// joinReplaced notes that the current block was replaced.
func (r *reference) joinReplaced() {
	if r.jc != nil && r.jc.cur != nil {
		r.jc.cur.replaced = true
	}
}

// joinType notes the current block's type.
func (r *reference) joinType(v string) {
	if r.jc == nil || r.jc.cur == nil {
		return
	}
	c := r.jc.cur
	c.typ = v
	if !c.hasText {
		c.typeBefore, c.typeSeen = v, true
	}
}

// joinText notes the current block's text.
func (r *reference) joinText(raw string, cut bool, secrets int64) {
	if r.jc == nil || r.jc.cur == nil {
		return
	}
	c := r.jc.cur
	c.hasText, c.raw, c.cut, c.secrets = true, raw, cut, secrets
	c.part = len(r.jc.parts) - 1
	c.end = r.dec.InputOffset()
}

// joinErrPart keeps a text given to keepErrText while a content array is
// read.
func (r *reference) joinErrPart(clean string) {
	if r.jc != nil {
		r.jc.parts = append(r.jc.parts, clean)
	}
}

// joinEnd replaces the texts of the array's chains in items (the array's
// written items).
func (r *reference) joinEnd(items []any) {
	jc := r.jc
	if jc == nil || jc.cur != nil {
		return
	}
	ctx := r.red.ResetWithContext([]byte("text"))
	r.red.Reset()
	if ctx || r.joinMax() == 0 {
		return
	}
	for _, it := range jc.items {
		if it.replaced && it.hasText {
			panic(refJoinUnexpressed{})
		}
	}
	member := func(it *refJoinItem) bool {
		return it.block && it.hasText && !it.replaced && (!it.typeSeen || it.typeBefore == "text")
	}
	changed := false
	for i := 0; i < len(jc.items); {
		if !member(&jc.items[i]) {
			i++
			continue
		}
		k := i + 1
		for k < len(jc.items) && k-i < 64 && jc.items[k-1].typ == "text" && member(&jc.items[k]) {
			k++
		}
		if k-i > 1 {
			r.joinChain(items, jc.items[i:k])
			changed = true
		}
		i = k
	}
	if changed {
		// The error text again, from where the array began.
		parts := jc.parts
		r.jc = nil
		r.errText = r.errText[:jc.errStart]
		for _, s := range parts {
			r.keepErrText(s)
		}
		r.jc = jc
	}
}

// joinMax is the policy's block-join-bytes.
func (r *reference) joinMax() int64 {
	if v, ok := r.pol.Limits[pipeline.BlockJoinBytesLimit]; ok {
		return v
	}
	return pipeline.DefaultBlockJoinBytes
}

// joinChain redacts the texts of one chain as one text and writes each
// block's part into items.
func (r *reference) joinChain(items []any, chain []refJoinItem) {
	cat := r.cat
	var joined []byte
	bnd := []int{0}
	for _, it := range chain {
		var n scanners.Normalizer
		n.DisableNFKC = r.pol.DisableNFKC
		joined = n.Append(joined, []byte(it.raw), true)
		bnd = append(bnd, len(joined))
	}
	red := cat.NewRedactor([]byte("reference"))
	rb, fs := red.Append(nil, joined, true, nil)
	outs := make([][]byte, len(chain))
	owner := func(v int) int {
		for k := range chain {
			if v < bnd[k+1] {
				return k
			}
		}
		return len(chain) - 1
	}
	verbatim := func(lo, hi int) {
		for k := range chain {
			a, b := max(lo, bnd[k]), min(hi, bnd[k+1])
			if a < b {
				outs[k] = append(outs[k], joined[a:b]...)
			}
		}
	}
	cur := 0
	var secrets int64
	var whole []byte
	for _, f := range fs {
		verbatim(cur, int(f.Offset))
		whole = append(whole, joined[cur:f.Offset]...)
		m := cat.Marker(f.Rule)
		outs[owner(int(f.Offset))] = append(outs[owner(int(f.Offset))], m...)
		whole = append(whole, m...)
		cur = int(f.Offset) + f.Length
		if f.Kind != scanners.KindTag {
			secrets++
		}
	}
	verbatim(cur, len(joined))
	if whole = append(whole, joined[cur:]...); string(whole) != string(rb) {
		panic("reference: the findings do not describe the redactor's output")
	}
	lim := r.lim[bounds.TextChars]
	room := int64(4*(scanners.MaxHold+64) + 2*cat.MaxMarkerLen())
	for k, it := range chain {
		n := int64(utf8.RuneCount(outs[k]))
		held := min(room, int64(4*bnd[k+1]+2*cat.MaxMarkerLen()))
		if n+held >= lim || it.cut && n >= lim {
			panic(refJoinUnexpressed{})
		}
		if k > 0 && 6*(it.end-int64(len(it.raw))-2-chain[k-1].end)+2048 >= r.joinMax() {
			panic(refJoinUnexpressed{})
		}
	}
	for k, it := range chain {
		r.redactions += -it.secrets
		m, ok := items[it.item].(map[string]any)
		if !ok {
			panic("reference: a block is not an object")
		}
		m["text"] = r.label + string(outs[k])
		if it.cut {
			r.truncs--
			if meta, ok := m["_meta"].(map[string]any); ok {
				delete(meta, mp+"truncated")
			}
		}
		if it.part >= 0 {
			r.jc.parts[it.part] = string(outs[k])
		}
	}
	r.redactions += secrets
}
