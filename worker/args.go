package worker

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/argsgate"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file serves mcp.args.validate: the argument gate of seed 001 as
// request/reply. Headers Mcp-Server (required) and Mcp-Tool name the tool,
// Mcp-Tenant the tenant for evidence; the body is the arguments object or a
// whole tools/call request. The reply is {"valid":true} or the tool
// execution error (a CallToolResult with isError true) to return instead of
// running the tool; the Mcp-Code header carries the code of a rejection.
// Payloads are documented in docs/schema.md.

// Defaults of the args service.
const (
	// DefaultArgsQueue is the queue group the args service joins.
	DefaultArgsQueue = "mcp-args"
	// DefaultArgsMaxRequestBytes caps one request (arguments or tools/call).
	DefaultArgsMaxRequestBytes = argsgate.DefaultMaxArgsBytes
)

// ArgsService answers mcp.args.validate from the tool catalog.
type ArgsService struct {
	nc   *nats.Conn
	cat  *toolcat.Catalog
	gate *argsgate.Gate
	cfg  catalogServiceConfig
	rr   replyService
}

// NewArgsService returns the argument gate service. gate nil means
// argsgate.New with the default options and the catalog's schema cache.
func NewArgsService(nc *nats.Conn, cat *toolcat.Catalog, gate *argsgate.Gate, opts ...CatalogOption) (*ArgsService, error) {
	if nc == nil || cat == nil {
		return nil, errCatalogOption
	}
	cfg, err := newCatalogConfig(DefaultArgsQueue, DefaultArgsMaxRequestBytes, opts)
	if err != nil {
		return nil, err
	}
	if gate == nil {
		if gate, err = argsgate.New(argsgate.Options{MaxArgsBytes: cfg.maxRequestBytes, Schemas: cat.Schemas()}); err != nil {
			return nil, err
		}
	}
	s := &ArgsService{nc: nc, cat: cat, gate: gate, cfg: cfg}
	s.rr = replyService{nc: nc, queue: cfg.queue, concurrency: cfg.concurrency, handle: s.handle}
	return s, nil
}

// Start subscribes to mcp.args.validate in the queue group.
func (s *ArgsService) Start(ctx context.Context) error {
	return s.rr.start(ctx, wire.SubjectArgsValidate)
}

// Stop drains the subscription (requests already received are answered)
// and waits for them, at most 30 s.
func (s *ArgsService) Stop() error { return s.rr.stop() }

// Check runs the gate for one request: server and tool as the headers name
// them, body the arguments or a tools/call request.
func (s *ArgsService) Check(ctx context.Context, server, tool string, body []byte) (*argsgate.Result, string) {
	if wire.CheckToken(server) != nil {
		return s.gate.UnknownTool(tool), tool
	}
	return s.gate.CheckCallSchema(tool, body, func(name string) (*argsgate.Schema, error) {
		e, err := s.cat.Get(ctx, server, name)
		switch {
		case err == nil:
			return &argsgate.Schema{Raw: e.InputSchema, Compiled: e.Input}, nil
		case errors.Is(err, toolcat.ErrNotFound), errors.Is(err, toolcat.ErrName):
			return nil, argsgate.ErrUnknownTool
		}
		return nil, err
	})
}

// argsEvidence is what the service publishes on <prefix>.<tenant>: codes,
// names, the sanitized parameter pointer and the schema digest; never an
// argument value.
type argsEvidence struct {
	Kind          string    `json:"kind"`
	Time          time.Time `json:"time"`
	Server        string    `json:"server"`
	Tool          string    `json:"tool"`
	Valid         bool      `json:"valid"`
	Code          string    `json:"code"`
	Keyword       string    `json:"keyword,omitempty"`
	Pointer       string    `json:"pointer,omitempty"`
	SchemaPointer string    `json:"schemaPointer,omitempty"`
	SchemaDigest  string    `json:"schemaDigest,omitempty"`
}

func (s *ArgsService) handle(m *nats.Msg) {
	server, tool, tenant := "", "", ""
	if m.Header != nil {
		server, tool, tenant = m.Header.Get(wire.HeaderServer), m.Header.Get(wire.HeaderTool), m.Header.Get(wire.HeaderTenant)
	}
	var r *argsgate.Result
	if len(m.Data) > s.cfg.maxRequestBytes {
		r = s.gate.TooLarge(tool)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout)
		r, tool = s.Check(ctx, server, tool, m.Data)
		cancel()
	}
	s.publishEvidence(tenant, server, tool, r)
	if m.Reply == "" {
		return
	}
	hdr := nats.Header{}
	hdr.Set(wire.HeaderCode, string(r.Code))
	if err := m.RespondMsg(&nats.Msg{Data: r.Reply(), Header: hdr}); err != nil {
		s.cfg.onError(errors.New("worker: args reply failed"))
	}
}

func (s *ArgsService) publishEvidence(tenant, server, tool string, r *argsgate.Result) {
	if s.cfg.evidencePrefix == "" {
		return
	}
	ev := argsEvidence{
		Kind: "argsgate", Time: time.Now().UTC(), Server: wire.TokenOr(server), Tool: toolToken(tool),
		Valid: r.Valid, Code: string(r.Code), Keyword: r.Keyword, Pointer: r.Pointer,
		SchemaPointer: r.SchemaPointer, SchemaDigest: r.SchemaDigest,
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	if err := s.nc.Publish(wire.Subject(s.cfg.evidencePrefix, wire.TokenOr(tenant)), b); err != nil {
		s.cfg.onError(errors.New("worker: args evidence publish failed"))
	}
}

// toolToken is the catalog key token of a tool name (a deterministic
// encoding), or the invalid token: evidence never holds a raw header value.
func toolToken(tool string) string {
	t, err := toolcat.ToolToken(tool)
	if err != nil {
		return wire.InvalidToken
	}
	return t
}
