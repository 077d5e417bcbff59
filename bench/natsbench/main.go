// Command natsbench measures what sanitizing costs on the wire: it starts
// an embedded NATS server, then sends the same realistic tool results
// (bench.Generate: file reads, log tails, API responses, code search, web
// pages) as request/reply on mcp.sanitize.tool-result, with N concurrent
// requesters, first to a plain echo responder and then to the worker's
// inline service (worker.Service, JetStream evidence included), and
// reports messages/s and p50/p99 latency for both and their ratio, in one
// run and one process.
//
//	go run ./bench/natsbench -sizes 4096,65536,1048576 -c 8 -d 6s -rounds 3
//	go run ./bench/natsbench -mix 400 -sizes 4096 -json out.jsonl   # the realistic mix first
//
// Both targets get byte-identical requests (headers Mcp-Tool, Mcp-Server,
// Mcp-Tenant; no compression on the request side), and every reply is
// decoded with payload.Open, as package client does. The worker runs with
// the text and string bounds raised to 64 MiB, so outputs keep the size
// of their inputs (with the default 12000-character text bound a 64 KiB
// result would be cut, and the benchmark would measure skipping);
// -default-bounds keeps the defaults. Server, responders and requesters
// share the machine's cores: the ratio, not the absolute figures, is the
// result. Beside CPU time a message, each payload set reports the process's
// read and write system calls and context switches a message, and (inline)
// the reads and writes of the responder's own connection a message: how
// many answers it writes together (connio.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// inlineRunning is the -inline-running flag.
var inlineRunning int

// subject is where both targets listen, one after the other.
var subject = wire.Subject(wire.SanitizePrefix, string(pipeline.KindToolResult))

// shapes are the tool results sent, round robin.
var shapes = []bench.Shape{bench.FileRead, bench.LogTail, bench.APIResponse, bench.CodeSearch, bench.WebPage}

