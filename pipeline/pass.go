package pipeline

import (
	"context"
	"errors"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"io"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// role is what a value means in its MCP message.
type role uint8

const (
	roleGeneric    role = iota
	roleTop             // the top-level value: a result or a JSON-RPC envelope
	roleResult          // a result object (top level, or "result" of an envelope)
	roleContent         // CallToolResult.content
	roleBlock           // one content block
	roleResource        // EmbeddedResource.resource
	roleMeta            // a _meta object: reserved keys dropped
	roleText            // content[i].text: labelled, TextChars bound
	roleResText         // resource text: TextChars bound
	roleBinary          // base64 data or blob: checked, not scanned
	roleMime            // mimeType: captured for the allow-list
	roleStructured      // structuredContent and everything below it
	roleEnvelopeID      // the id of a JSON-RPC envelope: kept for an error result
	roleIsError         // isError of a tool result: true marks a tool error
	roleErrCode         // structuredContent.code of a tool result: a tool error's code
)

// region decides the action of a crossed bound.
type region uint8

const (
	regionOther region = iota
	regionText
	regionStructured
	regionMeta
)

// deferKind marks a _meta object held in a side buffer until its owner
// closes, so the sanitizer's labels can be merged into it.
type deferKind uint8

const (
	deferNone   deferKind = iota
	deferTop              // the top-level object's _meta (result or envelope)
	deferResult           // the _meta of an envelope's result
	deferBlock            // a content block's _meta
	numDefer
)

type frame struct {
	obj     bool
	skip    bool // the whole container is being dropped
	role    role
	region  region
	deferM  deferKind // this object is a held _meta
	items   int64     // members or items seen in the input
	emitted int64     // members or items written
	dropped int64     // members or items dropped by a truncate bound
	key     []byte    // current member key (sanitized) for pointers
	keys    keySet

	// result and block state
	envelope  bool  // top-level object taken for a JSON-RPC envelope (framing.go)
	envMember bool  // top-level object: a member named like an envelope's was read
	resMember bool  // top-level object: a tool result's own member was read
	hasResult bool  // an envelope: a "result" member was read
	hasError  bool  // an envelope: an "error" member was read
	reqMember bool  // an envelope: a "method" or "params" member was read
	hasMethod bool  // an envelope: a "method" member was read
	version   int8  // an envelope: 0 no "jsonrpc" member read, 1 "2.0", -1 another value
	heldMeta  bool  // a _meta member was held for merging
	binary    bool  // holds base64 data
	mimeState int8  // 0 none, 1 allowed, -1 not allowed
	cut       bool  // a text in this block was truncated
	labelled  int64 // text blocks labelled (result level)

	shape   objShape // the member names of the last object read at this depth (shapememo.go)
	shapeOn bool     // this object's names are looked up in shape and recorded there
	// lazyKeys: the object's first names, every one a memo hit, whose
	// hashes keys does not hold yet: shape.ents[:lazyKeys] (shapememo.go).
	lazyKeys int
}

// next describes the value that comes after a key or array comma.
type next struct {
	role   role
	region region
	deferM deferKind
	drop   bool
	hold   holdKind // a member of a result held for the outputSchema checks

	reserved bool // a key of a _meta under the sanitizer's prefix, dropped
	mixed    bool // the key mixes a tool result's members with an envelope's: rejected
}

type strMode uint8

const (
	smSkip strMode = iota
	smKey
	smText
	smBinary
	smDefer // a mirror candidate's text, held unscanned (structured_defer.go)
)

// maxEnvelopeID bounds the bytes of a JSON-RPC id kept for an error result.
const maxEnvelopeID = 128

// maxNumberLen bounds the bytes of one number token.
const maxNumberLen = jsonlex.DefaultMaxNumber

// pass is one message's sanitizing pass. It is three parts, each a type of
// its own, driven by the loop in tokens.go:
//
//   - lx, a jsonlex.Lexer: JSON syntax only, resumable at any byte;
//   - shaper (shape.go): what each value means in its MCP message;
//   - chain (strings.go, decode.go, shadow.go): what happens to the text of
//     one string.
//
// Around them are the input, the bounds' counts, the emitter and the
// evidence of the message.
type pass struct {
	e   *Engine
	ctx context.Context

	// forced is the refusal of a guard (guards.go): the pass reads the
	// message (for the envelope's id and the evidence digest) and then
	// writes this error result in place of it.
	forced *Error

	info  MessageInfo
	label string // resolved label text

	// input
	inbuf    []byte
	inOff    int64 // offset of inbuf[0] in the input
	inH      *digester
	inN      int64
	inReader io.Reader

	// inDigestOff: the caller digests the input itself
	// (sanitizeSeedGuarded: the bytes as sent, not the guard's rewrite the
	// pass reads), so the pass does not hash it. Cleared by the next reset.
	inDigestOff bool

	// notObjAt is the input offset of a tool result that is not an object
	// (-1: none). The pass reads on to the end of the input before it says
	// so, so that input that is not JSON at all is INVALID_JSON whatever
	// its first byte (tokens.go beginValue).
	notObjAt  int64
	notObjPtr string

	lx jsonlex.Lexer
	shaper
	chain

	cnt       bounds.Counter
	outBudget int64 // output bytes the message may take (bounds.Limits.OutputBudget)
	exhausted bool  // the output budget is spent: further members are dropped
	truncs    int64 // truncations written
	secrets   int64 // secret findings so far: the _meta redactions count (tags are not redactions)

	em   emitter
	bj   blockJoin // text across blocks (blockjoin.go)
	mj   metaJoin  // secrets across _meta members (metajoin.go)
	ev   Evidence
	fail *Error
	ids  idScan // the envelope's id after a failure (envelope_id.go)
}

// shaper is the shape layer's state: the open containers with their MCP
// roles, the role of the next value, the JSON-RPC envelope, the held _meta
// objects, the outputSchema hold (schemaPass) and the tool error. Its
// methods, and schemaPass's, are in shape.go, structured.go and
// toolerror.go; they use this state and their arguments only.
type shaper struct {
	tool    bool // the message is a tool result
	request bool // the message is a request (an envelope carries method and params, framing.go)
	generic bool // the message is of KindGeneric: any one JSON-RPC message (framing.go)
	framing framing
	stack   []frame
	nx      next
	nameCtx bool // the pointer of the current value leaves out the last frame's key
	numEmit bool // the current number is written
	ptrBuf  []byte
	ptrOver string // when set, the pointer of every value (structured_defer.go)

	rk resultKind // a resource or prompt result (binary_kinds.go)

	// attr keeps what normalization changed per string (normAt) for the
	// member records of a kind guard (guard.go).
	attr   bool
	normAt []normAt

	// JSON-RPC envelope: when the top-level object is one, an error result
	// is wrapped in an envelope with the same id (sanitized, bounded).
	envelope bool
	envID    []byte // the id as JSON: a number verbatim or a string's text
	envIDStr bool   // envID holds string text (escaped when written)
	envIDOK  bool   // envID is complete and within maxEnvelopeID

	heldMeta [numDefer - 1][]byte // held _meta members, by deferKind-1

	// structured path (structured.go): sch points at schState while the
	// message declares an outputSchema, and is nil otherwise.
	sch      *schemaPass
	schState schemaPass

	// tool errors (toolerror.go)
	toolErr   int8   // isError: true was read: 1 at the top level, 2 in an envelope's result
	errText   []byte // sanitized text of content, for classifying a tool error
	errCode   []byte // structuredContent.code of the result, sanitized
	errCodeOn bool   // the current string is that code
	pubMsg    string // public message of the result being written, if not the code's
	mimeBuf   []byte // the current mimeType, for the allow-list

	// the JSON-RPC error object being held (rpcerror.go)
	rpc rpcErrState
	bw  binWatch // the content block whose binary data is checked (binary.go)
	// seenB64 holds the first characters of the content blocks' binary
	// values kept so far (at most maxSeenB64): structuredContent that
	// repeats one is bounded as binary (binary_text.go).
	seenB64 [][headChars]byte
}

// chain is the string chain's state for the current string: its mode and
// role, the decoded batch, the escaped shadow, the normalizer and the
// redactor, and the character count its bound is checked against. Its
// methods (strings.go, shadow.go) use this state and their arguments only.
type chain struct {
	sm       strMode
	isKey    bool
	sRole    role
	sRegion  region
	strStart int64 // input offset of the opening quote
	strChars int64
	strCut   bool
	strDirty bool // the string holds bytes the normalizer may change
	strFresh bool // nothing of the string after its opening quote was read yet (wholestring.go)
	keyPlain bool // the key was read whole and written unchanged: it needs no escape (wholestring.go)
	batches  int  // batches of this string sent through the chain
	strNoted bool
	b64n     int64
	b64pad   int
	b64s     b64Str  // whether a text string is base64, for its bound (binary.go)
	sinkLast bool    // sink takes the string's last text (flushChain of the final batch)
	dbuf     []byte  // decoded, not yet normalized
	sh       []byte  // escaped shadow of decoded text not yet written (shadow.go)
	shD      int     // decoded bytes the shadow stands for
	shBase   int     // decoded offset in the string of the shadow's first byte
	shDrop   int     // bytes of sh the released text stands for; -1: none
	shRel    int     // decoded offset the redactor has released up to
	plan     []piece // how the text being written is written (shadow.go)
	planLen  int     // its length once written; -1: no plan, the escaper writes it
	planFrom int     // the offset in the redactor's output the plan starts at
	offs     []int   // scratch for shadowSettle
	shOn     bool    // the shadow is kept for the current string
	noShadow bool    // the engine never keeps a shadow (a test switch)
	shTmp    []byte  // where decodeRunSh writes the shadow while it is off
	nbuf     []byte
	rbuf     []byte
	keyBuf   []byte
	fs       []scanners.Finding
	norm     scanners.Normalizer
	red      *scanners.Redactor
	ls       losslessState // lossless.go

	// idScratch is scrubIdentifier's input and output (identifier.go).
	idScratch [2][]byte

	// normFresh: norm was Reset for the current string. A key or value
	// string clears it; runBatch resets norm before the string's first
	// Append, so a clean string costs no Reset.
	normFresh bool

	// strSchemaB64: the outputSchema declares the location of the string
	// base64 (structured_base64.go).
	strSchemaB64 bool

	// Text across blocks (blockjoin.go): the redactor goes on past the end
	// of this string (joinOut), or this string goes on with a held text
	// (joinIn); valBase is the value offset of its first byte in the
	// joined text, redFed the bytes of it given to the redactor.
	joinOut bool
	joinIn  bool
	valBase int64
	redFed  int64
	spTmp   []scanners.Span // scratch for joinPlanSpans

	// The shape memo (shapememo.go) and the member path's switch (member.go).
	shapeHit  *shapeEnt // the key is the one the object's memo holds at its place
	keyMemo   bool      // the key is shapeHit.key, not copied to keyBuf (wholeString)
	shapeRec  bool      // the key was read whole and the redactor passed it: it may be recorded
	shapeEnt  *shapeEnt // the memo's entry of the last key, for its value's context
	noMembers bool      // no member path, no shape memo (a test switch)
}

func newPass(e *Engine) *pass {
	p := &pass{e: e}
	p.lx.MaxNumber = maxNumberLen
	p.inbuf = make([]byte, e.pol.ChunkBytes)
	p.inH = newDigester(e.pol.Digest)
	p.em.alg = e.pol.Digest
	p.red = e.cat.NewRedactor(e.fpKey)
	p.installAllow(p.red)
	p.norm.DisableNFKC = e.pol.DisableNFKC
	p.norm.DisableConfusableFold = e.pol.DisableConfusableFold
	p.norm.RecordEdits = e.pol.Normalization == NormalizationLossless
	p.ls.on = p.norm.RecordEdits
	p.noShadow = e.noShadow
	p.noMembers = e.noMembers || e.noShadow
	return p
}

// release returns the pass to the engine's free list, dropping buffers that
// grew large so the list does not pin them.
func (p *pass) release() {
	const keep = 256 << 10
	// The emitter's buf may be an AppendOutput's memory: never kept.
	if !p.em.lent {
		p.em.own = p.em.buf[:0]
	}
	p.em.buf, p.em.app, p.em.lent = nil, nil, false
	if p.ls.on {
		p.norm.DropEditBuffers(keep)
	}
	for _, b := range []*[]byte{&p.ls.out, &p.dbuf, &p.sh, &p.nbuf, &p.rbuf, &p.em.own, &p.heldMeta[0], &p.heldMeta[1], &p.heldMeta[2], &p.schState.out, &p.schState.replay, &p.schState.drain} {
		if cap(*b) > keep {
			*b = nil
		}
	}
	for i := range p.schState.held {
		h := &p.schState.held[i]
		for _, b := range []*[]byte{&h.content, &h.structured, &h.raw, &h.rawText} {
			if cap(*b) > keep {
				*b = nil
			}
		}
	}
	p.schState.s = nil
	p.bw.trim(keep)
	p.bj.trim(keep)
	if cap(p.stack) > 256 {
		p.stack = nil
	}
	p.ctx = nil
	p.inReader = nil
	p.em.out = nil
	select {
	case p.e.free <- p:
	default: // enough idle passes already
	}
}

func (p *pass) reset(ctx context.Context, out Output, info MessageInfo) {
	p.ctx = ctx
	p.info = info
	p.forced = nil
	p.inOff = 0
	p.notObjAt, p.notObjPtr = -1, ""
	p.inH.Reset()
	p.inN = 0
	p.lx.Reset()
	p.stack = p.stack[:0]
	p.nx = next{role: roleTop}
	p.nameCtx = false
	p.tool = info.Kind == KindToolResult
	p.request = wire.IsRequestKind(info.Kind)
	p.generic = info.Kind == KindGeneric
	p.rk = resultKindOf(info.Kind)
	p.attr = guardOf(info.Kind) != nil
	p.normAt = p.normAt[:0]
	p.exhausted = false
	p.truncs = 0
	p.secrets = 0
	fr, frOK := framingOf(info.Framing)
	p.framing = fr
	p.envelope, p.envIDOK, p.envIDStr = fr == framingJSONRPC, false, false
	p.envID = p.envID[:0]
	p.fail = nil
	p.ids.reset()
	p.toolErr, p.errCodeOn = 0, false
	p.errText, p.errCode = p.errText[:0], p.errCode[:0]
	p.pubMsg = ""
	p.rpc.on, p.rpc.changed = false, false
	p.bw.begin(0)
	p.bj.reset()
	p.mj.on, p.mj.vals = false, p.mj.vals[:0]
	p.seenB64 = p.seenB64[:0]
	p.sch = nil
	if info.OutputSchema != nil && info.Kind == KindToolResult {
		p.sch = &p.schState
		p.sch.reset(info.OutputSchema, p.e.structMax)
	}
	for i := range p.heldMeta {
		p.heldMeta[i] = p.heldMeta[i][:0]
	}
	p.cnt.Reset(&p.e.lim)
	p.em.reset(out)
	p.inH.off, p.em.h.off = info.NoDigests || p.inDigestOff, info.NoDigests
	p.inDigestOff = false
	p.outBudget = p.e.lim.OutputBudget()
	var tool string
	tool, p.nbuf = cleanToolName(&p.norm, p.nbuf, info.Tool)
	p.ev = Evidence{
		Version:       EvidenceVersion,
		Kind:          string(info.Kind),
		Tool:          safeLabel(tool),
		Server:        safeLabel(info.Server),
		Tenant:        safeLabel(info.Tenant),
		RequestID:     safeLabel(info.RequestID),
		PolicyVersion: p.e.pol.Version,
		GuardVersion:  GuardVersion,
		Normalization: p.e.pol.Normalization,
	}
	p.scrubIdentifiers()
	if p.sch != nil {
		p.ev.SchemaSHA256 = p.sch.digest
	}
	p.label = ""
	if !p.e.pol.Label.Disabled && info.Kind == KindToolResult {
		p.label = strings.ReplaceAll(p.e.pol.Label.Template, "{tool}", p.toolName())
	}
	if !frOK {
		p.failf(CodeInvalidContent, string(wire.ReasonUnknownFraming), 0)
	}
}

// toolName is the restricted tool name, or "unknown-tool".
func (p *pass) toolName() string {
	if p.ev.Tool == "" {
		return string(wire.ReasonUnknownTool)
	}
	return p.ev.Tool
}

// failf is the panic-free way the pass stops: the first failure is kept,
// and every handler checks p.fail after calling something that may set it.
func (p *pass) failf(code Code, reason string, off int64) {
	if p.fail != nil {
		return
	}
	if p.notObjAt >= 0 && code != CodeInvalidJSON && code != CodeTimeout && code != CodeInternal {
		// A result that is not an object, whatever else is wrong with it
		// as long as it is JSON.
		p.fail = &Error{Code: CodeInvalidContent, Reason: string(wire.ReasonResultNotObject), Offset: p.notObjAt, Pointer: p.notObjPtr}
		return
	}
	p.fail = &Error{Code: code, Reason: reason, Offset: off, Pointer: p.pointer()}
}

func (p *pass) run(ctx context.Context, in io.Reader, out Output, info MessageInfo) (ev *Evidence, err error) {
	return p.runWith(ctx, in, out, info, nil)
}

// runWith is run with a guard's refusal (nil for none; guards.go).
func (p *pass) runWith(ctx context.Context, in io.Reader, out Output, info MessageInfo, forced *Error) (ev *Evidence, err error) {
	start := time.Now()
	p.reset(ctx, out, info)
	p.forced = forced
	p.inReader = in
	defer func() {
		if r := recover(); r != nil {
			// A fault of our own: fail closed, never pass input through.
			p.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonInternalFault), Offset: p.inOff}
			ev, err = p.finishError(out, start)
		}
	}()
	p.readAll(in)
	if p.fail == nil {
		p.finishDoc()
	}
	if p.fail != nil && p.sch != nil {
		p.drainAllHeld() // texts held unscanned, for the evidence (structured_defer.go)
	}
	if p.fail == nil && p.notObjAt >= 0 {
		p.fail = &Error{Code: CodeInvalidContent, Reason: string(wire.ReasonResultNotObject), Offset: p.notObjAt, Pointer: p.notObjPtr}
	}
	if p.forced != nil && (p.fail == nil || p.fail.Code != CodeTimeout) {
		p.fail = p.forced
	}
	if p.fail == nil && p.isToolError() && !p.e.pol.Errors.Disabled {
		return p.finishToolError(out, start)
	}
	if p.fail == nil && p.em.err != nil {
		return p.outputFailed(start)
	}
	if p.fail != nil {
		return p.finishError(out, start)
	}
	p.em.flush()
	if p.em.err != nil {
		return p.outputFailed(start)
	}
	p.finishEvidence(start)
	return p.evidenceCopy(), nil
}

