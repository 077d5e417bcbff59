package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testfleet"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// logResult is a CallToolResult of about n bytes with a run-time-built
// AWS-style key.
func logResult(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":"key=` + testtokens.AWSAccessKey(32) + `\n`)
	for b.Len() < n {
		b.WriteString("2026-11-30T05:00:00Z INFO served /api/items in 12ms status=200\\n")
	}
	b.WriteString(`"}]}`)
	return b.Bytes()
}

// TestAgainstWorker runs the client against the real worker service on an
// embedded server whose max payload is 64 KiB: inline small, compressed
// and claim-checked messages, then the durable path.
func TestAgainstWorker(t *testing.T) {
	pol := pipeline.DefaultPolicy()
	pol.Limits = map[string]int64{"text-chars": 64 << 20, "string-chars": 64 << 20}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	// The message timeout is generous: this test checks what the client and
	// the worker exchange, not how fast, and under -race beside other
	// packages' tests a by-reference round trip can take seconds
	// (docs/payloads.md).
	streams := worker.DefaultStreamsConfig()
	streams.Duplicates = 2 * time.Minute
	cons := worker.DefaultConsumerConfig()
	cons.BackOff = []time.Duration{30 * time.Second, 30 * time.Second}
	cons.MaxDeliver = 3
	f := testfleet.Start(t, eng, testfleet.Options{
		NATS: testnats.Options{MaxPayload: 64 << 10},
		Serve: []worker.ServeOption{worker.WithStreams(streams), worker.WithConsumer(cons),
			worker.WithMessageTimeout(20 * time.Second), worker.WithFetch(16, 1<<20, 200*time.Millisecond)},
		StartTimeout: 60 * time.Second,
		Client:       []client.Option{client.WithCompression(wire.EncodingZstd, 16<<10)},
	})
	nc, c := f.Conn, f.Client
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	md := client.Metadata{Tool: "read_logs", Server: "files", Tenant: "acme", RequestID: "r-1"}
	for _, tc := range []struct {
		name    string
		msg     []byte
		wantEnc string // the reply's Content-Encoding
		claim   bool   // the reply came by reference
	}{
		{"small", logResult(2 << 10), "", false},
		{"compressed", logResult(200 << 10), payload.DefaultEncoding, false},
		// Random-looking text does not compress into 64 KiB: by reference.
		{"by-reference", randomText(300 << 10), payload.DefaultEncoding, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Sanitize(ctx, pipeline.KindToolResult, tc.msg, md)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome == pipeline.OutcomeRejected || !json.Valid(res.Body) || bytes.Contains(res.Body, []byte("AKIA")) || len(res.Body) < len(tc.msg)/2 {
				t.Fatalf("outcome %q code %q, %d bytes", res.Outcome, res.Code, len(res.Body))
			}
			if res.Header.Get(wire.HeaderContentEncoding) != tc.wantEnc || payload.IsClaim(res.Header) != tc.claim {
				t.Fatalf("reply headers %v", res.Header)
			}
		})
	}
	res, err := c.Sanitize(ctx, pipeline.KindToolResult, []byte(`{"content":[}`), md)
	if err != nil || res.Outcome != pipeline.OutcomeRejected || res.Code != pipeline.CodeInvalidJSON {
		t.Fatalf("rejected message: %v %+v", err, res)
	}
	// Nothing is left in the claim bucket by the inline calls.
	js, _ := jetstream.New(nc)
	st, err := payload.NewStore(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	if list, err := st.List(ctx); !errors.Is(err, jetstream.ErrNoObjectsFound) {
		t.Fatalf("objects left: %d (%v)", len(list), err)
	}

	// Durable: publish twice (deduplicated), read the clean stream.
	msg := logResult(4 << 10)
	for i, wantDup := range []bool{false, true} {
		ack, err := c.Publish(ctx, pipeline.KindToolResult, msg, md)
		if err != nil || ack.Duplicate != wantDup {
			t.Fatalf("publish %d: %v %+v", i, err, ack)
		}
	}
	clean, err := js.Stream(ctx, wire.StreamClean)
	if err != nil {
		t.Fatal(err)
	}
	subj := wire.Subject(wire.CleanPrefix, "acme", "files", "tool-result")
	var m *jetstream.RawStreamMsg
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if m, err = clean.GetLastMsgForSubject(ctx, subj); err == nil {
			break
		}
		<-time.After(25 * time.Millisecond)
	}
	if m == nil {
		t.Fatalf("no clean message: %v", err)
	}
	r, err := payload.Open(ctx, m.Header, m.Data, st, payload.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = out.ReadFrom(r)
	r.Close()
	if err != nil || !json.Valid(out.Bytes()) || bytes.Contains(out.Bytes(), []byte("AKIA")) {
		t.Fatalf("clean message: %v", err)
	}
	info, err := clean.Info(ctx)
	if err != nil || info.State.Msgs != 1 {
		t.Fatalf("clean stream holds %d messages, want 1 (%v)", info.State.Msgs, err)
	}
}

// randomText returns a tool result whose text is n bytes of letters from
// a fixed LCG (incompressible enough to need a claim).
func randomText(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":"key=` + testtokens.AWSAccessKey(33) + ` `)
	x := uint32(1)
	for b.Len() < n {
		x = x*1664525 + 1013904223
		b.WriteByte('a' + byte(x>>24)%26)
	}
	b.WriteString(`"}]}`)
	return b.Bytes()
}