func main() {
	sizesFlag := flag.String("sizes", "4096,65536,1048576", "tool result sizes in bytes, comma-separated")
	conc := flag.Int("c", 8, "concurrent requesters")
	dur := flag.Duration("d", 3*time.Second, "measured duration per size and target")
	warm := flag.Duration("warmup", 500*time.Millisecond, "unmeasured warm-up per size and target")
	docs := flag.Int("docs", 20, "distinct documents per size")
	secrets := flag.Int("secrets", 1, "fake credentials planted per document")
	defBounds := flag.Bool("default-bounds", false, "keep the worker's default bounds (text cut at 12000 characters)")
	maxPayload := flag.Int("max-payload", 8<<20, "server max_payload in bytes (1 MiB results plus headers need more than the 1 MiB default)")
	workerConc := flag.Int("worker-concurrency", 0, "worker in-flight messages (0: its default, 2 x GOMAXPROCS)")
	encoding := flag.String("encoding", "", "Content-Encoding of the worker's outputs above 256 KiB: zstd, s2 or identity (default: payload.DefaultEncoding)")
	rounds := flag.Int("rounds", 3, "turns per size: echo and worker alternate, each measured d/rounds per turn")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	profTarget := flag.String("profile-target", "", "with -cpuprofile: profile only the measured turns of this target (echo or worker), not the whole run")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file")
	mix := flag.Int("mix", 0, "first send `N` documents of the realistic mix (bench.Mix: 1-64 KiB, median about 8 KiB), reported as size \"mix\"")
	durable := flag.Bool("durable", false, "measure the durable path instead: publish to MCP_RAW (JetStream), wait for the result on MCP_CLEAN; the echo side is a plain JetStream consumer that republishes each input unchanged")
	workers := flag.Int("workers", 1, "worker services (each with its own connection), as a fleet of N on one machine")
	jsonOut := flag.String("json", "", "also append one JSON line per payload set to `FILE` (rates, p50/p99/p999 in ns)")
	flag.IntVar(&inlineRunning, "inline-running", 0, "worker inline messages that only compute handed to slots at once (0: its default, worker.DefaultInlineRunningPerCPU x GOMAXPROCS; the concurrency or more: no gate)")
	evPersist := flag.String("evidence-persist", "default", "MCP_EVIDENCE persist mode of the worker: default or async (worker.StreamsConfig.EvidencePersist)")
	flag.Parse()
	if *cpuprofile != "" && *profTarget != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "natsbench:", err)
			os.Exit(1)
		}
		defer f.Close()
		var started, stopped bool
		profileTurn = func(name string, on bool) {
			switch {
			case name != *profTarget || stopped:
			case on && !started:
				started = pprof.StartCPUProfile(f) == nil
			case !on && started:
				pprof.StopCPUProfile()
				stopped = true
			}
		}
	} else if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "natsbench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "natsbench:", err)
			os.Exit(1)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "natsbench:", err)
				return
			}
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}()
	}
	if err := run(*sizesFlag, *conc, *dur, *warm, *docs, *secrets, *defBounds, *maxPayload, *workerConc, *rounds, *encoding, *mix, *jsonOut, *durable, *workers, *evPersist); err != nil {
		fmt.Fprintln(os.Stderr, "natsbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// profileTurn starts (on) and stops the CPU profile around the measured
// load of one target's turn (-profile-target); a no-op without it. Only
// the first turn is profiled: a profile cannot be started twice into
// one file.
var profileTurn = func(name string, on bool) {}

// target is one responder: start subscribes it, stop ends it.
type target struct {
	name  string
	start func() error
	stop  func()
}

// payloadSet is the documents sent in one measurement.
type payloadSet struct {
	label string
	msgs  [][]byte
}

func run(sizesFlag string, conc int, dur, warm time.Duration, ndocs, secrets int, defBounds bool, maxPayload, workerConc, rounds int, encoding string, mix int, jsonOut string, durable bool, workers int, evPersist string) error {
	if conc < 1 || ndocs < 1 || rounds < 1 || mix < 0 || workers < 1 {
		return fmt.Errorf("-c, -docs, -rounds and -workers must be positive, -mix not negative")
	}
	var sets []payloadSet
	if mix > 0 {
		var msgs [][]byte
		for _, d := range bench.Mix(bench.MixOptions{Seed: 1, Records: mix}) {
			msgs = append(msgs, d.JSON)
		}
		sets = append(sets, payloadSet{"mix", msgs})
	}
	for _, f := range strings.Split(sizesFlag, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 256 {
			return fmt.Errorf("bad size %q", f)
		}
		msgs := make([][]byte, ndocs)
		for i := range msgs {
			msgs[i] = bench.Generate(bench.Options{Seed: uint64(i + 1), Shape: shapes[i%len(shapes)], Size: n, Secrets: secrets}).JSON
		}
		sets = append(sets, payloadSet{human(n), msgs})
	}
	var jsonFile *os.File
	if jsonOut != "" {
		f, err := os.OpenFile(jsonOut, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		jsonFile = f
	}
	dir, err := os.MkdirTemp("", "natsbench-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := natsembed.Start(natsembed.Options{Dir: dir, Port: natsembed.RandomPort, MaxPayload: int32(maxPayload),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	if err != nil {
		return err
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	url := srv.ClientURL()

	// Responders get their own connection, requesters share a few.
	rc, err := nats.Connect(url, nats.SetCustomDialer(newCountingDialer()))
	if err != nil {
		return err
	}
	defer rc.Close()
	var reqConns []*nats.Conn
	for range min(conc, 4) {
		nc, err := nats.Connect(url)
		if err != nil {
			return err
		}
		defer nc.Close()
		reqConns = append(reqConns, nc)
	}

	var wconns []*nats.Conn
	for range workers {
		nc, err := nats.Connect(url, nats.SetCustomDialer(newCountingDialer()))
		if err != nil {
			return err
		}
		defer nc.Close()
		wconns = append(wconns, nc)
	}
	var targets []target
	loadFn := load
	if durable {
		d, err := newDurableBench(url)
		if err != nil {
			return err
		}
		defer d.close()
		wk, err := workerTarget(wconns, defBounds, workerConc, encoding, true, evPersist)
		if err != nil {
			return err
		}
		// The worker creates the streams and its consumer once; the echo
		// side then pulls from the same consumer (MCP_RAW is a work queue).
		if err := wk.start(); err != nil {
			return err
		}
		wk.stop()
		targets = []target{d.echoTarget(), wk}
		loadFn = d.load
	} else {
		wk, err := workerTarget(wconns, defBounds, workerConc, encoding, false, evPersist)
		if err != nil {
			return err
		}
		targets = []target{echoTarget(rc), wk}
	}

	fmt.Printf("natsbench: GOMAXPROCS %d, %d requesters, %s per size and target in %d alternating rounds (each after %s warm-up), %d documents per size (%d secret each), server max_payload %d\n",
		runtime.GOMAXPROCS(0), conc, dur, rounds, warm, ndocs, secrets, maxPayload)
	enc := encoding
	if enc == "" {
		enc = payload.DefaultEncoding
	}
	fmt.Printf("worker: %d x %s, evidence to JetStream, bounds %s, outputs above %d KiB encoded %s\n\n", workers,
		map[bool]string{true: "durable service (MCP_RAW -> MCP_CLEAN), echo = plain JetStream republisher", false: "inline service, echo = plain responder"}[durable],
		map[bool]string{true: "default", false: "raised (text and strings 64 MiB)"}[defBounds], payload.DefaultCompressAbove>>10, enc)
	fmt.Println("| size | echo msg/s | echo p50 | echo p99 | worker msg/s | worker p50 | worker p99 | worker/echo msg/s | worker MB/s | CPU/msg echo | CPU/msg worker | process CPU use echo / worker |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, set := range sets {
		msgs := set.msgs
		var inBytes int
		for _, m := range msgs {
			inBytes += len(m)
		}
		avg := float64(inBytes) / float64(len(msgs))
		// The targets take turns, rounds times, so that a change in the
		// load of a shared machine falls on both.
		var res [2]stats
		for range rounds {
			for i, tg := range targets {
				if err := tg.start(); err != nil {
					return fmt.Errorf("%s: %w", tg.name, err)
				}
				if _, err := loadFn(reqConns, conc, warm, msgs); err != nil {
					tg.stop()
					return fmt.Errorf("%s warm-up: %w", tg.name, err)
				}
				cpu0, k0 := cpuTime(), kernelCounts()
				profileTurn(tg.name, true)
				s, err := loadFn(reqConns, conc, dur/time.Duration(rounds), msgs)
				profileTurn(tg.name, false)
				s.cpu = cpuTime() - cpu0
				s.kern = kernelCounts().sub(k0)
				tg.stop()
				if err != nil {
					return fmt.Errorf("%s: %w", tg.name, err)
				}
				res[i].add(s)
			}
		}
		e, w := res[0].done(), res[1].done()
		if jsonFile != nil {
			line, _ := json.Marshal(map[string]any{"size": set.label, "conc": conc, "durable": durable, "workers": workers, "meanBytes": avg, "echo": e.jsonStats(), "worker": w.jsonStats()})
			if _, err := jsonFile.Write(append(line, '\n')); err != nil {
				return err
			}
		}
		fmt.Printf("| %s | %.0f | %s | %s | %.0f | %s | %s | %.3f | %.1f | %s | %s | %.2f / %.2f cores |\n", set.label, e.rate, ms(e.p50), ms(e.p99),
			w.rate, ms(w.p50), ms(w.p99), w.rate/e.rate, w.rate*avg/1e6, us(e.cpuPerMsg), us(w.cpuPerMsg),
			e.cpu.Seconds()/e.elapsed.Seconds(), w.cpu.Seconds()/w.elapsed.Seconds())
		fmt.Printf("|   | a message, echo / worker: read syscalls %.2f / %.2f, write syscalls %.2f / %.2f, context switches %.2f / %.2f |\n",
			e.perMsg(e.kern.reads), w.perMsg(w.kern.reads), e.perMsg(e.kern.writes), w.perMsg(w.kern.writes), e.perMsg(e.kern.switches), w.perMsg(w.kern.switches))
		if !durable {
			fmt.Printf("|   | the responder's connection a message, echo / worker: reads %.2f / %.2f, writes %.2f / %.2f |\n",
				e.perMsg(e.kern.respReads), w.perMsg(w.kern.respReads), e.perMsg(e.kern.respWrites), w.perMsg(w.kern.respWrites))
		}
		if w.rejected > 0 || w.other > 0 {
			fmt.Printf("|   | worker: %d rejected, %d with another outcome than clean/sanitized |\n", w.rejected, w.other)
		}
	}
	return nil
}

func echoTarget(rc *nats.Conn) target {
	var sub *nats.Subscription
	return target{
		name: "echo",
		start: func() error {
			var err error
			sub, err = rc.QueueSubscribe(subject, wire.QueueInline, func(m *nats.Msg) {
				_ = m.RespondMsg(&nats.Msg{Data: m.Data})
			})
			if err != nil {
				return err
			}
			// As the worker does: no pending limit on messages, a byte limit.
			if err := sub.SetPendingLimits(-1, 256<<20); err != nil {
				return err
			}
			return rc.Flush()
		},
		stop: func() { _ = sub.Unsubscribe(); _ = rc.Flush() },
	}
}

// workerTarget runs one worker service per connection: the inline
// service, or with durable the durable consumer only.
func workerTarget(conns []*nats.Conn, defBounds bool, conc int, encoding string, durable bool, evPersist string) (target, error) {
	pol := pipeline.DefaultPolicy()
	if !defBounds {
		pol.Limits = map[string]int64{"text-chars": 64 << 20, "string-chars": 64 << 20, "output-bytes": 64 << 20}
	}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		return target{}, err
	}
	opts := []worker.ServeOption{worker.WithDurable(durable), worker.WithInline(!durable), worker.WithConsumerStatsEvery(0)}
	if conc > 0 {
		opts = append(opts, worker.WithConcurrency(conc))
	}
	if inlineRunning > 0 {
		opts = append(opts, worker.WithInlineRunning(inlineRunning))
	}
	if encoding != "" {
		opts = append(opts, worker.WithSinkOptions(payload.SinkOptions{Encoding: encoding}))
	}
	switch evPersist {
	case "default":
	case "async":
		sc := worker.DefaultStreamsConfig()
		sc.EvidencePersist = jetstream.AsyncPersistMode
		opts = append(opts, worker.WithStreams(sc))
	default:
		return target{}, fmt.Errorf("-evidence-persist: %q is neither default nor async", evPersist)
	}
	var svcs []*worker.Service
	return target{
		name: "worker",
		start: func() error {
			svcs = svcs[:0]
			for _, nc := range conns {
				svc, err := worker.NewService(nc, eng, opts...)
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err = svc.Start(ctx)
				cancel()
				if err != nil {
					return err
				}
				svcs = append(svcs, svc)
			}
			return nil
		},
		stop: func() {
			for _, svc := range svcs {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_ = svc.Stop(ctx)
				cancel()
			}
		},
	}, nil
}

type stats struct {
	rate            float64
	p50, p99, p999  time.Duration
	rejected, other int
	// lats, elapsed and cpu (user and system time of the whole process:
	// server, responder and requesters) accumulate rounds.
	lats         []time.Duration
	elapsed, cpu time.Duration
	cpuPerMsg    time.Duration
	kern         kernel
}

// kernel is what the kernel counts for this process: read and write
// system calls (/proc/self/io syscr and syscw: read, readv, pread; write,
// writev, pwrite) and context switches, voluntary and not (getrusage).
// Over a phase, a message's share says how much of its CPU goes to
// crossing into the kernel and to goroutines handing work to each other
// across threads.
// respReads and respWrites are those of the responders' connections
// alone (respIO).
type kernel struct{ reads, writes, switches, respReads, respWrites int64 }

func (k kernel) sub(o kernel) kernel {
	return kernel{k.reads - o.reads, k.writes - o.writes, k.switches - o.switches, k.respReads - o.respReads, k.respWrites - o.respWrites}
}

func (k kernel) add(o kernel) kernel {
	return kernel{k.reads + o.reads, k.writes + o.writes, k.switches + o.switches, k.respReads + o.respReads, k.respWrites + o.respWrites}
}

// kernelCounts reads the counts so far (zero where unavailable).
func kernelCounts() kernel {
	k := kernel{respReads: respIO.reads.Load(), respWrites: respIO.writes.Load()}
	if b, err := os.ReadFile("/proc/self/io"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			name, v, ok := strings.Cut(l, ": ")
			if !ok {
				continue
			}
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch name {
			case "syscr":
				k.reads = n
			case "syscw":
				k.writes = n
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		k.switches = ru.Nvcsw + ru.Nivcsw
	}
	return k
}

// perMsg is n over the phase's messages.
func (s stats) perMsg(n int64) float64 { return float64(n) / float64(len(s.lats)) }

// cpuTime returns the user and system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// add merges the latencies and time of one round.
func (s *stats) add(r stats) {
	s.lats = append(s.lats, r.lats...)
	s.elapsed += r.elapsed
	s.cpu += r.cpu
	s.kern = s.kern.add(r.kern)
	s.rejected += r.rejected
	s.other += r.other
}

// done computes the rate and percentiles of the merged rounds.
func (s stats) done() stats {
	slices.Sort(s.lats)
	s.rate = float64(len(s.lats)) / s.elapsed.Seconds()
	s.p50 = s.lats[len(s.lats)/2]
	s.p99 = s.lats[min(len(s.lats)-1, len(s.lats)*99/100)]
	s.p999 = s.lats[min(len(s.lats)-1, len(s.lats)*999/1000)]
	s.cpuPerMsg = s.cpu / time.Duration(len(s.lats))
	return s
}

// jsonStats is what -json writes of one side.
func (s stats) jsonStats() map[string]any {
	return map[string]any{"msgsPerSec": s.rate, "count": len(s.lats), "p50ns": s.p50.Nanoseconds(), "p99ns": s.p99.Nanoseconds(),
		"p999ns": s.p999.Nanoseconds(), "cpuPerMsgNs": s.cpuPerMsg.Nanoseconds(), "rejected": s.rejected, "other": s.other,
		"readsPerMsg": s.perMsg(s.kern.reads), "writesPerMsg": s.perMsg(s.kern.writes), "switchesPerMsg": s.perMsg(s.kern.switches),
		"responderReadsPerMsg": s.perMsg(s.kern.respReads), "responderWritesPerMsg": s.perMsg(s.kern.respWrites)}
}

// load runs conc requesters for d and returns throughput and latency.
func load(conns []*nats.Conn, conc int, d time.Duration, msgs [][]byte) (stats, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		lats     []time.Duration
		firstErr error
		rejected atomic.Int64
		other    atomic.Int64
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	for g := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc := conns[g%len(conns)]
			buf := make([]byte, 64<<10)
			var local []time.Duration
			for i := g; time.Now().Before(deadline); i++ {
				hdr := nats.Header{}
				hdr.Set(wire.HeaderTool, "natsbench")
				hdr.Set(wire.HeaderServer, "bench")
				hdr.Set(wire.HeaderTenant, "acme")
				req := &nats.Msg{Subject: subject, Header: hdr, Data: msgs[i%len(msgs)]}
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				reply, err := nc.RequestMsgWithContext(ctx, req)
				if err == nil {
					var r io.ReadCloser
					if r, err = payload.Open(ctx, reply.Header, reply.Data, nil, payload.Limits{}); err == nil {
						_, err = io.CopyBuffer(io.Discard, r, buf)
						r.Close()
					}
				}
				cancel()
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				local = append(local, time.Since(t0))
				countOutcome(reply.Header, &rejected, &other)
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
		return stats{}, fmt.Errorf("no request completed")
	}
	return stats{lats: lats, elapsed: elapsed, rejected: int(rejected.Load()), other: int(other.Load())}, nil
}

// countOutcome counts a reply that was rejected or had another outcome
// than clean, sanitized or truncated (an echo's reply has none).
func countOutcome(h nats.Header, rejected, other *atomic.Int64) {
	switch pipeline.Outcome(h.Get(wire.HeaderOutcome)) {
	case "", pipeline.OutcomeClean, pipeline.OutcomeSanitized, pipeline.OutcomeTruncated:
	case pipeline.OutcomeRejected:
		rejected.Add(1)
	default:
		other.Add(1)
	}
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/1e3) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func human(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
