package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Metadata is the context of one message, sent as headers. Every field is
// optional for Sanitize; Publish needs Tenant and Server (they are subject
// tokens). Values must not contain control characters.
type Metadata struct {
	Tool        string // Mcp-Tool; also selects the timeout
	Server      string // Mcp-Server
	Tenant      string // Mcp-Tenant
	RequestID   string // Mcp-Request-Id; the Nats-Msg-Id of Publish
	Policy      string // Mcp-Policy
	Traceparent string // W3C traceparent
	// Framing is Mcp-Framing: how the body is framed (wire.FramingBare or
	// wire.FramingJSONRPC); empty leaves it to the worker's default.
	Framing wire.Framing
	// Principal (Mcp-Principal), Scopes (Mcp-Scopes, space-separated) and
	// RequestParams (Mcp-Request-Params: the compact JSON of the request's
	// params, at most MaxRequestParamsLen bytes) are the context of the
	// resource, prompt and completion guards (docs/resources.md).
	Principal, Scopes, RequestParams string
}

// Result is a sanitized message.
type Result struct {
	// Body is the sanitized message (a sanitized error result when the
	// worker rejected the input), decoded from the reply.
	Body []byte
	// Outcome is the worker's Mcp-Outcome: clean, sanitized, truncated or
	// rejected.
	Outcome wire.Outcome
	// Code is the stable code of a rejected message (Mcp-Code), or empty.
	Code wire.Code
	// Header is the reply's header as received.
	Header nats.Header
}

// Errors.
var (
	// ErrNoWorkers: no worker listens on the inline subject.
	ErrNoWorkers = errors.New("client: no sanitize worker is listening")
	// ErrKind: the kind is not one of wire.Kinds.
	ErrKind = errors.New("client: unknown message kind")
	// ErrMetadata: a metadata value holds a control character or is longer
	// than MaxMetadataLen, or Publish lacks a valid tenant or server.
	ErrMetadata = errors.New("client: invalid metadata")
	// ErrOptions: an option was refused by New.
	ErrOptions = errors.New("client: invalid option")
)

// MaxMetadataLen caps each metadata value.
const MaxMetadataLen = 1024

// MaxRequestParamsLen caps Metadata.RequestParams (the worker reads no
// larger Mcp-Request-Params).
const MaxRequestParamsLen = 64 << 10

// TimeoutError reports a Sanitize call that took longer than the timeout of
// its tool. Its Code is TIMEOUT.
type TimeoutError struct {
	Tool    string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("client: sanitizing the output of tool %q took longer than %s (%s)", e.Tool, e.Timeout, wire.CodeTimeout)
}

// Code returns wire.CodeTimeout.
func (e *TimeoutError) Code() wire.Code { return wire.CodeTimeout }

// Is makes errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Client sends tool outputs to the fleet. It is safe for concurrent use.
type Client struct {
	nc *nats.Conn
	js jetstream.JetStream
	o  options

	mu    sync.Mutex
	store jetstream.ObjectStore
}

// New returns a client on nc. The options are checked at once.
func New(nc *nats.Conn, opts ...Option) (*Client, error) {
	if nc == nil {
		return nil, fmt.Errorf("%w: nil connection", ErrOptions)
	}
	o := defaults()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	return &Client{nc: nc, js: js, o: o, store: o.store}, nil
}

// ToolTimeout returns the timeout of a Sanitize call for tool: its entry
// in WithToolTimeouts, or the default.
func (c *Client) ToolTimeout(tool string) time.Duration {
	if d, ok := c.o.toolTimeouts[tool]; ok {
		return d
	}
	return c.o.timeout
}

// objectStore binds the claim bucket on first use.
func (c *Client) objectStore(ctx context.Context) (jetstream.ObjectStore, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store != nil {
		return c.store, nil
	}
	st, err := payload.NewStore(ctx, c.js, c.o.bucket)
	if err != nil {
		return nil, fmt.Errorf("client: claim bucket %q: %w", c.o.bucket, err)
	}
	c.store = st
	return st, nil
}

