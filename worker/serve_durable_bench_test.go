package worker

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// BenchmarkDurableOneRequester runs the durable path closed-loop with one
// requester, as natsbench -durable -c 1 does: publish one 4 KiB input to
// MCP_RAW, wait for its clean output, then the next. The worker's
// default concurrency and pull batch; the embedded server, the requester
// and the worker share the process, so an instruction count a message
// (callgrind) covers all three, with the stream emptied after every
// message.
func BenchmarkDurableOneRequester(b *testing.B) {
	nc, _, stop := benchServer(b)
	defer stop()
	body := toolResultOf(4 << 10)
	svc, err := NewService(nc, mustEngine(b), WithInline(false), WithConsumerStatsEvery(0))
	if err != nil {
		b.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		svc.Stop(ctx)
	}()
	rc, err := nats.Connect(nc.ConnectedUrl())
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	rjs, _ := jetstream.New(rc)
	outs := make(chan *nats.Msg, 16)
	sub, err := rc.ChanSubscribe(wire.CleanPrefix+".>", outs)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := rc.Flush(); err != nil {
		b.Fatal(err)
	}
	subj := wire.Subject(wire.RawPrefix, "acme", "files", "tool-result")
	one := func(i int) {
		id := "bench-" + strconv.Itoa(i)
		m := &nats.Msg{Subject: subj, Header: nats.Header{}, Data: body}
		m.Header.Set(wire.HeaderMsgID, id)
		m.Header.Set(wire.HeaderRequestID, id)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := rjs.PublishMsg(ctx, m); err != nil {
			b.Fatal(err)
		}
		for {
			select {
			case o := <-outs:
				if o.Header.Get(wire.HeaderRequestID) == id {
					return
				}
			case <-ctx.Done():
				b.Fatalf("no output for %s", id)
			}
		}
	}
	for i := range 20 { // warm-up: the pull loop, pools, stream blocks
		one(-1 - i)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		one(i)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
