package worker

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// BenchmarkEvidencePublish publishes evidence-sized records to
// MCP_EVIDENCE and waits for each acknowledgement, eight outstanding at
// most (as the inline path's default budget on 2 cores allows), through
// the JetStream context's PublishMsgAsync and through the service's own
// settler (pubacks.go). Besides ns/op (wall, load-sensitive) it reports
// cpu-ns/op: the whole process's user + system time a publish (server
// included), which a shared machine inflates less.
//
//	go test ./worker -run '^$' -bench BenchmarkEvidencePublish -benchtime 20000x -count 3
func BenchmarkEvidencePublish(b *testing.B) {
	body := make([]byte, 700) // an evidence record's size
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	for _, mode := range []string{"jetstream", "pubacks"} {
		b.Run(mode, func(b *testing.B) {
			nc, js, stop := benchServer(b)
			defer stop()
			svc, err := NewService(nc, mustEngine(b), WithDurable(false), WithConsumerStatsEvery(0))
			if err != nil {
				b.Fatal(err)
			}
			if err := svc.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer svc.Stop(context.Background())
			const window = 8
			type wait func() error
			waits := make(chan wait, window)
			done := make(chan error, 1)
			go func() {
				var first error
				for w := range waits {
					if err := w(); err != nil && first == nil {
						first = err
					}
				}
				done <- first
			}()
			msg := func() *nats.Msg {
				h := newHeaderSet(5)
				h.set(wire.HeaderKind, "tool-result")
				h.set(wire.HeaderOutcome, "sanitized")
				return &nats.Msg{Subject: wire.EvidencePrefix + ".acme", Header: h.h, Data: body}
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			cpu0 := processCPU()
			b.ResetTimer()
			for range b.N {
				switch mode {
				case "jetstream":
					f, err := js.PublishMsgAsync(msg(), expectEvidence)
					if err != nil {
						b.Fatal(err)
					}
					waits <- func() error {
						select {
						case <-f.Ok():
							return nil
						case err := <-f.Err():
							return err
						}
					}
				case "pubacks":
					ch, _, err := svc.pubs.publishWait(msg(), wire.StreamEvidence)
					if err != nil {
						b.Fatal(err)
					}
					waits <- func() error { return (<-ch).err }
				}
			}
			close(waits)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the process's user + system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
