package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/valyala/fastjson"
)

// The kind guards (docs/pipeline.md, "Kinds of every server message").
//
// The pass sanitizes every string of a server message whatever its kind:
// hidden instructions are neutralized where they are, secrets redacted,
// bounds applied. A guard then reads the sanitized message with the
// kind's shape in mind: it checks the members the kind has (a tools/list
// has a tools array of objects with a name and an inputSchema object, a
// sampling request has messages), attributes what the pass found to the
// list item and member it was in (evidence "guard.members": which tool,
// which member), checks the URL of a URL-mode elicitation (the URLs of a
// URL elicitation error are checked by rpcerror.go), and pins tool
// definitions (guard_pins.go).
//
// The guard reads the pass's output, not the input: what it checks is
// what the client would get, and it never sees a raw string. The output
// is held in memory for it, at most kind-guard-bytes (over it the message
// is refused); a message that breaks the kind's shape is replaced by the
// sanitized error result, like any failed pass. The roles the pass itself
// gives the members of these kinds (the binary checks of a sampling
// request's images, text-chars on its texts and on a notification's) are
// in binary_kinds.go.

// guardFunc checks one sanitized message of a kind.
type guardFunc func(g *guardRun)

// guardOf returns the guard of kind k, or nil for the kinds without one.
func guardOf(k Kind) guardFunc {
	switch k {
	case KindToolsList:
		return guardToolsList
	case KindPromptsList:
		return guardPromptsList
	case KindResourcesList:
		return guardResourcesList
	case KindResourceTemplatesList:
		return guardTemplatesList
	case KindInitializeResult:
		return guardInitialize
	case KindTaskResult:
		return guardTask
	case KindSamplingRequest:
		return guardSampling
	case KindElicitationRequest:
		return guardElicitation
	case KindRootsRequest:
		return guardRoots
	case KindNotification:
		return guardNotification
	case KindRPCError:
		return guardRPCError
	}
	return nil
}

// maxGuardMembers bounds the member records of a guard's evidence.
const maxGuardMembers = 64

// GuardRecord is what a kind guard found (evidence "guard"). It holds
// names restricted like Tool, pointers built from sanitized keys, counts
// and digests; never a value.
type GuardRecord struct {
	// Method is the message's method (a request or notification), or the
	// method the caller named (MessageInfo.Method), restricted like Tool.
	Method string `json:"method,omitempty"`
	// Items counts the items of the kind's list (tools, prompts, ...).
	Items int `json:"items,omitempty"`
	// Members lists, per list item and member, what the pass neutralized
	// there: at most 64, MembersCut counts the rest.
	Members    []MemberRecord `json:"members,omitempty"`
	MembersCut int            `json:"membersNotListed,omitempty"`
	// URLs counts the URLs checked (URL-mode elicitation, URL elicitation
	// errors).
	URLs int `json:"urlsChecked,omitempty"`
	// Pins lists the pinning verdict of each tool of a tools/list
	// (guard_pins.go); Held counts the tools held back.
	Pins []PinRecord `json:"pins,omitempty"`
	Held int         `json:"held,omitempty"`
	// Resource is what the resources guard vouched for in a resources/read
	// result it let through (guards_evidence.go).
	Resource *ResourceRecord `json:"resource,omitempty"`
	// Dropped lists the items a kind guard removed from a list, narrowly,
	// keeping the rest (guards_evidence.go).
	Dropped []DroppedRecord `json:"dropped,omitempty"`
}

// MemberRecord is what the pass changed in one member of one list item.
type MemberRecord struct {
	// Item is the item's name (a tool's, prompt's, resource's), restricted
	// like Tool; Index its position in the list.
	Item  string `json:"item"`
	Index int    `json:"index"`
	// Member is the JSON pointer of the member inside the item
	// ("/description", "/inputSchema/properties/city/description").
	Member string `json:"member"`
	// Rules counts the findings by rule (tags, chat markers, secrets).
	Rules map[string]int64 `json:"rules,omitempty"`
	// Removed counts invisible and control characters removed, Folded the
	// look-alike letters folded.
	Removed int64 `json:"removedChars,omitempty"`
	Folded  int64 `json:"confusablesFolded,omitempty"`
}

