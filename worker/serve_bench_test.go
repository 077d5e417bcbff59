package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Benchmarks of the durable path's settings, measured on the embedded
// server (docs/nats.md has the figures and how to reproduce them):
//
//	go test -run '^$' -bench 'BenchmarkAck|BenchmarkDurable' -benchtime 2000x ./worker/

// toolResultOf returns a tool result of about size bytes of ordinary text.
func toolResultOf(size int) []byte {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog; ", size/45+1)[:size-64]
	return []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
}

func benchServer(b *testing.B) (*nats.Conn, jetstream.JetStream, func()) {
	b.Helper()
	s, err := natsembed.Start(natsembed.Options{Dir: b.TempDir(), Port: natsembed.RandomPort, MaxPayload: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	js, _ := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := EnsureStreams(ctx, js, DefaultStreamsConfig()); err != nil {
		b.Fatal(err)
	}
	return nc, js, func() { nc.Close(); s.Shutdown(); s.WaitForShutdown() }
}

// fillRaw stores n copies of body in MCP_RAW.
func fillRaw(b *testing.B, js jetstream.JetStream, n int, body []byte) {
	b.Helper()
	subj := wire.Subject(wire.RawPrefix, "acme", "files", "tool-result")
	for i := 0; i < n; i++ {
		if _, err := js.PublishAsync(subj, body); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(60 * time.Second):
		b.Fatal("publishing timed out")
	}
}

// BenchmarkAck: consume 4 KiB messages from a work-queue stream in batches
// of 64 and acknowledge each one, with a plain ack or a double ack (one
// that waits for the server's confirmation). No sanitizing: only the cost
// of the acknowledgement mode.
func BenchmarkAck(b *testing.B) {
	body := toolResultOf(4 << 10)
	for _, mode := range []AckMode{AckPlain, AckDouble} {
		b.Run(string(mode), func(b *testing.B) {
			_, js, stop := benchServer(b)
			defer stop()
			fillRaw(b, js, b.N, body)
			ctx := context.Background()
			cons, err := EnsureConsumer(ctx, js, DefaultConsumerConfig())
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for got := 0; got < b.N; {
				batch, err := cons.Fetch(min(64, b.N-got), jetstream.FetchMaxWait(2*time.Second))
				if err != nil {
					b.Fatal(err)
				}
				for m := range batch.Messages() {
					if mode == AckDouble {
						err = m.DoubleAck(ctx)
					} else {
						err = m.Ack()
					}
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
			}
			// Plain acks are asynchronous: the timer runs until the server
			// has them all, so that both modes are measured to the same
			// point.
			for {
				info, err := cons.Info(ctx)
				if err == nil && info.NumAckPending == 0 {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			b.StopTimer()
		})
	}
}

// BenchmarkDurable runs the whole durable path (fetch, sanitize, publish
// clean and evidence with their acknowledgements, ack) over b.N messages
// stored in advance, for ack modes, pull batch sizes and message sizes.
func BenchmarkDurable(b *testing.B) {
	type tc struct {
		size  int
		batch int
		ack   AckMode
		conc  int
	}
	var cases []tc
	for _, a := range []AckMode{AckPlain, AckDouble} {
		cases = append(cases, tc{4 << 10, 64, a, 32})
	}
	for _, conc := range []int{4, 32, 128} {
		cases = append(cases, tc{4 << 10, 64, AckPlain, conc})
	}
	for _, batch := range []int{1, 16, 64, 256} {
		cases = append(cases, tc{4 << 10, batch, AckPlain, 32}, tc{64 << 10, batch, AckPlain, 32})
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("size=%dKiB/batch=%d/ack=%s/conc=%d", c.size>>10, c.batch, c.ack, c.conc), func(b *testing.B) {
			nc, js, stop := benchServer(b)
			defer stop()
			body := toolResultOf(c.size)
			fillRaw(b, js, b.N, body)
			svc, err := NewService(nc, mustEngine(b), WithInline(false), WithClaims(false, 0), WithAckMode(c.ack),
				WithFetch(c.batch, 16<<20, time.Second), WithConcurrency(c.conc), WithConsumerStatsEvery(0))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			start := time.Now()
			if err := svc.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			for svc.Processed() < int64(b.N) {
				time.Sleep(500 * time.Microsecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			svc.Stop(ctx)
			if n, _ := streamCount(js, wire.StreamClean); n != uint64(b.N) {
				b.Fatalf("%d clean outputs for %d inputs", n, b.N)
			}
		})
	}
}

func mustEngine(b *testing.B) *pipeline.Engine {
	b.Helper()
	e, err := pipeline.NewEngine(nil)
	if err != nil {
		b.Fatal(err)
	}
	return e
}
