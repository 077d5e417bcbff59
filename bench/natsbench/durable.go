package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// rawSubject and cleanSubject are the durable path's subjects of the
// benchmark's messages.
var (
	rawSubject   = wire.Subject(wire.RawPrefix, "acme", "bench", string(pipeline.KindToolResult))
	cleanSubject = wire.Subject(wire.CleanPrefix, "acme", "bench", string(pipeline.KindToolResult))
)

// durableBench measures the durable path closed-loop: each requester
// publishes one message to MCP_RAW with a unique Nats-Msg-Id and
// Mcp-Request-Id and waits for the output with that request id on MCP_CLEAN before it sends the next, so conc
// messages are in flight and a latency is publish to output.
type durableBench struct {
	nc      *nats.Conn // the outputs' subscription and the echo consumer
	js      jetstream.JetStream
	sub     *nats.Subscription
	mu      sync.Mutex
	waiting map[string]chan *nats.Msg
	seq     atomic.Int64
}

func newDurableBench(url string) (*durableBench, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	d := &durableBench{nc: nc, js: js, waiting: map[string]chan *nats.Msg{}}
	d.sub, err = nc.Subscribe(wire.CleanPrefix+".>", func(m *nats.Msg) {
		id := m.Header.Get(wire.HeaderRequestID)
		d.mu.Lock()
		ch := d.waiting[id]
		delete(d.waiting, id)
		d.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := d.sub.SetPendingLimits(-1, 256<<20); err != nil {
		nc.Close()
		return nil, err
	}
	return d, nc.Flush()
}

func (d *durableBench) close() { _ = d.sub.Unsubscribe(); d.nc.Close() }

// echoTarget pulls from the worker's own durable consumer and republishes
// every input unchanged to MCP_CLEAN (asynchronously, acking once the
// stream has it): the durable path's cost without sanitizing.
func (d *durableBench) echoTarget() target {
	var cc jetstream.ConsumeContext
	var wg sync.WaitGroup
	return target{
		name: "echo",
		start: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cons, err := d.js.Consumer(ctx, wire.StreamRaw, wire.ConsumerDurable)
			if err != nil {
				return fmt.Errorf("the worker's consumer: %w", err)
			}
			cc, err = cons.Consume(func(m jetstream.Msg) {
				out := &nats.Msg{Subject: strings.Replace(m.Subject(), wire.RawPrefix+".", wire.CleanPrefix+".", 1), Header: nats.Header{}, Data: m.Data()}
				out.Header.Set(wire.HeaderMsgID, m.Headers().Get(wire.HeaderMsgID))
				out.Header.Set(wire.HeaderRequestID, m.Headers().Get(wire.HeaderRequestID))
				f, err := d.js.PublishMsgAsync(out)
				if err != nil {
					_ = m.Nak()
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					select {
					case <-f.Ok():
						_ = m.Ack()
					case <-f.Err():
						_ = m.Nak()
					}
				}()
			}, jetstream.PullMaxMessages(256))
			return err
		},
		// Drain hands the messages already pulled to the callback before
		// it stops: stopped, they would wait for their AckWait, and the
		// next target's first requests with them.
		stop: func() { cc.Drain(); <-cc.Closed(); wg.Wait() },
	}
}

// load is the durable counterpart of load: conc closed-loop publishers.
func (d *durableBench) load(conns []*nats.Conn, conc int, dur time.Duration, msgs [][]byte) (stats, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		lats     []time.Duration
		firstErr error
		rejected atomic.Int64
		other    atomic.Int64
	)
	deadline := time.Now().Add(dur)
	start := time.Now()
	for g := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			js, err := jetstream.New(conns[g%len(conns)])
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			var local []time.Duration
			for i := g; time.Now().Before(deadline); i++ {
				id := fmt.Sprintf("natsbench-%d", d.seq.Add(1))
				ch := make(chan *nats.Msg, 1)
				d.mu.Lock()
				d.waiting[id] = ch
				d.mu.Unlock()
				hdr := nats.Header{}
				hdr.Set(wire.HeaderTool, "natsbench")
				hdr.Set(wire.HeaderMsgID, id)
				hdr.Set(wire.HeaderRequestID, id) // the worker copies it to the output
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, err := js.PublishMsg(ctx, &nats.Msg{Subject: rawSubject, Header: hdr, Data: msgs[i%len(msgs)]})
				var out *nats.Msg
				if err == nil {
					select {
					case out = <-ch:
					case <-ctx.Done():
						err = fmt.Errorf("no output within 30s for %s", id)
					}
				}
				cancel()
				if err != nil {
					d.mu.Lock()
					delete(d.waiting, id)
					d.mu.Unlock()
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				local = append(local, time.Since(t0))
				countOutcome(out.Header, &rejected, &other)
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return stats{}, firstErr
	}
	if len(lats) == 0 {
		return stats{}, fmt.Errorf("no message completed")
	}
	return stats{lats: lats, elapsed: elapsed, rejected: int(rejected.Load()), other: int(other.Load())}, nil
}