// normAt is what normalization changed in one string (kept only for the
// kinds with a guard, for its member records).
type normAt struct {
	ptr             string
	removed, folded int64
}

// maxNormAt bounds the normAt records of one pass.
const maxNormAt = 256

// guardRun is one guard's view of a sanitized message.
type guardRun struct {
	ctx  context.Context
	e    *Engine
	info MessageInfo
	ev   *Evidence
	norm []normAt
	rec  GuardRecord

	raw  []byte          // the sanitized message
	doc  *fastjson.Value // the whole message (an object)
	env  bool            // doc is a JSON-RPC envelope
	body *fastjson.Value // the result, the params or the error object; nil when absent
	base string          // pointer of body in doc: "/result", "/params", "/error" or ""
	// method is the request's or notification's method (the envelope's,
	// else MessageInfo.Method).
	method string

	fail *Error
	// strictDoc is the message decoded for pinning and for a held tool
	// (strict), nil until needed; changed says it was changed and is
	// written anew.
	strictDoc map[string]any
	changed   bool
	// held are the indices of the items of a tools/list or prompts/list
	// held back (guard_pins.go), or of the templates dropped
	// (guard_templates.go), in increasing order, in the body's member
	// heldIn; encode removes them.
	held   []int
	heldIn string
}

// failShape fails the message for a member at ptr (inside body).
func (g *guardRun) failShape(ptr string) {
	g.failReason(string(wire.ReasonKindShape), ptr)
}

func (g *guardRun) failReason(reason, ptr string) {
	if g.fail == nil {
		g.fail = &Error{Code: CodeInvalidContent, Reason: reason, Pointer: g.base + ptr}
	}
}

// sanitizeGuarded is Sanitize for a kind with a guard: the pass writes to
// a buffer, the guard reads it, then the message (or the error result)
// goes to out.
func (e *Engine) sanitizeGuarded(ctx context.Context, gf guardFunc, in io.Reader, out Output, info MessageInfo) (*Evidence, error) {
	p := e.getPass()
	defer p.release()
	start := time.Now()
	max, _ := e.pol.kindGuardBytes() // validated by NewEngine
	buf := &guardBuffer{max: max}
	ev, err := p.run(ctx, in, buf, info)
	if buf.over {
		// Too large to hold: refused, the rest of the input digested.
		p.ev = *ev
		p.fail = errGuardBytes
		p.inReader = in
		return p.finishError(out, start)
	}
	if err != nil || ev.Outcome == OutcomeRejected {
		return copyOut(ev, err, buf.Bytes(), out)
	}
	g := &guardRun{ctx: ctx, e: e, info: info, ev: ev, norm: p.normAt}
	g.safeRun(gf, buf.Bytes(), p.envelope)
	outBytes := buf.Bytes()
	if g.changed && g.fail == nil {
		outBytes = g.encode()
	}
	p.ev = *ev
	if g.rec.Method != "" || g.rec.Items > 0 || len(g.rec.Members) > 0 || g.rec.URLs > 0 || len(g.rec.Pins) > 0 {
		rec := g.rec
		p.ev.Guard = &rec
	}
	if g.fail != nil {
		p.fail = g.fail
		p.inReader = nil
		return p.finishError(out, start)
	}
	if !g.changed {
		// The bytes the pass wrote and digested, as they are.
		p.ev.DurationNanos = time.Since(start).Nanoseconds()
		return copyOut(p.evidenceCopy(), nil, outBytes, out)
	}
	p.em.reset(out)
	p.em.raw(outBytes)
	p.em.flush()
	p.ev.Output = Digest{Bytes: p.em.written, Digest: p.em.h.String()}
	if p.ev.Outcome == OutcomeClean {
		p.ev.Outcome = OutcomeSanitized
	}
	p.ev.DurationNanos = time.Since(start).Nanoseconds()
	res := p.evidenceCopy()
	if p.em.err != nil {
		return res, errOutput{p.em.err}
	}
	return res, nil
}

