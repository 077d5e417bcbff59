package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestReadPubAck reads acknowledgements as the JetStream context does:
// the fast path for a stored message must agree with a full decoding, and
// everything else is decoded.
func TestReadPubAck(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		class      string // publishErrorClass of the result ("" for stored)
	}{
		{"stored", `{"stream":"MCP_EVIDENCE","seq":12}`, ""},
		{"stored with domain", `{"stream":"MCP_EVIDENCE","domain":"hub","seq":3}`, ""},
		{"duplicate", `{"stream":"MCP_EVIDENCE","seq":3,"duplicate":true}`, ""},
		{"duplicate with spaces", `{"stream":"MCP_EVIDENCE", "seq":3, "duplicate": true}`, ""},
		{"not a duplicate", `{"stream":"MCP_EVIDENCE","seq":3,"duplicate":false}`, ""},
		{"escaped stream name", `{"stream":"MCP_\u0045VIDENCE","seq":3,"duplicate":true}`, ""},
		{"members in another order", `{"seq":3,"stream":"MCP_EVIDENCE"}`, ""},
		{"full stream", `{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}`, "jetstream-api-503-10077"},
		{"wrong stream", `{"error":{"code":400,"err_code":10060,"description":"expected stream does not match"}}`, "jetstream-api-400-10060"},
		{"error after the stream", `{"stream":"MCP_EVIDENCE","error":{"code":500,"err_code":10999,"description":"x"}}`, "jetstream-api-500-10999"},
		{"no stream", `{"stream":"","seq":1}`, "other"},
		{"empty object", `{}`, "other"},
		{"not JSON", `nope`, "other"},
		{"empty", ``, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := readPubAck([]byte(tc.data))
			err := a.err
			if got := publishErrorClass(err); got != tc.class {
				t.Errorf("class %q (%v), want %q", got, err, tc.class)
			}
			// The JetStream context's own reading of the same answer.
			var pa struct {
				Error *jetstream.APIError `json:"error,omitempty"`
				*jetstream.PubAck
			}
			jerr := json.Unmarshal([]byte(tc.data), &pa)
			want := jerr != nil || pa.Error != nil || pa.PubAck == nil || pa.Stream == ""
			if (err != nil) != want {
				t.Errorf("failed %v, the JetStream context's reading says %v", err != nil, want)
			}
			if !want && a.dup != pa.Duplicate {
				t.Errorf("duplicate %v, the JetStream context's reading says %v", a.dup, pa.Duplicate)
			}
			if err != nil && tc.class == "other" && !errors.Is(err, jetstream.ErrInvalidJSAck) {
				t.Errorf("error %v, want ErrInvalidJSAck", err)
			}
		})
	}
}

// TestInlineEvidenceAckFailures: every way the evidence stream can fail
// to store an inline message's record is counted and logged with its
// class, the requester still gets the reply, and Stop still settles every
// message; a record the stream stores is stored as the JetStream context
// published it (Nats-Expected-Stream included).
func TestInlineEvidenceAckFailures(t *testing.T) {
	const n = 6
	for _, tc := range []struct {
		name     string
		breakIt  func(t *testing.T, ctx context.Context, js jetstream.JetStream, nc *nats.Conn)
		failures int
		class    string
	}{
		{"stored", nil, 0, ""},
		{"full stream", func(t *testing.T, ctx context.Context, js jetstream.JetStream, nc *nats.Conn) {
			cfg := evidenceConfig()
			cfg.MaxMsgs, cfg.Discard = 2, jetstream.DiscardNew
			if _, err := js.UpdateStream(ctx, cfg); err != nil {
				t.Fatal(err)
			}
		}, n - 2, "jetstream-api-503-10077"},
		{"no stream", func(t *testing.T, ctx context.Context, js jetstream.JetStream, nc *nats.Conn) {
			if err := js.DeleteStream(ctx, wire.StreamEvidence); err != nil {
				t.Fatal(err)
			}
		}, n, "no-responders"},
		{"another stream", func(t *testing.T, ctx context.Context, js jetstream.JetStream, nc *nats.Conn) {
			if err := js.DeleteStream(ctx, wire.StreamEvidence); err != nil {
				t.Fatal(err)
			}
			if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "NOT_EVIDENCE", Subjects: []string{wire.EvidencePrefix + ".>"}, Storage: jetstream.MemoryStorage}); err != nil {
				t.Fatal(err)
			}
		}, n, "jetstream-api-400-10060"},
		{"no answer", func(t *testing.T, ctx context.Context, js jetstream.JetStream, nc *nats.Conn) {
			if err := js.DeleteStream(ctx, wire.StreamEvidence); err != nil {
				t.Fatal(err)
			}
			// A subscriber that never answers: no "no responders" either.
			sub, err := nc.Subscribe(wire.EvidencePrefix+".>", func(*nats.Msg) {})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sub.Unsubscribe() })
			nc.Flush()
		}, n, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveTestServer(t)
			nc, js := serveConnect(t, s.ClientURL())
			ensureStreams(t, js)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			m, _ := NewMetrics(nil)
			logs := &lockedBuffer{}
			svc, err := NewService(nc, testEngine(t), WithDurable(false), WithConcurrency(2), WithConsumerStatsEvery(0),
				WithMetrics(m), WithPublishTimeout(300*time.Millisecond), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if err := svc.Start(ctx); err != nil {
				t.Fatal(err)
			}
			// After Start, which creates the streams that are missing.
			if tc.breakIt != nil {
				tc.breakIt(t, ctx, js, nc)
			}
			requestSanitized(t, nc, n, 10*time.Second)
			if err := svc.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if got := svc.Processed(); got != n {
				t.Errorf("processed %d after Stop, want %d", got, n)
			}
			if got := counterValue(m.PublishFailures.WithLabelValues(wire.StreamEvidence)); got != float64(tc.failures) {
				t.Errorf("%v evidence publish failures, want %d\n%s", got, tc.failures, logs.String())
			}
			if tc.class != "" && !strings.Contains(logs.String(), "error="+tc.class) {
				t.Errorf("no failure of class %q logged:\n%s", tc.class, logs.String())
			}
			if tc.breakIt != nil {
				return
			}
			msgs := streamMsgs(t, js, wire.StreamEvidence)
			if len(msgs) != n {
				t.Fatalf("%d evidence records, want %d", len(msgs), n)
			}
			for _, r := range msgs {
				if r.Subject != wire.EvidencePrefix+".acme" || r.Header.Get(jetstream.ExpectedStreamHeader) != wire.StreamEvidence ||
					r.Header.Get(wire.HeaderOutcome) != "sanitized" || !bytes.Contains(r.Data, []byte(`"path":"inline"`)) {
					t.Errorf("record %s %v %s", r.Subject, r.Header, r.Data)
				}
			}
		})
	}
}

