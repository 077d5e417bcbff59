package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testfleet"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// startFleet runs an embedded NATS server, with a worker when withWorker,
// and returns a client of it.
func startFleet(t testing.TB, withWorker bool, timeout time.Duration) *client.Client {
	t.Helper()
	return startFleetWith(t, sharedEngine(t), withWorker, timeout)
}

// startFleetWith is startFleet with the worker's engine and options of its
// own beside WithConsumerStatsEvery(0).
func startFleetWith(t testing.TB, eng *pipeline.Engine, withWorker bool, timeout time.Duration, opts ...worker.ServeOption) *client.Client {
	t.Helper()
	return testfleet.Start(t, eng, testfleet.Options{NoWorker: !withWorker, Serve: opts, Client: []client.Option{client.WithTimeout(timeout)}}).Client
}

// TestFleetPoisoned: the poisoned-server run with every message sanitized
// by a worker over NATS (the inline path, mcp.sanitize.<kind>).
func TestFleetPoisoned(t *testing.T) {
	c := startFleet(t, true, 20*time.Second)
	testPoisonedWith(t, "2025-11-25", proxy.Fleet{C: c})
}

// TestFleetNoWorkers: without workers every server message fails closed:
// a response becomes an error for its id, a notification is dropped, a
// server request is answered to the server.
func TestFleetNoWorkers(t *testing.T) {
	c := startFleet(t, false, 2*time.Second)
	var evs int
	p, err := proxy.New(proxy.Fleet{C: c}, proxy.Options{Evidence: func(*pipeline.Evidence) { evs++ }})
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSession()
	s.FromClient([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`))
	r := s.FromServer(context.Background(), []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"`+plantTag+`"}]}}`), nil)
	if !strings.Contains(string(r.Client), `"id":3,"error"`) || !strings.Contains(string(r.Client), "no-workers") || strings.Contains(string(r.Client), plantTagWord) {
		t.Errorf("response: %s", r.Client)
	}
	r = s.FromServer(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`), nil)
	if r.Client != nil || r.Server != nil {
		t.Errorf("notification: %+v", r)
	}
	r = s.FromServer(context.Background(), []byte(`{"jsonrpc":"2.0","id":"q","method":"roots/list"}`), nil)
	if !strings.Contains(string(r.Server), `"id":"q","error"`) || r.Client != nil {
		t.Errorf("server request: %+v", r)
	}
	if evs != 3 {
		t.Errorf("%d evidence records, want 3", evs)
	}
}

// TestFleetServesGeneric: a worker answers mcp.sanitize.generic with the
// message sanitized, its id kept.
func TestFleetServesGeneric(t *testing.T) {
	c := startFleet(t, true, 20*time.Second)
	res, err := c.Sanitize(context.Background(), wire.KindGeneric,
		[]byte(`{"jsonrpc":"2.0","id":"x-1","method":"vendor/custom","params":{"note":"ok `+plantTag+`"}}`),
		client.Metadata{Framing: wire.FramingJSONRPC})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != wire.OutcomeSanitized || strings.Contains(string(res.Body), plantTagWord) || !strings.Contains(string(res.Body), `"id":"x-1"`) {
		t.Fatalf("%s: %s", res.Outcome, res.Body)
	}
}
