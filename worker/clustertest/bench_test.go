package clustertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testcluster"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// BenchmarkClusterDurable: the whole durable path (fetch, sanitize, publish
// clean output and evidence, wait for both acknowledgements, acknowledge)
// against the three-node cluster, with R1 and R3 streams, b.N tool results
// of 4 KiB stored in advance. perPull is how many messages one pull asks
// for (7 is the default at the server's default max payload). Figures are
// in docs/nats.md:
//
//	go test -run '^$' -bench BenchmarkClusterDurable -benchtime 3000x -count 2 ./worker/clustertest/
//
// benchPerPull are the pull sizes compared.
var benchPerPull = []int{7, 31, 64}

func BenchmarkClusterDurable(b *testing.B) {
	cl := testcluster.Start(b, testcluster.Options{})
	nc, err := nats.Connect(cl.URLs(cl.Nodes[0]))
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(1024))
	if err != nil {
		b.Fatal(err)
	}
	eng, err := pipeline.NewEngine(nil)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 4096/45+1)[:4096-64]
	body := []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	for _, replicas := range []int{1, 3} {
		for _, perPull := range benchPerPull {
			b.Run(fmt.Sprintf("replicas=%d/perPull=%d", replicas, perPull), func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				for _, s := range []string{wire.StreamRaw, wire.StreamClean, wire.StreamEvidence, wire.StreamDLQ} {
					_ = js.DeleteStream(ctx, s)
				}
				sc := worker.DefaultStreamsConfig()
				sc.Replicas = replicas
				// Right after a delete the cluster may still refuse the
				// name for a moment.
				for err := worker.EnsureStreams(ctx, js, sc); err != nil; err = worker.EnsureStreams(ctx, js, sc) {
					if ctx.Err() != nil {
						b.Fatal(err)
					}
					time.Sleep(200 * time.Millisecond)
				}
				subj := wire.Subject(wire.RawPrefix, "acme", "files", "tool-result")
				for i := 0; i < b.N; i++ {
					if _, err := js.PublishAsync(subj, body); err != nil {
						b.Fatal(err)
					}
				}
				select {
				case <-js.PublishAsyncComplete():
				case <-ctx.Done():
					b.Fatal("publishing timed out")
				}
				// perPull = maxBytes / (max payload + 1 KiB).
				maxBytes := perPull * (int(nc.MaxPayload()) + 1024)
				svc, err := worker.NewService(nc, eng, worker.WithInline(false), worker.WithClaims(false, 0), worker.WithStreams(sc),
					worker.WithFetch(perPull, maxBytes, time.Second), worker.WithConcurrency(32), worker.WithConsumerStatsEvery(0))
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				if err := svc.Start(ctx); err != nil {
					b.Fatal(err)
				}
				for svc.Processed() < int64(b.N) {
					if ctx.Err() != nil {
						b.Fatalf("%d of %d processed", svc.Processed(), b.N)
					}
					time.Sleep(time.Millisecond)
				}
				elapsed := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
				svc.Stop(ctx)
			})
		}
	}
}
