package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// env is an embedded server with the claim bucket, a client connection and
// a responder connection.
type env struct {
	nc, rc *nats.Conn
	js     jetstream.JetStream
	store  *payload.Store
	// seen records the headers of the last request the responder got.
	seen atomic.Pointer[nats.Header]
	// hold blocks the responder for requests of the tool "slow".
	hold chan struct{}
}

func newEnv(t *testing.T, maxPayload int32) *env {
	t.Helper()
	s := testnats.RunServer(t, testnats.Options{MaxPayload: maxPayload})
	e := &env{hold: make(chan struct{})}
	t.Cleanup(func() { close(e.hold) })
	for _, c := range []**nats.Conn{&e.nc, &e.rc} {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		*c = nc
	}
	var err error
	e.js, err = jetstream.New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.store, err = payload.EnsureBucket(ctx, e.js, "", time.Hour); err != nil {
		t.Fatal(err)
	}
	return e
}

// respond starts a responder on the inline subjects that decodes each
// request with payload.Open, runs the real pipeline engine, and replies
// through a Sink (claim-checked when the reply does not fit), setting
// Mcp-Outcome and Mcp-Code as the worker does. It stands in for the
// worker, which this package does not import.
func (e *env) respond(t *testing.T, so payload.SinkOptions) {
	t.Helper()
	pol := pipeline.DefaultPolicy()
	pol.Limits = map[string]int64{"text-chars": 64 << 20, "string-chars": 64 << 20, "output-bytes": 64 << 20}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	rjs, _ := jetstream.New(e.rc)
	store, err := payload.NewStore(context.Background(), rjs, "")
	if err != nil {
		t.Fatal(err)
	}
	so.Store = store
	so.MaxPayload = int(e.rc.MaxPayload())
	so.SpoolDir = t.TempDir()
	_, err = e.rc.QueueSubscribe(wire.SanitizePrefix+".*", wire.QueueInline, func(m *nats.Msg) {
		h := m.Header
		e.seen.Store(&h)
		if m.Header.Get(wire.HeaderTool) == "slow" {
			<-e.hold
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kind, _ := pipeline.ParseKind(strings.TrimPrefix(m.Subject, wire.SanitizePrefix+"."))
		info := pipeline.MessageInfo{Kind: kind, Tool: m.Header.Get(wire.HeaderTool)}
		sink := payload.NewSink(so)
		defer sink.Close()
		var ev *pipeline.Evidence
		r, err := payload.Open(ctx, m.Header, m.Data, store, payload.Limits{})
		if err == nil {
			ev, err = eng.Sanitize(ctx, r, sink, info)
			if perr := payload.Failure(r); perr != nil && err == nil {
				sink.Discard()
				ev, err = eng.Reject(nil, sink, info, perr.Code, string(perr.Reason))
			}
			r.Close()
		} else if perr, ok := payload.AsError(err); ok {
			ev, err = eng.Reject(nil, sink, info, perr.Code, string(perr.Reason))
		}
		if err != nil {
			t.Errorf("responder: %v", err)
			return
		}
		hdr, body, err := sink.Finish(ctx)
		if err != nil {
			t.Errorf("responder finish: %v", err)
			return
		}
		hdr.Set(wire.HeaderOutcome, string(ev.Outcome))
		if ev.Outcome == pipeline.OutcomeRejected {
			hdr.Set(wire.HeaderCode, string(ev.Code))
		}
		if err := m.RespondMsg(&nats.Msg{Header: hdr, Data: body}); err != nil {
			t.Errorf("respond: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.rc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// toolResult returns a CallToolResult of about n bytes with an AWS-style
// key built at run time (redacted by the engine).
func toolResult(n int) []byte {
	key := testtokens.AWSAccessKey(31)
	line := "2026-11-30T05:00:00Z INFO request served in 12ms path=/api/items status=200\\n"
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":"key=` + key + `\n`)
	for b.Len() < n {
		b.WriteString(line)
	}
	b.WriteString(`"}]}`)
	return b.Bytes()
}

func objectCount(t *testing.T, st jetstream.ObjectStore) int {
	t.Helper()
	list, err := st.List(context.Background())
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func TestSanitizeRoundTrip(t *testing.T) {
	e := newEnv(t, 256<<10)
	e.respond(t, payload.SinkOptions{CompressAbove: 64 << 10})
	c, err := New(e.nc, WithCompression("zstd", 32<<10))
	if err != nil {
		t.Fatal(err)
	}
	md := Metadata{Tool: "read_logs", Server: "files", Tenant: "acme", RequestID: "req-1", Policy: "default",
		Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	for _, tc := range []struct {
		name    string
		n       int
		wantEnc string // Content-Encoding the responder saw
		claim   bool   // the request went by reference
	}{
		{"small", 2 << 10, "", false},
		{"compressed", 100 << 10, "zstd", false},
		// 3 MiB of logs compress below the 256 KiB max payload.
		{"large-compressed-inline", 3 << 20, "zstd", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := toolResult(tc.n)
			res, err := c.Sanitize(context.Background(), pipeline.KindToolResult, msg, md)
			if err != nil {
				t.Fatal(err)
			}
			seen := *e.seen.Load()
			if got := seen.Get(wire.HeaderContentEncoding); got != tc.wantEnc {
				t.Fatalf("request Content-Encoding %q, want %q", got, tc.wantEnc)
			}
			if payload.IsClaim(seen) != tc.claim {
				t.Fatalf("request claim = %v", payload.IsClaim(seen))
			}
			for k, v := range map[string]string{wire.HeaderTool: md.Tool, wire.HeaderServer: md.Server, wire.HeaderTenant: md.Tenant,
				wire.HeaderRequestID: md.RequestID, wire.HeaderPolicy: md.Policy, wire.HeaderTraceparent: md.Traceparent} {
				if seen.Get(k) != v {
					t.Fatalf("header %s = %q, want %q", k, seen.Get(k), v)
				}
			}
			if res.Outcome != pipeline.OutcomeSanitized || res.Code != "" {
				t.Fatalf("outcome %q code %q", res.Outcome, res.Code)
			}
			if !json.Valid(res.Body) || bytes.Contains(res.Body, []byte("AKIA")) || len(res.Body) < tc.n/2 {
				t.Fatalf("reply body: valid=%v, %d bytes, key present=%v", json.Valid(res.Body), len(res.Body), bytes.Contains(res.Body, []byte("AKIA")))
			}
		})
	}
	// A rejected message is a result, not an error.
	res, err := c.Sanitize(context.Background(), pipeline.KindToolResult, []byte(`{"content":[`), md)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pipeline.OutcomeRejected || res.Code != pipeline.CodeInvalidJSON || !json.Valid(res.Body) {
		t.Fatalf("rejected: %q %q %s", res.Outcome, res.Code, res.Body)
	}
}

// TestSanitizeByReference: a message over the server's max payload goes
// through the Object Store both ways, and the client removes both objects.
func TestSanitizeByReference(t *testing.T) {
	e := newEnv(t, 64<<10)
	// The responder never compresses, so its reply must be claim-checked.
	e.respond(t, payload.SinkOptions{Encoding: "identity"})
	c, err := New(e.nc, WithCompression("identity", 0))
	if err != nil {
		t.Fatal(err)
	}
	msg := toolResult(1 << 20)
	res, err := c.Sanitize(context.Background(), pipeline.KindToolResult, msg, Metadata{Tool: "read_logs"})
	if err != nil {
		t.Fatal(err)
	}
	seen := *e.seen.Load()
	if !payload.IsClaim(seen) || seen.Get(wire.HeaderClaimBucket) != wire.BucketPayloads {
		t.Fatalf("request headers %v", seen)
	}
	if !payload.IsClaim(res.Header) {
		t.Fatalf("reply was not claim-checked: %v", res.Header)
	}
	if res.Outcome != pipeline.OutcomeSanitized || !json.Valid(res.Body) || len(res.Body) < len(msg)/2 || bytes.Contains(res.Body, []byte("AKIA")) {
		t.Fatalf("outcome %q, %d bytes", res.Outcome, len(res.Body))
	}
	if n := objectCount(t, e.store); n != 0 {
		t.Fatalf("%d objects left in the bucket", n)
	}
	// A reply larger than the client's bound is refused.
	c2, _ := New(e.nc, WithCompression("identity", 0), WithMaxReplyBytes(100<<10))
	if _, err := c2.Sanitize(context.Background(), pipeline.KindToolResult, msg, Metadata{}); !errors.Is(err, &payload.Error{Code: pipeline.CodeBoundExceeded, Reason: payload.ReasonDecodedBytes}) {
		t.Fatalf("bounded reply: %v", err)
	}
}

func TestSanitizeTimeoutsAndErrors(t *testing.T) {
	e := newEnv(t, 0)
	c, err := New(e.nc, WithTimeout(5*time.Second), WithToolTimeouts(map[string]time.Duration{"slow": 150 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ToolTimeout("slow") != 150*time.Millisecond || c.ToolTimeout("other") != 5*time.Second {
		t.Fatal("ToolTimeout")
	}
	msg := toolResult(100)
	if _, err := c.Sanitize(context.Background(), pipeline.KindToolResult, msg, Metadata{}); !errors.Is(err, ErrNoWorkers) {
		t.Fatalf("no workers: %v", err)
	}
	e.respond(t, payload.SinkOptions{})
	start := time.Now()
	_, err = c.Sanitize(context.Background(), pipeline.KindToolResult, msg, Metadata{Tool: "slow"})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Tool != "slow" || te.Timeout != 150*time.Millisecond || te.Code() != pipeline.CodeTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow tool: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("the per-tool timeout did not apply: %s", el)
	}
	// The caller's own cancellation is its own error, not a TimeoutError.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Sanitize(ctx, pipeline.KindToolResult, msg, Metadata{Tool: "slow"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	for _, tc := range []struct {
		name string
		kind pipeline.Kind
		md   Metadata
		want error
	}{
		{"kind", "tool-results", Metadata{}, ErrKind},
		{"newline", pipeline.KindToolResult, Metadata{Tool: "a\r\nMcp-Tenant: other"}, ErrMetadata},
		{"too-long", pipeline.KindToolResult, Metadata{Policy: strings.Repeat("p", MaxMetadataLen+1)}, ErrMetadata},
	} {
		if _, err := c.Sanitize(context.Background(), tc.kind, msg, tc.md); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestNewOptions(t *testing.T) {
	e := newEnv(t, 0)
	for i, opts := range [][]Option{
		{WithTimeout(0)}, {WithTimeout(-time.Second)},
		{WithToolTimeouts(map[string]time.Duration{"x": 0})},
		{WithCompression("gzip", 10)}, {WithMaxReplyBytes(0)},
		{WithObjectStore(nil, "b")}, {WithObjectStore(e.store, "bad.name")},
	} {
		if _, err := New(e.nc, opts...); !errors.Is(err, ErrOptions) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	if _, err := New(nil); !errors.Is(err, ErrOptions) {
		t.Error("nil connection accepted")
	}
}

func TestPublish(t *testing.T) {
	e := newEnv(t, 64<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, err := e.js.CreateStream(ctx, jetstream.StreamConfig{Name: wire.StreamRaw, Subjects: []string{wire.RawPrefix + ".>"},
		Retention: jetstream.WorkQueuePolicy, Duplicates: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	md := Metadata{Tenant: "acme", Server: "files", Tool: "read_file"}
	msg := toolResult(1000)
	for _, tc := range []struct {
		name string
		msg  []byte
		md   Metadata
		dup  bool
	}{
		{"first", msg, md, false},
		{"same-content", msg, md, true},
		{"other-content", toolResult(2000), md, false},
		{"other-tenant", msg, Metadata{Tenant: "globex", Server: "files"}, false},
		{"request-id", msg, Metadata{Tenant: "acme", Server: "files", RequestID: "r-1"}, false},
		{"same-request-id", toolResult(3000), Metadata{Tenant: "acme", Server: "files", RequestID: "r-1"}, true},
	} {
		ack, err := c.Publish(ctx, pipeline.KindToolResult, tc.msg, tc.md)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ack.Stream != wire.StreamRaw || ack.Duplicate != tc.dup {
			t.Fatalf("%s: ack %+v", tc.name, ack)
		}
	}
	m, err := stream.GetLastMsgForSubject(ctx, wire.Subject(wire.RawPrefix, "acme", "files", "tool-result"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get(wire.HeaderMsgID) != "r-1" || m.Header.Get(wire.HeaderTenant) != "acme" || !bytes.Equal(m.Data, msg) {
		t.Fatalf("stored message: %v", m.Header)
	}
	if id := MsgID(pipeline.KindToolResult, msg, md); !strings.HasPrefix(id, "sha256:") || len(id) != 7+64 || id == MsgID(pipeline.KindToolResult, msg, Metadata{Tenant: "acmef", Server: "iles"}) {
		t.Fatalf("MsgID %q", id)
	}
	// A body over the max payload is stored by reference.
	big := toolResult(512 << 10)
	if _, err := c.Publish(ctx, pipeline.KindResourceResult, big, Metadata{Tenant: "acme", Server: "docs", RequestID: "big-1"}); err != nil {
		t.Fatal(err)
	}
	m, err = stream.GetLastMsgForSubject(ctx, wire.Subject(wire.RawPrefix, "acme", "docs", "resource-result"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := payload.Open(ctx, m.Header, m.Data, e.store, payload.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("claim-checked publish: %v", err)
	}
	for _, bad := range []Metadata{{Tenant: "a.b", Server: "s"}, {Tenant: "a", Server: ""}, {Tenant: "*", Server: "s"}} {
		if _, err := c.Publish(ctx, pipeline.KindToolResult, msg, bad); !errors.Is(err, ErrMetadata) || !errors.Is(err, wire.ErrToken) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	// A kind is checked before anything is sent.
	if _, err := c.Publish(ctx, "bogus", msg, md); !errors.Is(err, ErrKind) {
		t.Fatal(err)
	}
	if err := e.js.DeleteStream(ctx, wire.StreamRaw); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, pipeline.KindToolResult, toolResult(10), md); err == nil {
		t.Fatal("publish without a stream succeeded")
	}
}
