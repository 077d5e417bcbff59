package proxy

import (
	"bytes"
	"context"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Meta is the context of one message, as a pass or the fleet takes it. Tool
// is the tool a tools/call result answers ("" otherwise).
type Meta struct {
	Tool      string
	Server    string
	Tenant    string
	RequestID string
	// Request is the params of the request a resources/read, prompts/get
	// or completion/complete response answers (guards.go), else nil.
	Request []byte
}

// Result is one sanitized message.
type Result struct {
	// Body is the sanitized message, or the sanitized error result that
	// stands for it (Outcome rejected).
	Body []byte
	// Outcome is clean, sanitized, truncated or rejected.
	Outcome wire.Outcome
	// Code is the stable code of a rejected message.
	Code wire.Code
	// Evidence is the pass's evidence when the pass ran in this process,
	// nil when it ran in the fleet (the worker publishes it there).
	Evidence *pipeline.Evidence
}

// A Sanitizer runs one server-to-client message, a JSON-RPC message of
// the given kind, through a pass. A returned error means no pass could be
// had (the fleet did not answer in time, no worker listens): the proxy
// then fails the message closed itself. A message the pass refuses is not
// an error: Result.Outcome is rejected and Body the error result.
type Sanitizer interface {
	Sanitize(ctx context.Context, kind wire.Kind, msg []byte, md Meta) (*Result, error)
}

// Engine is the in-process Sanitizer: the pipeline's engine, with every
// message framed as JSON-RPC (the proxy reads JSON-RPC, so the transport
// and not the body says what a body is).
type Engine struct {
	E *pipeline.Engine
	// Pins, when not nil, pins the tool definitions of tools/list results
	// and, when it is a pipeline.PromptPinStore, the prompts of
	// prompts/list results (policy pinning: warn, hold or off;
	// docs/pinning.md), under Meta.Server. sanitize-worker proxy gives a
	// pipeline.MemoryPins, which pins both.
	Pins pipeline.PinStore
	// Guard is the context and hooks of the resource, prompt and
	// completion guards (guards.go); nil refuses those results when the
	// policy guards them.
	Guard *GuardContext
}

// bufs holds the output buffers of passes; a buffer over keepBuf is not
// kept (it would pin a large message's memory).
var bufs = sync.Pool{New: func() any { return new(pipeline.Buffer) }}

const keepBuf = 256 << 10

// Sanitize runs one pass in this process.
func (e Engine) Sanitize(ctx context.Context, kind wire.Kind, msg []byte, md Meta) (*Result, error) {
	out := bufs.Get().(*pipeline.Buffer)
	out.Reset()
	ev, err := e.E.Sanitize(ctx, bytes.NewReader(msg), out, pipeline.MessageInfo{
		Kind: kind, Tool: md.Tool, Server: md.Server, Tenant: md.Tenant, RequestID: md.RequestID,
		Framing: pipeline.FramingJSONRPC, Pins: e.pinsFor(kind), Guard: e.guardInput(kind, md),
	})
	body := bytes.Clone(out.Bytes())
	if out.Cap() <= keepBuf {
		bufs.Put(out)
	}
	if err != nil {
		return nil, err // a Buffer does not fail: unreachable in practice
	}
	return &Result{Body: body, Outcome: ev.Outcome, Code: ev.Code, Evidence: ev}, nil
}

// pinsFor gives the pins to tools/list and prompts/list results only
// (prompts are pinned when the store is a pipeline.PromptPinStore).
func (e Engine) pinsFor(kind wire.Kind) pipeline.PinStore {
	if kind != wire.KindToolsList && kind != wire.KindPromptsList {
		return nil
	}
	return e.Pins
}
