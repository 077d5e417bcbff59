package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
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
// which member), checks the URLs a URL-mode elicitation or a URL
// elicitation error carries, and pins tool definitions (guard_pins.go).
//
// The guard reads the pass's output, not the input: what it checks is
// what the client would get, and it never sees a raw string. The output
// is held in memory for it, which the output bound (bounds.OutputBytes)
// limits; a message that breaks the kind's shape is replaced by the
// sanitized error result, like any failed pass.

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

	doc  map[string]any // the whole message
	env  bool           // doc is a JSON-RPC envelope
	body map[string]any // the result, the params or the error object; nil when absent
	base string         // pointer of body in doc: "/result", "/params", "/error" or ""
	// method is the request's or notification's method (the envelope's,
	// else MessageInfo.Method).
	method string

	fail    *Error
	changed bool // doc was changed (a held tool): it is written anew
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
	var buf Buffer
	ev, err := p.run(ctx, in, &buf, info)
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
	p.em.reset(out)
	p.em.raw(outBytes)
	p.em.flush()
	p.ev.Output = Digest{Bytes: p.em.written, Digest: p.em.h.String()}
	if g.changed && p.ev.Outcome == OutcomeClean {
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
	v, err := strictjson.Decode(b, int(g.e.lim[bounds.Depth])+1)
	if err != nil {
		g.failReason(string(wire.ReasonKindDecode), "")
		return
	}
	doc, ok := v.(map[string]any)
	if !ok {
		g.failReason(string(wire.ReasonResultNotObject), "")
		return
	}
	g.doc = doc
	g.env = envelope
	g.method = g.info.Method
	if !envelope {
		g.body = doc
	} else {
		if m, ok := doc["method"].(string); ok {
			g.method = m
		}
		for _, k := range []string{"result", "params", "error"} {
			if x, ok := doc[k]; ok {
				g.base = "/" + k
				g.body, ok = x.(map[string]any)
				if !ok {
					g.failShape("")
					return
				}
				break
			}
		}
		if _, isErr := doc["error"]; isErr && gf != nil {
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

// encode writes doc anew (after a held tool was removed): the members in
// the order encoding/json gives (sorted), numbers as written, strings as
// the pass sanitized them.
func (g *guardRun) encode() []byte {
	b, err := json.Marshal(g.doc)
	if err != nil {
		// Nothing in a decoded document fails to encode; fail closed all
		// the same.
		g.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonInternalFault)}
		return nil
	}
	return b
}

// Member access: each returns the value and whether the member is there
// with the type the kind needs; a member present with another type fails
// the message.

func (g *guardRun) str(m map[string]any, ptr, k string, required bool) (string, bool) {
	x, ok := m[k]
	if !ok {
		if required {
			g.failShape(ptr + "/" + k)
		}
		return "", false
	}
	s, ok := x.(string)
	if !ok {
		g.failShape(ptr + "/" + k)
	}
	return s, ok
}

func (g *guardRun) obj(m map[string]any, ptr, k string, required bool) (map[string]any, bool) {
	x, ok := m[k]
	if !ok {
		if required {
			g.failShape(ptr + "/" + k)
		}
		return nil, false
	}
	o, ok := x.(map[string]any)
	if !ok {
		g.failShape(ptr + "/" + k)
	}
	return o, ok
}

func (g *guardRun) arr(m map[string]any, ptr, k string, required bool) ([]any, bool) {
	x, ok := m[k]
	if !ok {
		if required {
			g.failShape(ptr + "/" + k)
		}
		return nil, false
	}
	a, ok := x.([]any)
	if !ok {
		g.failShape(ptr + "/" + k)
	}
	return a, ok
}

func (g *guardRun) num(m map[string]any, ptr, k string, required bool) (json.Number, bool) {
	x, ok := m[k]
	if !ok {
		if required {
			g.failShape(ptr + "/" + k)
		}
		return "", false
	}
	n, ok := x.(json.Number)
	if !ok {
		g.failShape(ptr + "/" + k)
	}
	return n, ok
}

func (g *guardRun) boolean(m map[string]any, ptr, k string) {
	if x, ok := m[k]; ok {
		if _, ok := x.(bool); !ok {
			g.failShape(ptr + "/" + k)
		}
	}
}

// oneOf checks that the string member k, when present (or required), is
// one of vals.
func (g *guardRun) oneOf(m map[string]any, ptr, k string, required bool, vals ...string) (string, bool) {
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
func (g *guardRun) objItems(a []any, ptr string) []map[string]any {
	out := make([]map[string]any, 0, len(a))
	for i, x := range a {
		o, ok := x.(map[string]any)
		if !ok {
			g.failShape(ptr + "/" + strconv.Itoa(i))
			return nil
		}
		out = append(out, o)
	}
	return out
}

// strings checks that every item of the array member k, when present, is
// a string.
func (g *guardRun) strArray(m map[string]any, ptr, k string) {
	a, ok := g.arr(m, ptr, k, false)
	if !ok {
		return
	}
	for i, x := range a {
		if _, ok := x.(string); !ok {
			g.failShape(ptr + "/" + k + "/" + strconv.Itoa(i))
			return
		}
	}
}

// icons checks an Icons member (src a string; mimeType, sizes, theme).
func (g *guardRun) icons(m map[string]any, ptr string) {
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
