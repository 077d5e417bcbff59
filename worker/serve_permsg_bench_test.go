package worker

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// What an inline slot runs for one message, without the NATS round trips:
// the message's context, the pass with the worker's options (payload.Open,
// the sink, the engine), the evidence record and its headers, the reply's
// headers and the release. The documents are bench/natsbench's: its five
// shapes at 4 KiB, and the harness's mix up to 8 KiB. It measures the
// worker's per-message cost beside the engine's (docs/benchmarks.md,
// "Issue 35, permsg").

// slotDocs returns the documents of one configuration: "4KiB", "mix" or
// "tiny" (a one-line tool result: the fixed cost of a message).
func slotDocs(set string) [][]byte {
	var docs [][]byte
	switch set {
	case "tiny":
		docs = append(docs, []byte(`{"content":[{"type":"text","text":"3 files changed, 12 insertions(+), 4 deletions(-)"}]}`))
	case "4KiB":
		shapes := []bench.Shape{bench.FileRead, bench.LogTail, bench.APIResponse, bench.CodeSearch, bench.WebPage}
		for i := range 10 {
			docs = append(docs, bench.Generate(bench.Options{Seed: uint64(i + 1), Shape: shapes[i%len(shapes)], Size: 4096, Secrets: 1}).JSON)
		}
	default:
		for _, d := range bench.Mix(bench.MixOptions{Seed: 1, Records: 200}) {
			if len(d.JSON) <= 8<<10 {
				docs = append(docs, d.JSON)
			}
		}
	}
	return docs
}

// slotService is a Service with the inline defaults and no connection:
// enough for process and the evidence and reply headers.
func slotService(tb testing.TB) *Service {
	tb.Helper()
	eng, err := pipeline.NewEngine(pipeline.DefaultPolicy())
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := buildConfig([]ServeOption{WithDurable(false), WithClaims(false, 0), WithConsumerStatsEvery(0)})
	if err != nil {
		tb.Fatal(err)
	}
	m, _ := NewMetrics(nil)
	cfg.metrics = m
	cfg.log = slog.New(slog.DiscardHandler)
	s := &Service{def: eng, cfg: cfg, m: m, log: cfg.log, notify: notifyLimiter{maxKeys: cfg.notifyKeys}}
	s.maxPayload.Store(8 << 20)
	return s
}

// slotLoop runs n messages, docs round robin, as an inline slot does
// (the reply built, not published).
func slotLoop(tb testing.TB, s *Service, docs [][]byte, n int) {
	ctx := context.Background()
	for i := range n {
		d := docs[i%len(docs)]
		hdr := nats.Header{}
		hdr.Set(wire.HeaderTenant, "acme")
		hdr.Set(wire.HeaderTool, "read_file")
		mc := newContext(PathInline, "tool-result", hdr.Get(wire.HeaderTenant), hdr.Get(wire.HeaderServer), hdr)
		res := s.process(ctx, mc, hdr, d, "", true)
		em := s.sealedEvidenceMsg(mc, res.ev, false)
		reply := newReply("_INBOX.probe", mc, res)
		if em == nil || reply.msg.Header == nil || res.ev.Outcome == pipeline.OutcomeRejected {
			tb.Fatal("no evidence, no header or a rejected message")
		}
		reply.release()
		res.release()
	}
}

// BenchmarkInlineSlot runs slotLoop on each document set:
//
//	go test -run '^$' -bench 'BenchmarkInlineSlot' -benchmem ./worker/
func BenchmarkInlineSlot(b *testing.B) {
	for _, set := range []string{"tiny", "4KiB", "mix"} {
		b.Run(set, func(b *testing.B) {
			docs := slotDocs(set)
			s := slotService(b)
			var total int64
			for _, d := range docs {
				total += int64(len(d))
			}
			b.SetBytes(total / int64(len(docs)))
			b.ReportAllocs()
			b.ResetTimer()
			slotLoop(b, s, docs, b.N)
		})
	}
}

// TestSlotProbe is for callgrind only (skipped unless SLOT_PROBE_N is
// set): it runs slotLoop once outside the count and SLOT_PROBE_N times
// inside slotProbeLoop, on SLOT_PROBE_SET (tiny, 4KiB or mix), so that the
// difference of two counts is the instructions of that many messages:
//
//	go test -c -o /tmp/w.test ./worker/
//	SLOT_PROBE_N=21 GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//	    --toggle-collect='*slotProbeLoop' /tmp/w.test -test.run TestSlotProbe
func TestSlotProbe(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("SLOT_PROBE_N"))
	if err != nil {
		t.Skip("SLOT_PROBE_N not set: a callgrind probe, not a test")
	}
	// The count follows the OS thread: keep the loop on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	docs := slotDocs(os.Getenv("SLOT_PROBE_SET"))
	s := slotService(t)
	slotLoop(t, s, docs, len(docs))
	slotProbeLoop(t, s, docs, n)
}

//go:noinline
func slotProbeLoop(tb testing.TB, s *Service, docs [][]byte, n int) { slotLoop(tb, s, docs, n) }