func (p *pass) outputFailed(start time.Time) (*Evidence, error) {
	err := p.em.err
	p.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonOutputError), Offset: p.inOff}
	p.ev.Outcome = OutcomeRejected
	p.ev.Code = CodeInternal
	p.ev.Reason = string(wire.ReasonOutputError)
	p.finishEvidence(start)
	return p.evidenceCopy(), errOutput{err}
}

func (p *pass) evidenceCopy() *Evidence {
	ev := p.ev
	p.ev.Findings = nil
	p.ev.Bounds = nil
	p.ev.Rules = nil
	p.ev.Removed = nil
	return &ev
}

func (p *pass) readAll(in io.Reader) {
	if wt, ok := in.(io.WriterTo); ok {
		// The input is in memory (a bytes.Reader, a plain message body):
		// the lexer reads it in place, a read buffer at a time.
		_, err := wt.WriteTo(passWriter{p})
		if err != nil && p.fail == nil {
			p.readFailed(err)
		}
		return
	}
	for p.fail == nil {
		if err := p.ctx.Err(); err != nil {
			p.failf(CodeTimeout, string(wire.ReasonDeadline), p.inOff)
			return
		}
		n, err := in.Read(p.inbuf)
		if n > 0 {
			b := p.inbuf[:n]
			p.inH.Write(b)
			p.inN += int64(n)
			p.feed(b)
			if p.sch != nil {
				p.sch.chunkDone(b)
			}
			p.inOff += int64(n)
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			p.readFailed(err)
			return
		}
	}
}

