package worker

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// BenchmarkInlineVsEcho sends the same tool results through a plain NATS
// echo responder and through the worker's inline path, on the same
// embedded server, from 8 concurrent requesters, and reports messages/s and
// p50/p99 latency of both, so that the cost of sanitizing is a ratio
// measured in one run:
//
//	go test -run '^$' -bench 'BenchmarkInlineVsEcho' -benchtime 2000x ./worker/
func BenchmarkInlineVsEcho(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10, 1 << 20} {
		for _, mode := range []string{"echo", "worker"} {
			b.Run(fmt.Sprintf("size=%dKiB/%s", size>>10, mode), func(b *testing.B) {
				nc, _, stop := benchServer(b)
				defer stop()
				subject := wire.SanitizePrefix + ".tool-result"
				if mode == "echo" {
					sub, err := nc.QueueSubscribe(subject, wire.QueueInline, func(m *nats.Msg) { m.Respond(m.Data) })
					if err != nil {
						b.Fatal(err)
					}
					defer sub.Unsubscribe()
					nc.Flush()
				} else {
					svc, err := NewService(nc, mustEngine(b), WithDurable(false), WithClaims(false, 0), WithConsumerStatsEvery(0))
					if err != nil {
						b.Fatal(err)
					}
					if err := svc.Start(context.Background()); err != nil {
						b.Fatal(err)
					}
					defer svc.Stop(context.Background())
				}
				rc, err := nats.Connect(nc.ConnectedUrl())
				if err != nil {
					b.Fatal(err)
				}
				defer rc.Close()
				body := toolResultOf(size)
				const requesters = 8
				lat := make([]time.Duration, b.N)
				var next sync.Mutex
				i := 0
				b.SetBytes(int64(len(body)))
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for w := 0; w < requesters; w++ {
					wg.Go(func() {
						for {
							next.Lock()
							k := i
							i++
							next.Unlock()
							if k >= b.N {
								return
							}
							m := nats.NewMsg(subject)
							m.Header.Set(wire.HeaderTenant, "acme")
							m.Header.Set(wire.HeaderTool, "read_file")
							m.Data = body
							t0 := time.Now()
							if _, err := rc.RequestMsg(m, 30*time.Second); err != nil {
								b.Error(err)
								return
							}
							lat[k] = time.Since(t0)
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}
