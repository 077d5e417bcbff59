package pipeline

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/errsan"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Kind names the MCP message a pass sanitizes (declared in package wire).
// Only KindToolResult has a specific shape today; the other kinds are
// sanitized as generic JSON (every string and key normalized and redacted,
// every bound enforced).
type Kind = wire.Kind

// The kinds, under their pipeline names.
const (
	KindToolResult          = wire.KindToolResult
	KindResourceResult      = wire.KindResourceResult
	KindPromptResult        = wire.KindPromptResult
	KindCompletionResult    = wire.KindCompletionResult
	KindElicitationRequest  = wire.KindElicitationRequest
	KindElicitationResponse = wire.KindElicitationResponse
	KindInputRequired       = wire.KindInputRequired
	KindGeneric             = wire.KindGeneric
)

// Kinds lists every kind in a stable order (wire.Kinds).
func Kinds() []Kind { return wire.Kinds() }

// ParseKind checks a kind name (wire.ParseKind).
func ParseKind(s string) (Kind, bool) { return wire.ParseKind(s) }

// MessageInfo is the context of one message. Every field is untrusted input
// as far as the pass is concerned: Tool is restricted to a safe charset
// before it reaches a label, and the others reach only evidence, restricted
// the same way.
type MessageInfo struct {
	Kind      Kind
	Tool      string
	Server    string
	Tenant    string
	RequestID string
	// Framing says whether the body is the result itself (FramingBare) or
	// a JSON-RPC message that carries it (FramingJSONRPC), as the caller
	// knows from the transport; "" or FramingAuto leaves it to the body
	// where that is unambiguous (docs/pipeline.md, "Framing"). A name that
	// is not a Framing rejects the message (INVALID_CONTENT,
	// unknown-framing).
	Framing Framing
	// OutputSchema is the tool's compiled outputSchema, or nil. With it, a
	// tool result's structuredContent must be present and conform (raw and
	// sanitized), is projected by policy, and the text blocks that mirror
	// it are regenerated (see docs/pipeline.md).
	OutputSchema *schema.Schema
	// Method is the MCP method of the message (of the request a result
	// answers, or of the server's request or notification), for the kind
	// guards of bare bodies that do not carry it (guard.go); an
	// envelope's own method takes precedence.
	Method string
	// Pins, when not nil, pins the tool definitions of a tools-list
	// message (guard_pins.go) under Server.
	Pins PinStore
	// Guard is the request context of the resource, prompt and completion
	// guards (guards.go); nil when the producer gave none.
	Guard *GuardInput
	// NoDigests says the caller discards the evidence's digests of the
	// input and the output (it keeps no evidence): they are not computed,
	// and Evidence.Input and Evidence.Output carry the byte counts with an
	// empty Digest. The output is the same either way.
	NoDigests bool
}

// Output receives the sanitized message. A pass writes to it as it goes; on
// failure it calls Discard and then writes the error result from the start,
// so an Output must be able to forget what it was given (a buffer, a spool
// file, a temporary object). Discard must not fail for an Output that has
// not been written to.
type Output interface {
	io.Writer
	Discard() error
}

// An AppendOutput is an Output that keeps what is written in memory and
// lets the pass write into that memory directly, which saves a copy of the
// whole output. AppendBuffer returns an empty slice whose capacity is free
// room of at least n bytes right after what was written, or nil when it has
// none to give (the pass then writes from a buffer of its own). A Write of
// bytes appended to that slice, within its capacity, takes them in place.
// payload.Sink is one.
type AppendOutput interface {
	Output
	AppendBuffer(n int) []byte
}

// Engine holds everything compiled from a policy: the limits, the scanner
// catalog and the fingerprint key. It is immutable and safe for concurrent
// use; each Sanitize call takes its own pass state from a free list.
type Engine struct {
	pol     *Policy
	lim     bounds.Limits
	cat     *scanners.Catalog
	fpKey   []byte
	mime    map[string]bool
	randKey bool
	// structMax is the structured-bytes limit.
	structMax int64
	// holdMax is the binary-hold-bytes limit (binary.go).
	holdMax int64
	// joinMax is the block-join-bytes limit (blockjoin.go); maxMarker the
	// length of the catalog's longest marker.
	joinMax   int64
	maxMarker int
	// free holds idle passes (about 200 KiB each: read buffer, scanner
	// state). A bounded list rather than a sync.Pool: a GC empties a
	// sync.Pool, and rebuilding passes after every GC cost a fifth of the
	// time on streams of small messages. At most 2*GOMAXPROCS are kept.
	free chan *pass
	// noShadow writes all text through the escaper (shadow.go), and turns
	// the whole-string path off (wholestring.go); for the differential
	// tests.
	noShadow bool
	// noMembers turns the member path (member.go) and the shape memo
	// (shapememo.go) off, as noShadow does too; for the differential
	// tests.
	noMembers bool
	// noRawSchema turns finishRaw off (structured.go): every structured
	// result is decoded; for the differential tests.
	noRawSchema bool
	// checkSame compares the texts of structuredContent even when the
	// pass knows they hold the same value, and fails the pass when they
	// do not (structured_same.go); for the tests.
	checkSame bool
	// noDefer scans every mirror candidate as it streams instead of
	// holding it (structured_defer.go); for the differential tests.
	noDefer bool
	// sameSeen, when set, is told what the pass said at each
	// structuredContent it checked (structured_same.go); for the tests.
	sameSeen func(same bool)
	// errs sanitizes the text of tool errors and JSON-RPC error objects
	// (errorpolicy.go).
	errs *errsan.Sanitizer
	// guards are the kind-specific guards of G003 and G004 (guards.go).
	guards *guards
}