// readFailed fails the pass for a read error of its input.
func (p *pass) readFailed(err error) {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		p.failf(CodeTimeout, string(wire.ReasonDeadline), p.inOff)
	} else {
		p.failf(CodeInternal, string(wire.ReasonReadError), p.inOff)
	}
}

// passWriter feeds a pass from memory the input's reader hands over
// (io.WriterTo), in pieces of the read buffer's size as readAll does, so
// that the deadline is checked as often and nothing is copied. It takes
// what it hashed: after a failure, the rest is the drain's (finishError).
type passWriter struct{ p *pass }

var errPassStopped = errors.New("pipeline: pass stopped")

func (w passWriter) Write(b []byte) (int, error) {
	p := w.p
	done := 0
	for done < len(b) && p.fail == nil {
		if err := p.ctx.Err(); err != nil {
			p.failf(CodeTimeout, string(wire.ReasonDeadline), p.inOff)
			break
		}
		c := b[done:min(len(b), done+len(p.inbuf))]
		p.inH.Write(c)
		p.inN += int64(len(c))
		p.feed(c)
		if p.sch != nil {
			p.sch.chunkDone(c)
		}
		p.inOff += int64(len(c))
		done += len(c)
	}
	if p.fail != nil {
		return done, errPassStopped
	}
	return done, nil
}
