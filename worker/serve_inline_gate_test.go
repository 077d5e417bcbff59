package worker

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func TestInlineGateSize(t *testing.T) {
	def := DefaultInlineRunningPerCPU * runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name                 string
		concurrency, running int
		want                 int // 0: no gate
	}{
		{"default", def + 1, 0, def},
		{"default at the concurrency", def, 0, 0},
		{"set", 16, 3, 3},
		{"set to the concurrency", 16, 16, 0},
		{"set above the concurrency", 4, 9, 0},
		{"one", 2, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serveConfig{concurrency: tc.concurrency, inlineRunning: tc.running}
			g := c.newInlineGate()
			switch {
			case tc.want == 0 && g != nil:
				t.Fatalf("gate of %d places, want none", cap(g))
			case tc.want != 0 && (g == nil || cap(g) != tc.want):
				t.Fatalf("gate %v, want %d places", g, tc.want)
			}
		})
	}
}

func TestInlineRunningOption(t *testing.T) {
	for _, n := range []int{0, -1, 4097} {
		var c serveConfig
		if err := WithInlineRunning(n)(&c); !errors.Is(err, ErrConfig) {
			t.Errorf("WithInlineRunning(%d): %v, want ErrConfig", n, err)
		}
	}
	var c serveConfig
	if err := WithInlineRunning(5)(&c); err != nil || c.inlineRunning != 5 {
		t.Errorf("WithInlineRunning(5): %v, %d", err, c.inlineRunning)
	}
}

// TestInlineComputeOnly: what may wait (a claimed body, a resolver, an
// output for the Object Store) is not counted by the gate.
func TestInlineComputeOnly(t *testing.T) {
	resolver := ResolverFunc(func(context.Context, *pipeline.MessageInfo, nats.Header) error { return nil })
	claim := nats.Header{}
	claim.Set(wire.HeaderClaim, "obj-1")
	for _, tc := range []struct {
		name     string
		resolver Resolver
		hdr      nats.Header
		size     int
		want     bool
	}{
		{"plain", nil, nats.Header{wire.HeaderTenant: {"acme"}}, 4096, true},
		{"no header", nil, nil, 10, true},
		{"half the max payload", nil, nil, 512 << 10, true},
		{"above half the max payload", nil, nil, 512<<10 + 1, false},
		{"claim", nil, claim, 100, false},
		{"resolver", resolver, nil, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Service{}
			s.cfg.resolver = tc.resolver
			s.maxPayload.Store(1 << 20)
			m := &nats.Msg{Subject: "mcp.sanitize.tool-result", Header: tc.hdr, Data: make([]byte, tc.size)}
			if got := s.computeOnly(m); got != tc.want {
				t.Fatalf("computeOnly %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInlineGateServes: with one place in the gate and more requests than
// slots, every request is answered, every evidence record stored, and the
// gate is empty once Stop returns.
func TestInlineGateServes(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	ensureStreams(t, js)
	svc, err := NewService(nc, testEngine(t), WithDurable(false), WithConcurrency(4), WithInlineRunning(1), WithConsumerStatsEvery(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if svc.inGate == nil || cap(svc.inGate) != 1 {
		t.Fatalf("gate %v, want one place", svc.inGate)
	}
	const n = 40
	requestSanitized(t, nc, n, 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := svc.Processed(); got != n {
		t.Errorf("processed %d, want %d", got, n)
	}
	if got, err := streamCount(js, wire.StreamEvidence); err != nil || got != n {
		t.Errorf("%d evidence records (%v), want %d", got, err, n)
	}
	if len(svc.inGate) != 0 {
		t.Errorf("%d places of the gate still taken after Stop", len(svc.inGate))
	}
}