// copyOut writes what the pass wrote (a rejected message's error result)
// to out.
func copyOut(ev *Evidence, err error, b []byte, out Output) (*Evidence, error) {
	if err != nil {
		return ev, err
	}
	if n, werr := out.Write(b); werr != nil || n != len(b) {
		if werr == nil {
			werr = errShortWrite
		}
		return ev, errOutput{werr}
	}
	return ev, nil
}

// safeRun is run that fails closed on a fault of its own (a panic in a
// guard or a PinStore): the message is refused, never passed unchecked.
func (g *guardRun) safeRun(gf guardFunc, b []byte, envelope bool) {
	defer func() {
		if r := recover(); r != nil {
			g.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonInternalFault)}
			g.changed = false
		}
	}()
	g.run(gf, b, envelope)
}

// run decodes the sanitized message, finds its body and calls the kind's
// guard.
func (g *guardRun) run(gf guardFunc, b []byte, envelope bool) {
	// The pass wrote valid JSON; fastjson reads it without building maps
	// (the strict decoder is kept for pinning and held tools, strict()).
	fp := parsers.Get()
	defer parsers.Put(fp)
	doc, err := fp.ParseBytes(b)
	if err != nil {
		g.failReason(string(wire.ReasonKindDecode), "")
		return
	}
	if doc.Type() != fastjson.TypeObject {
		g.failReason(string(wire.ReasonResultNotObject), "")
		return
	}
	g.raw, g.doc = b, doc
	g.env = envelope
	g.method = g.info.Method
	if !envelope {
		g.body = doc
	} else {
		if m := doc.Get("method"); m != nil && m.Type() == fastjson.TypeString {
			g.method = string(m.GetStringBytes())
		}
		for _, k := range []string{"result", "params", "error"} {
			if x := doc.Get(k); x != nil {
				g.base = "/" + k
				if x.Type() != fastjson.TypeObject {
					g.failShape("")
					return
				}
				g.body = x
				break
			}
		}
		if doc.Exists("error") && gf != nil {
			// An error response in place of the kind's result: its error
			// object is what the client reads.
			gf = guardRPCError
		}
	}
	if g.method != "" {
		g.rec.Method = safeLabel(g.method)
	}
	gf(g)
}

// parsers are the fastjson parsers of the guards.
var parsers fastjson.ParserPool

// strict returns the message decoded by the strict decoder (the one
// pinning canonicalizes from), decoding it on first use; nil when it does
// not decode (the guard has failed the message then).
func (g *guardRun) strict() map[string]any {
	if g.strictDoc != nil {
		return g.strictDoc
	}
	v, err := strictjson.Decode(g.raw, int(g.e.lim[bounds.Depth])+1)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		g.failReason(string(wire.ReasonKindDecode), "")
		return nil
	}
	g.strictDoc = m
	return m
}

// strictBody returns the strict form of body.
func (g *guardRun) strictBody() map[string]any {
	doc := g.strict()
	if doc == nil || g.base == "" {
		return doc
	}
	m, _ := doc[g.base[1:]].(map[string]any)
	return m
}

// encode writes the message without the items held back (held): the
// sanitized bytes the pass wrote with those items spliced out
// (splice.go), so the members keep their order and the kept tools their
// bytes.
func (g *guardRun) encode() []byte {
	path := []string{g.heldIn}
	if g.base != "" {
		path = []string{g.base[1:], g.heldIn}
	}
	k := 0
	b, err := spliceOut(g.raw, path, func(i int) bool {
		for k < len(g.held) && g.held[k] < i {
			k++
		}
		return k < len(g.held) && g.held[k] == i
	})
	if err != nil {
		// The pass wrote valid JSON whose tools the guard read; fail
		// closed all the same.
		g.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonInternalFault)}
		return nil
	}
	return b
}