// NewEngine compiles a policy. A nil policy means DefaultPolicy.
func NewEngine(p *Policy) (*Engine, error) {
	if p == nil {
		p = DefaultPolicy()
	}
	cp := *p
	if err := cp.Validate(); err != nil {
		return nil, err
	}
	lim, err := cp.limits()
	if err != nil {
		return nil, err
	}
	cat, err := scanners.NewCatalog(cp.catalogOptions())
	if err != nil {
		return nil, fmt.Errorf("%w: rules: %v", ErrPolicy, err)
	}
	key, ok, err := cp.fingerprintKey()
	if err != nil {
		return nil, err
	}
	smax, err := cp.structuredBytes()
	if err != nil {
		return nil, err
	}
	hmax, err := cp.binaryHoldBytes()
	if err != nil {
		return nil, err
	}
	jmax, err := cp.blockJoinBytes()
	if err != nil {
		return nil, err
	}
	e := &Engine{pol: &cp, lim: lim, cat: cat, fpKey: key, mime: map[string]bool{}, structMax: smax, holdMax: hmax}
	e.joinMax, e.maxMarker = jmax, cat.MaxMarkerLen()
	if e.errs, err = newErrSanitizer(&cp); err != nil {
		return nil, err
	}
	if e.guards, err = compileGuards(&cp); err != nil {
		return nil, err
	}
	if !ok {
		e.fpKey = make([]byte, 32)
		if _, err := rand.Read(e.fpKey); err != nil {
			return nil, fmt.Errorf("pipeline: drawing a fingerprint key: %w", err)
		}
		e.randKey = true
	}
	for _, m := range cp.AllowedMIME {
		e.mime[m] = true
	}
	e.free = make(chan *pass, 2*runtime.GOMAXPROCS(0))
	// The normalizer's NFKC table is not built here: the first rune
	// outside ASCII that a pass meets builds it (about 4 M instructions,
	// once per process), and a process whose text is ASCII never does;
	// it was 7 % of a `scan` of one small message.
	return e, nil
}

// Policy returns a copy of the validated policy with its defaults filled.
func (e *Engine) Policy() Policy { return *e.pol }

// Catalog returns the compiled scanner catalog.
func (e *Engine) Catalog() *scanners.Catalog { return e.cat }

// RandomFingerprintKey reports whether fingerprints use a per-process random
// key (no key source was configured).
func (e *Engine) RandomFingerprintKey() bool { return e.randKey }

// Sanitize runs one pass: it reads one message from in and writes the
// sanitized message (or a sanitized error result) to out, and returns the
// evidence of the pass. The returned error is non-nil only when out itself
// failed (a write or discard error); every failure of the input is an
// outcome recorded in the evidence, with an error result written to out.
// The deadline of ctx bounds the pass (code TIMEOUT).
func (e *Engine) Sanitize(ctx context.Context, in io.Reader, out Output, info MessageInfo) (*Evidence, error) {
	if e.guards.on(info.Kind) {
		return e.sanitizeSeedGuarded(ctx, in, out, info)
	}
	if g := guardOf(info.Kind); g != nil {
		return e.sanitizeGuarded(ctx, g, in, out, info)
	}
	p := e.getPass()
	defer p.release()
	return p.run(ctx, in, out, info)
}

// errOutput wraps failures of the Output, which are the caller's to handle.
type errOutput struct{ err error }

func (e errOutput) Error() string { return "pipeline: output: " + e.err.Error() }
func (e errOutput) Unwrap() error { return e.err }

// IsOutputError reports whether err came from the Output given to Sanitize.
func IsOutputError(err error) bool {
	var o errOutput
	return errors.As(err, &o)
}

// Reject writes the sanitized error result for code and reason in place of a
// message that the caller could not hand to Sanitize (a record without a
// result, a payload that failed to decompress). in, when not nil, is read to
// the end only to digest it for the evidence.
func (e *Engine) Reject(in io.Reader, out Output, info MessageInfo, code Code, reason string) (*Evidence, error) {
	p := e.getPass()
	defer p.release()
	start := time.Now()
	p.reset(context.Background(), out, info)
	p.inReader = in
	p.fail = &Error{Code: code, Reason: reason}
	return p.finishError(out, start)
}

func (e *Engine) getPass() *pass {
	select {
	case p := <-e.free:
		return p
	default:
		return newPass(e)
	}
}