// encode turns msg into a header and body that fit the server's max
// payload: compressed above the threshold, stored by reference when still
// too large. objectName names a stored body ("" for a random name). The
// body may be msg itself or the sink's memory: done releases the sink
// once the body has been sent.
func (c *Client) encode(ctx context.Context, msg []byte, objectName string) (hdr nats.Header, body []byte, done func(), err error) {
	maxPayload := int(c.nc.MaxPayload())
	if maxPayload <= payload.HeaderReserve {
		maxPayload = payload.DefaultMaxPayload
	}
	so := payload.SinkOptions{
		CompressAbove: c.o.compressAbove,
		Encoding:      c.o.encoding,
		MaxPayload:    maxPayload,
		Bucket:        c.o.bucket,
		ObjectName:    objectName,
		MemoryLimit:   len(msg) + 1, // msg is in memory already: never spool
	}
	if len(msg) > maxPayload-payload.HeaderReserve {
		st, err := c.objectStore(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		so.Store = st
	}
	s := payload.NewSink(so)
	if _, err := s.Write(msg); err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	hdr, body, err = s.Finish(ctx)
	if err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	return hdr, body, func() { s.Close() }, nil
}

func setMetadata(h nats.Header, md Metadata) error {
	for _, kv := range [...]struct{ k, v string }{
		{wire.HeaderTool, md.Tool}, {wire.HeaderServer, md.Server}, {wire.HeaderTenant, md.Tenant},
		{wire.HeaderRequestID, md.RequestID}, {wire.HeaderPolicy, md.Policy}, {wire.HeaderTraceparent, md.Traceparent},
		{wire.HeaderFraming, string(md.Framing)}, {wire.HeaderPrincipal, md.Principal}, {wire.HeaderScopes, md.Scopes},
		{wire.HeaderRequestParams, md.RequestParams},
	} {
		if kv.v == "" {
			continue
		}
		max := MaxMetadataLen
		if kv.k == wire.HeaderRequestParams {
			max = MaxRequestParamsLen
		}
		if len(kv.v) > max {
			return fmt.Errorf("%w: %s is longer than %d bytes", ErrMetadata, kv.k, max)
		}
		for i := 0; i < len(kv.v); i++ {
			if b := kv.v[i]; b < 0x20 || b == 0x7f {
				return fmt.Errorf("%w: %s holds a control character", ErrMetadata, kv.k)
			}
		}
		h.Set(kv.k, kv.v)
	}
	return nil
}

func checkKind(kind wire.Kind) error {
	if _, ok := wire.ParseKind(string(kind)); !ok {
		return ErrKind
	}
	return nil
}

// Sanitize sends msg (one MCP message of the given kind, JSON) to the
// fleet and returns the sanitized message. The call ends after the tool's
// timeout (ToolTimeout(md.Tool)) with a *TimeoutError, or earlier when ctx
// ends. A rejected message is not an error: Result.Outcome is "rejected"
// and Result.Body the sanitized error result to hand to the model. Errors
// are for the transport: ErrNoWorkers, *TimeoutError, *payload.Error (a
// reply that cannot be decoded or crosses WithMaxReplyBytes), ErrKind,
// ErrMetadata, or the NATS error.
func (c *Client) Sanitize(ctx context.Context, kind wire.Kind, msg []byte, md Metadata) (*Result, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	timeout := c.ToolTimeout(md.Tool)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hdr, body, done, err := c.encode(cctx, msg, "")
	if err != nil {
		return nil, c.mapErr(ctx, cctx, md.Tool, timeout, err)
	}
	if err := setMetadata(hdr, md); err != nil {
		done()
		c.release(hdr)
		return nil, err
	}
	req := &nats.Msg{Subject: wire.Subject(wire.SanitizePrefix, string(kind)), Header: hdr, Data: body}
	reply, err := c.nc.RequestMsgWithContext(cctx, req)
	done()
	c.release(hdr) // the worker has read the request body once it replies
	if err != nil {
		return nil, c.mapErr(ctx, cctx, md.Tool, timeout, err)
	}
	defer c.release(reply.Header)
	var store jetstream.ObjectStore
	if payload.IsClaim(reply.Header) {
		if store, err = c.objectStore(cctx); err != nil {
			return nil, err
		}
	}
	r, err := payload.Open(cctx, reply.Header, reply.Data, store, payload.Limits{MaxDecodedBytes: c.o.maxReply, Bucket: c.o.bucket})
	if err != nil {
		return nil, c.mapErr(ctx, cctx, md.Tool, timeout, err)
	}
	out, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, c.mapErr(ctx, cctx, md.Tool, timeout, err)
	}
	return &Result{
		Body:    out,
		Outcome: wire.Outcome(reply.Header.Get(wire.HeaderOutcome)),
		Code:    wire.Code(reply.Header.Get(wire.HeaderCode)),
		Header:  reply.Header,
	}, nil
}