// Member access: each returns the value and whether the member is there
// with the type the kind needs; a member present with another type fails
// the message. m is an object.

// member returns m's member k, failing the message when it is absent and
// required, or present and not of type t.
func (g *guardRun) member(m *fastjson.Value, ptr, k string, required bool, t fastjson.Type) (*fastjson.Value, bool) {
	x := m.Get(k)
	if x == nil {
		if required {
			g.failShape(ptr + "/" + k)
		}
		return nil, false
	}
	if x.Type() != t {
		g.failShape(ptr + "/" + k)
		return nil, false
	}
	return x, true
}

func (g *guardRun) str(m *fastjson.Value, ptr, k string, required bool) (string, bool) {
	x, ok := g.member(m, ptr, k, required, fastjson.TypeString)
	if !ok {
		return "", false
	}
	return string(x.GetStringBytes()), true
}

func (g *guardRun) obj(m *fastjson.Value, ptr, k string, required bool) (*fastjson.Value, bool) {
	return g.member(m, ptr, k, required, fastjson.TypeObject)
}

func (g *guardRun) arr(m *fastjson.Value, ptr, k string, required bool) ([]*fastjson.Value, bool) {
	x, ok := g.member(m, ptr, k, required, fastjson.TypeArray)
	if !ok {
		return nil, false
	}
	return x.GetArray(), true
}

func (g *guardRun) num(m *fastjson.Value, ptr, k string, required bool) (*fastjson.Value, bool) {
	return g.member(m, ptr, k, required, fastjson.TypeNumber)
}

func (g *guardRun) boolean(m *fastjson.Value, ptr, k string) {
	if x := m.Get(k); x != nil && x.Type() != fastjson.TypeTrue && x.Type() != fastjson.TypeFalse {
		g.failShape(ptr + "/" + k)
	}
}

// oneOf checks that the string member k, when present (or required), is
// one of vals.
func (g *guardRun) oneOf(m *fastjson.Value, ptr, k string, required bool, vals ...string) (string, bool) {
	s, ok := g.str(m, ptr, k, required)
	if !ok {
		return "", false
	}
	for _, v := range vals {
		if s == v {
			return s, true
		}
	}
	g.failShape(ptr + "/" + k)
	return "", false
}

// objItems checks that every item of a is an object and returns them.
func (g *guardRun) objItems(a []*fastjson.Value, ptr string) []*fastjson.Value {
	for i, x := range a {
		if x.Type() != fastjson.TypeObject {
			g.failShape(ptr + "/" + strconv.Itoa(i))
			return nil
		}
	}
	return a
}

// strArray checks that every item of the array member k, when present, is
// a string.
func (g *guardRun) strArray(m *fastjson.Value, ptr, k string) {
	a, ok := g.arr(m, ptr, k, false)
	if !ok {
		return
	}
	for i, x := range a {
		if x.Type() != fastjson.TypeString {
			g.failShape(ptr + "/" + k + "/" + strconv.Itoa(i))
			return
		}
	}
}

// icons checks an Icons member (src a string; mimeType, sizes, theme).
func (g *guardRun) icons(m *fastjson.Value, ptr string) {
	a, ok := g.arr(m, ptr, "icons", false)
	if !ok {
		return
	}
	for i, ic := range g.objItems(a, ptr+"/icons") {
		ip := ptr + "/icons/" + strconv.Itoa(i)
		g.str(ic, ip, "src", true)
		g.str(ic, ip, "mimeType", false)
		g.strArray(ic, ip, "sizes")
		g.str(ic, ip, "theme", false)
	}
}

