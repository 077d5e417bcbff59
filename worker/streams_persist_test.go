package worker

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestEvidencePersist: MCP_EVIDENCE's persist mode is the server's default
// unless StreamsConfig.EvidencePersist asks for async, which only file
// storage with one replica accepts; the other streams keep the default
// either way.
func TestEvidencePersist(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*StreamsConfig)
		ok   bool
	}{
		{"default", func(*StreamsConfig) {}, true},
		{"async", func(c *StreamsConfig) { c.EvidencePersist = jetstream.AsyncPersistMode }, true},
		{"async, memory", func(c *StreamsConfig) {
			c.EvidencePersist, c.Storage = jetstream.AsyncPersistMode, jetstream.MemoryStorage
		}, false},
		{"async, three replicas", func(c *StreamsConfig) { c.EvidencePersist, c.Replicas = jetstream.AsyncPersistMode, 3 }, false},
		{"unknown mode", func(c *StreamsConfig) { c.EvidencePersist = 7 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultStreamsConfig()
			tc.edit(&c)
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			for _, sc := range c.StreamConfigs() {
				want := jetstream.DefaultPersistMode
				if sc.Name == wire.StreamEvidence {
					want = c.EvidencePersist
				}
				if sc.PersistMode != want {
					t.Errorf("%s: persist mode %v, want %v", sc.Name, sc.PersistMode, want)
				}
			}
		})
	}
}

// TestEvidencePersistAsyncInline: with async persistence the server takes
// the configuration, and every inline message's evidence record is stored
// and acknowledged as with the default. The server does not change a
// stream's persist mode in place: EnsureStreams fails on a stream created
// with the other mode.
func TestEvidencePersistAsyncInline(t *testing.T) {
	const n = 6
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	sc := fastStreams()
	sc.EvidencePersist = jetstream.AsyncPersistMode
	m, _ := NewMetrics(nil)
	svc := startService(t, nc, WithDurable(false), WithConcurrency(2), WithStreams(sc), WithMetrics(m))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, wire.StreamEvidence)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.PersistMode != jetstream.AsyncPersistMode {
		t.Fatalf("MCP_EVIDENCE persist mode %v on the server, want async", info.Config.PersistMode)
	}
	requestSanitized(t, nc, n, 10*time.Second)
	if err := EnsureStreams(ctx, js, fastStreams()); err == nil {
		t.Error("EnsureStreams changed the persist mode of MCP_EVIDENCE in place")
	}
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := svc.Processed(); got != n {
		t.Errorf("processed %d after Stop, want %d", got, n)
	}
	if got := counterValue(m.PublishFailures.WithLabelValues(wire.StreamEvidence)); got != 0 {
		t.Errorf("%v evidence publish failures", got)
	}
	msgs := streamMsgs(t, js, wire.StreamEvidence)
	if len(msgs) != n {
		t.Fatalf("%d evidence records, want %d", len(msgs), n)
	}
	for _, r := range msgs {
		if r.Subject != wire.EvidencePrefix+".acme" || !bytes.Contains(r.Data, []byte(`"path":"inline"`)) {
			t.Errorf("record %s %s", r.Subject, r.Data)
		}
	}
}