// mapErr turns the expiry of the tool's timeout into a *TimeoutError and
// no responders into ErrNoWorkers.
func (c *Client) mapErr(parent, cctx context.Context, tool string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return ErrNoWorkers
	case parent.Err() != nil:
		return parent.Err()
	case cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		return &TimeoutError{Tool: tool, Timeout: timeout}
	}
	return err
}

// release deletes a claimed object (best effort: the bucket's TTL removes
// what a failed delete leaves).
func (c *Client) release(h nats.Header) {
	if !payload.IsClaim(h) {
		return
	}
	st, err := c.objectStore(context.Background())
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = payload.Release(ctx, st, h)
}

// MsgID returns the Nats-Msg-Id Publish uses: md.RequestID when it is set,
// otherwise "sha256:" and the hex SHA-256 of tenant, server, kind and msg
// (each length-prefixed), so that publishing the same output twice within
// the stream's duplicate window stores it once.
func MsgID(kind wire.Kind, msg []byte, md Metadata) string {
	if md.RequestID != "" {
		return md.RequestID
	}
	h := sha256.New()
	for _, s := range []string{md.Tenant, md.Server, string(kind)} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	fmt.Fprintf(h, "%d:", len(msg))
	h.Write(msg)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Publish sends msg to the durable path, mcp.raw.<tenant>.<server>.<kind>,
// and waits for the stream's acknowledgement. md.Tenant and md.Server must
// be valid subject tokens (wire.CheckToken). Nats-Msg-Id is MsgID; a
// publish the stream recognizes as a duplicate returns its PubAck with
// Duplicate set and no error. A body too large for one message is stored
// by reference under an object name derived from the Msg-Id, so a retry
// overwrites the same object. The worker releases it once processed; the
// bucket's TTL removes it otherwise.
func (c *Client) Publish(ctx context.Context, kind wire.Kind, msg []byte, md Metadata) (*jetstream.PubAck, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	if wire.CheckToken(md.Tenant) != nil || wire.CheckToken(md.Server) != nil {
		return nil, fmt.Errorf("%w: tenant and server must be subject tokens: %w", ErrMetadata, wire.ErrToken)
	}
	id := MsgID(kind, msg, md)
	oh := sha256.Sum256([]byte(id))
	hdr, body, done, err := c.encode(ctx, msg, "raw-"+hex.EncodeToString(oh[:16]))
	if err != nil {
		return nil, err
	}
	defer done()
	if err := setMetadata(hdr, md); err != nil {
		c.release(hdr)
		return nil, err
	}
	hdr.Set(wire.HeaderMsgID, id)
	m := &nats.Msg{Subject: wire.Subject(wire.RawPrefix, md.Tenant, md.Server, string(kind)), Header: hdr, Data: body}
	ack, err := c.js.PublishMsg(ctx, m)
	if err != nil {
		c.release(hdr)
		return nil, err
	}
	return ack, nil
}