// attribute turns the pass's findings and normalization records inside
// the list at body/<list>/<i> into member records naming the item.
func (g *guardRun) attribute(list string, names []string) {
	prefix := g.base + "/" + list + "/"
	type key struct {
		i int
		m string
	}
	idx := map[key]int{}
	add := func(ptr string) *MemberRecord {
		rest, ok := strings.CutPrefix(ptr, prefix)
		if !ok {
			return nil
		}
		n, member, _ := strings.Cut(rest, "/")
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 || i >= len(names) {
			return nil
		}
		k := key{i, "/" + member}
		if member == "" {
			k.m = ""
		}
		if j, ok := idx[k]; ok {
			if j < 0 {
				return nil // over maxGuardMembers
			}
			return &g.rec.Members[j]
		}
		if len(g.rec.Members) >= maxGuardMembers {
			g.rec.MembersCut++
			idx[k] = -1
			return nil
		}
		idx[k] = len(g.rec.Members)
		g.rec.Members = append(g.rec.Members, MemberRecord{Item: safeLabel(names[i]), Index: i, Member: k.m})
		return &g.rec.Members[len(g.rec.Members)-1]
	}
	for _, f := range g.ev.Findings {
		if r := add(f.Pointer); r != nil {
			if r.Rules == nil {
				r.Rules = map[string]int64{}
			}
			r.Rules[f.Rule]++
		}
	}
	for _, n := range g.norm {
		if r := add(n.ptr); r != nil {
			r.Removed += n.removed
			r.Folded += n.folded
		}
	}
}

// recordNormAt keeps what normalization changed in the current string.
func (p *pass) recordNormAt(st scanners.NormStats) {
	var removed int64
	for _, n := range st.Removed {
		removed += n
	}
	if removed == 0 && st.Folded == 0 {
		return
	}
	ptr := p.pointer()
	if n := len(p.normAt); n > 0 && p.normAt[n-1].ptr == ptr {
		p.normAt[n-1].removed += removed
		p.normAt[n-1].folded += st.Folded
		return
	}
	if len(p.normAt) < maxNormAt {
		p.normAt = append(p.normAt, normAt{ptr: ptr, removed: removed, folded: st.Folded})
	}
}

// appendJSON writes r as encoding/json would (Evidence.AppendJSON): the
// record is rare and small, so reflection is fine here.
func (r *GuardRecord) appendJSON(b []byte) []byte {
	j, err := json.Marshal(r)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// KindGuardBytesLimit is the id, in Policy.Limits, of the bound on the
// sanitized message a kind guard holds to read it (guard.go): a message of
// a kind with a guard whose output is larger is refused (BOUND_EXCEEDED /
// kind-guard-bytes) rather than held. The guard's decoded form takes a few
// times the bytes, so this bounds the memory of such a pass.
const KindGuardBytesLimit = string(wire.ReasonKindGuardBytes)

// DefaultKindGuardBytes is the default of the kind-guard-bytes limit: a
// tools/list of a few hundred tools with large schemas is well under it.
const DefaultKindGuardBytes = 8 << 20

// kindGuardBytes returns the kind-guard-bytes limit.
func (p *Policy) kindGuardBytes() (int64, error) {
	v, ok := p.Limits[KindGuardBytesLimit]
	if !ok {
		return DefaultKindGuardBytes, nil
	}
	if v <= 0 || v > 1<<30 {
		return 0, fmt.Errorf("%w: limits: %s must be between 1 and 1073741824", ErrPolicy, KindGuardBytesLimit)
	}
	return v, nil
}

// guardBuffer is the Buffer a guarded pass writes to: a write past max
// fails (errGuardBytes), which ends the pass.
type guardBuffer struct {
	Buffer
	max  int64
	over bool
}

var errGuardBytes = &Error{Code: CodeBoundExceeded, Reason: string(wire.ReasonKindGuardBytes)}

func (b *guardBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		b.over = true
		return 0, errGuardBytes
	}
	return b.Buffer.Write(p)
}