// evidenceConfig is the configuration of MCP_EVIDENCE that ensureStreams
// creates.
func evidenceConfig() jetstream.StreamConfig {
	for _, c := range fastStreams().StreamConfigs() {
		if c.Name == wire.StreamEvidence {
			return c
		}
	}
	panic("no evidence stream")
}

// lockedBuffer is a log sink for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// FuzzReadPubAck: readPubAck (its fast path included) agrees with the
// JetStream context's decoding of any answer: stored or not, duplicate or
// not, and an APIError with the same codes.
func FuzzReadPubAck(f *testing.F) {
	for _, s := range []string{
		`{"stream":"MCP_EVIDENCE","seq":12}`,
		`{"stream":"MCP_EVIDENCE","domain":"hub","seq":3}`,
		`{"stream":"MCP_EVIDENCE","seq":3,"duplicate":true}`,
		`{"stream":"MCP_EVIDENCE","seq":012}`,
		`{"stream":"A","stream":""}`,
		`{"stream":"A","seq":1}x`,
		`{"stream":"A","seq":1,"Error":{"code":1}}`,
		`{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}`,
		`{"stream":"","seq":1}`,
		`{"streAm":"000000000000","domAin":0}`,
		`{"type":0,"stream":"A","seq":1}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := readPubAck(data)
		// jetstream's pubAckResponse: apiResponse{Type, Error} and *PubAck.
		var pa struct {
			Type  string              `json:"type"`
			Error *jetstream.APIError `json:"error,omitempty"`
			*jetstream.PubAck
		}
		jerr := json.Unmarshal(data, &pa)
		failed := jerr != nil || pa.Error != nil || pa.PubAck == nil || pa.Stream == ""
		if (a.err != nil) != failed {
			t.Fatalf("%q: error %v, the JetStream context's reading fails: %v", data, a.err, failed)
		}
		if failed {
			var api *jetstream.APIError
			if pa.Error != nil && jerr == nil && (!errors.As(a.err, &api) || api.Code != pa.Error.Code || api.ErrorCode != pa.Error.ErrorCode) {
				t.Fatalf("%q: error %v, want %v", data, a.err, pa.Error)
			}
			return
		}
		if a.dup != pa.Duplicate {
			t.Fatalf("%q: duplicate %v, want %v", data, a.dup, pa.Duplicate)
		}
	})
}

// TestPublishDurableDuplicate: the durable path's publishes read the
// stream's acknowledgement of a duplicate (the same Nats-Msg-Id within
// the window), which decides whether a DLQ entry was stored already.
func TestPublishDurableDuplicate(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	svc := startService(t, nc, WithInline(false))
	mc := newContext(PathDurable, string(wire.KindToolResult), "acme", "files", nats.Header{})
	for i, want := range []bool{false, true, true} {
		m := nats.NewMsg(wire.EvidencePrefix + ".acme")
		m.Header.Set(wire.HeaderMsgID, "dup-test-1")
		m.Data = []byte(`{"n":1}`)
		dup, err := svc.publishDurableDup([]*nats.Msg{m}, []string{wire.StreamEvidence}, mc)
		if err != nil || dup != want {
			t.Fatalf("publish %d: duplicate %v (%v), want %v", i, dup, err, want)
		}
	}
	// The wrong stream is refused, not taken for stored.
	m := nats.NewMsg(wire.EvidencePrefix + ".acme")
	m.Data = []byte(`{"n":2}`)
	if _, err := svc.publishDurableDup([]*nats.Msg{m}, []string{wire.StreamClean}, mc); publishErrorClass(err) != "jetstream-api-400-10060" {
		t.Fatalf("publish to the wrong stream: %v (%s)", err, publishErrorClass(err))
	}
	if n, err := streamCount(js, wire.StreamEvidence); err != nil || n != 1 {
		t.Fatalf("%d records stored (%v), want 1", n, err)
	}
}
