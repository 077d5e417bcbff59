package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestPublishWaitsOutElection: MCP_CLEAN without a leader (here: gone, so
// every publish to it finds no responders, as during the election of a
// lost leader) for longer than the publish timeout does not hand the input
// back for a back-off step: the attempt keeps sending the clean output
// again within the cluster retry window, and once the stream answers the
// input is finished in its first delivery, with nothing naked. The stream
// comes back only after more retries than a window of the publish timeout
// allows (before the window covered an election, the attempt gave up
// after at most two and handed the input back for 30 s).
func TestPublishWaitsOutElection(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ensureStreams(t, js)
	var cleanCfg jetstream.StreamConfig
	for _, c := range fastStreams().StreamConfigs() {
		if c.Name == wire.StreamClean {
			cleanCfg = c
		}
	}
	cc := fastConsumer(30 * time.Second)
	m, _ := NewMetrics(nil)
	svc := startService(t, nc, WithInline(false), WithConsumer(cc), WithMetrics(m),
		WithMessageTimeout(time.Second), WithPublishTimeout(500*time.Millisecond))
	if got := svc.cfg.clusterRetryWindow(1); got != electionWindow {
		t.Fatalf("cluster retry window %v, want %v", got, electionWindow)
	}
	if err := js.DeleteStream(ctx, wire.StreamClean); err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, 1)
	retries := m.PublishRetries.WithLabelValues(wire.StreamClean)
	// A window of the publish timeout (500 ms) ends after at most two
	// retries (each waits 0.5 s of no-responder retries of its own).
	const beyond = 4
	checkFor(t, 30*time.Second, func() error {
		if n := counterValue(retries); n < beyond {
			return fmt.Errorf("%v publish retries to MCP_CLEAN, want %d", n, beyond)
		}
		return nil
	})
	if _, err := js.CreateStream(ctx, cleanCfg); err != nil {
		t.Fatal(err)
	}
	waitCount(t, js, wire.StreamClean, 1, 20*time.Second)
	waitCount(t, js, wire.StreamRaw, 0, 10*time.Second)
	if n := counterValue(m.Naks.WithLabelValues(codeLabel(pipeline.CodeInternal))); n != 0 {
		t.Errorf("%v attempts handed back", n)
	}
	evs := streamMsgs(t, js, wire.StreamEvidence)
	if len(evs) != 1 {
		t.Fatalf("%d evidence records, want 1", len(evs))
	}
	var rec struct {
		Deliveries uint64 `json:"deliveries"`
	}
	if err := json.Unmarshal(evs[0].Data, &rec); err != nil || rec.Deliveries != 1 {
		t.Errorf("evidence deliveries %d (%v), want 1", rec.Deliveries, err)
	}
}

// TestClusterRetryWindow: the publish timeout, or the election window when
// that is longer, never beyond the delivery's back-off step.
func TestClusterRetryWindow(t *testing.T) {
	for _, tc := range []struct {
		publish time.Duration
		backoff []time.Duration
		want    []time.Duration // deliveries 1, 2, 3
	}{
		{10 * time.Second, DefaultBackOff, []time.Duration{electionWindow, electionWindow, electionWindow}},
		{30 * time.Second, DefaultBackOff, []time.Duration{30 * time.Second, 30 * time.Second, 30 * time.Second}},
		{5 * time.Second, []time.Duration{30 * time.Second, 30 * time.Second}, []time.Duration{electionWindow, electionWindow, electionWindow}},
		{500 * time.Millisecond, []time.Duration{3 * time.Second, 12 * time.Second}, []time.Duration{3 * time.Second, 12 * time.Second, 12 * time.Second}},
		{time.Second, []time.Duration{400 * time.Millisecond, 400 * time.Millisecond}, []time.Duration{time.Second, time.Second, time.Second}},
	} {
		c := serveConfig{publishTimeout: tc.publish, consumer: ConsumerConfig{BackOff: tc.backoff, MaxDeliver: len(tc.backoff) + 1}}
		for i, want := range tc.want {
			if got := c.clusterRetryWindow(uint64(i + 1)); got != want {
				t.Errorf("publish %v, back-off %v, delivery %d: %v, want %v", tc.publish, tc.backoff, i+1, got, want)
			}
		}
	}
}
