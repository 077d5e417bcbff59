package worker

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestStopIdle: an idle worker on both paths with the default pull wait
// stops in under 2 s: Stop waits for the pull in progress (DefaultFetchWait)
// and starts no new one.
func TestStopIdle(t *testing.T) {
	s := serveTestServer(t)
	nc, _ := serveConnect(t, s.ClientURL())
	for i := 0; i < 3; i++ {
		svc := startService(t, nc, WithFetch(DefaultFetchBatch, DefaultFetchMaxBytes, DefaultFetchWait))
		// Stop at a different point of the pull each time.
		time.Sleep(time.Duration(i) * DefaultFetchWait / 3)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		err := svc.Stop(ctx)
		took := time.Since(start)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if took > 2*time.Second {
			t.Errorf("stop %d: an idle worker took %v to stop", i, took)
		}
	}
}

// TestStopBusy: Stop lets a message in flight finish when it does so within
// the drain time, and cuts it short at the drain time when it does not;
// either way its requester gets an answer.
func TestStopBusy(t *testing.T) {
	s := serveTestServer(t)
	nc, _ := serveConnect(t, s.ClientURL())
	for _, tc := range []struct {
		name     string
		hold     time.Duration // how long the message stays in flight
		drain    time.Duration
		outcome  string
		min, max time.Duration // how long Stop takes
	}{
		// startService's message timeout is 2 s.
		{"finishes", 500 * time.Millisecond, 20 * time.Second, "clean", 300 * time.Millisecond, 10 * time.Second},
		{"cut-at-drain-time", time.Hour, time.Second, "rejected", 900 * time.Millisecond, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			res := ResolverFunc(func(ctx context.Context, _ *pipeline.MessageInfo, _ nats.Header) error {
				started <- struct{}{}
				select {
				case <-time.After(tc.hold):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			svc := startService(t, nc, WithDurable(false), WithResolver(res))
			reply := make(chan *nats.Msg, 1)
			go func() {
				m := nats.NewMsg("mcp.sanitize.tool-result")
				m.Header.Set(wire.HeaderTenant, "acme")
				m.Data = []byte(`{"content":[{"type":"text","text":"hi"}]}`)
				r, err := nc.RequestMsg(m, 30*time.Second)
				if err != nil {
					t.Errorf("request: %v", err)
				}
				reply <- r
			}()
			select {
			case <-started:
			case <-time.After(20 * time.Second):
				t.Fatal("the message did not reach the worker")
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.drain)
			defer cancel()
			start := time.Now()
			svc.Stop(ctx)
			took := time.Since(start)
			if took < tc.min || took > tc.max {
				t.Errorf("Stop took %v, want %v..%v", took, tc.min, tc.max)
			}
			r := <-reply
			if r == nil {
				return
			}
			if got := r.Header.Get(wire.HeaderOutcome); got != tc.outcome {
				t.Errorf("outcome %q (code %q), want %q", got, r.Header.Get(wire.HeaderCode), tc.outcome)
			}
		})
	}
}
