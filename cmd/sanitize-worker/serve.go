package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker serve` runs worker.Service: the inline and durable
// sanitization paths on NATS (docs/nats.md), with an embedded server by
// default. This file is wiring only: configuration (serve_config.go),
// engines, connection, metrics endpoint, optional state service, logging
// and a draining shutdown.

const serveStartTimeout = 30 * time.Second

// runServe implements `sanitize-worker serve`. The process's ctx is
// cancelled on SIGTERM or SIGINT, which drains the worker.
func runServe(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
	return runServeEnv(ctx, args, os.LookupEnv, stderr, nil)
}

// serveReady, when not nil, receives the NATS and HTTP addresses once the
// worker is ready (tests).
type serveReady func(natsURL, httpAddr string)

func runServeEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stderr io.Writer, ready serveReady) int {
	f, err := parseServeFlags(args, lookup, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		var u errServeUsage
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "sanitize-worker serve: %s\nRun 'sanitize-worker serve -h' for the flags.\n", u.msg)
		}
		return exitUsage
	}
	return f.run(ctx, stderr, ready)
}

// serviceOptions turns the settings into worker options (validated by
// worker.ValidateOptions at parse time and by NewService at run time).
func (f *serveFlags) serviceOptions() ([]worker.ServeOption, error) {
	streams := worker.DefaultStreamsConfig()
	streams.Replicas = f.replicas
	if f.rawRetention == "limits" {
		streams.RawRetention = jetstream.LimitsPolicy
	}
	streams.RawMaxAge, streams.CleanMaxAge = f.rawMaxAge, f.cleanMaxAge
	streams.EvidenceMaxAge, streams.DLQMaxAge = f.evidenceMaxAge, f.dlqMaxAge
	streams.Duplicates = f.duplicates
	if f.evidencePersist == "async" {
		streams.EvidencePersist = jetstream.AsyncPersistMode
	}
	cons := worker.DefaultConsumerConfig()
	cons.MaxDeliver = f.maxDeliver
	cons.BackOff = f.backoffSteps
	cons.MaxAckPending = f.maxAckPending
	cons.Replicas = 0
	opts := []worker.ServeOption{
		worker.WithInline(f.inline),
		worker.WithDurable(f.durable),
		worker.WithManageStreams(f.manage),
		worker.WithStreams(streams),
		worker.WithConsumer(cons),
		worker.WithConcurrency(f.concurrency),
		worker.WithMessageTimeout(f.timeout),
		worker.WithPublishTimeout(f.publishTimeout),
		worker.WithFetch(f.fetchBatch, f.fetchMaxBytes, f.fetchWait),
		worker.WithStallAfter(f.stallAfter),
		worker.WithAckMode(worker.AckMode(f.ackMode)),
		worker.WithClaims(f.claims, f.claimTTL),
		worker.WithPayloadLimits(payload.Limits{MaxDecodedBytes: f.maxDecodedBytes}),
		worker.WithSinkOptions(payload.SinkOptions{CompressAbove: f.compressAbove, Encoding: f.compress, SpoolDir: f.spoolDir}),
	}
	return opts, worker.ValidateOptions(opts...)
}

// loadEngines compiles the default policy and the named ones.
func (f *serveFlags) loadEngines() (*pipeline.Engine, map[string]*pipeline.Engine, error) {
	load := func(path string) (*pipeline.Engine, error) {
		var p *pipeline.Policy
		if path != "" {
			var err error
			if p, err = pipeline.LoadPolicy(path); err != nil {
				return nil, err
			}
		}
		return pipeline.NewEngine(p)
	}
	def, err := load(f.policy)
	if err != nil {
		return nil, nil, err
	}
	named := map[string]*pipeline.Engine{}
	for name, path := range f.namedPolicies {
		e, err := load(path)
		if err != nil {
			return nil, nil, fmt.Errorf("policy %q: %w", name, err)
		}
		named[name] = e
	}
	return def, named, nil
}

// run starts everything, serves until ctx ends or the connection closes for
// good, and shuts down in order: the worker drains (no new messages; the
// ones in flight are published and acknowledged), the state service
// drains, the HTTP endpoint closes, the connection drains, the embedded
// server stops.
func (f *serveFlags) run(ctx context.Context, stderr io.Writer, ready serveReady) int {
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: f.level})).With("cmd", "serve")
	def, named, err := f.loadEngines()
	if err != nil {
		// Policy errors name the file and field, never key material.
		log.Error("cannot load the policy", "error", err.Error())
		return exitFailure
	}
	if def.RandomFingerprintKey() {
		log.Warn("no fingerprint key configured: fingerprints correlate within this process only (policy fingerprint.keyEnv or keyFile)")
	}
	mode := "embedded"
	if f.natsURL != "" {
		mode = "external"
	}
	log.Info("start", "nats", mode, "inline", f.inline, "durable", f.durable, "policy", def.Policy().Version, "namedPolicies", sortedKeys(named))

	url, stopServer, ok := natsServerURL(f.natsURL, natsembed.Options{
		Dir:        f.embeddedDir,
		Port:       f.embeddedPort,
		MaxPayload: int32(f.embeddedMaxPayload),
		Verbose:    f.embeddedLog,
	}, log)
	if !ok {
		return exitFailure
	}
	// The connection exists before the service: its lame-duck handler
	// reaches the service once there is one.
	var lameDuck atomic.Pointer[worker.Service]
	conn := f.conn
	conn.onLameDuck = func() {
		if svc := lameDuck.Load(); svc != nil {
			svc.LameDuck()
		}
	}
	nc, closed, err := dialNATS("mcp-sanitize serve", url, conn, log)
	if err != nil {
		log.Error("cannot connect to NATS", "natsUrl", redactNATSURLs(url), "error", err.Error())
		stopServer()
		return exitFailure
	}
	fail := func() int {
		nc.Close()
		stopServer()
		return exitFailure
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics, err := worker.NewMetrics(reg)
	if err != nil {
		log.Error("metrics", "error", err.Error())
		return fail()
	}
	opts, err := f.serviceOptions()
	if err != nil {
		log.Error("invalid settings", "error", err.Error())
		return fail()
	}
	opts = append(opts, worker.WithMetrics(metrics), worker.WithLogger(log.With("component", "worker")))
	for name, e := range named {
		opts = append(opts, worker.WithPolicy(name, e))
	}
	// The tool catalog gives tool results their outputSchema.
	var catalog *toolcat.Catalog
	if f.catalog {
		js, err := jetstream.New(nc)
		if err != nil {
			return fail()
		}
		catCtx, cancelCat := context.WithTimeout(ctx, serveStartTimeout)
		catalog, err = toolcat.Open(catCtx, js, toolcat.Options{Replicas: f.replicas})
		cancelCat()
		if err != nil {
			log.Error("tool catalog unavailable (JetStream KV bucket "+wire.BucketTools+")", "code", string(toolcat.CodeOf(err)))
			return fail()
		}
		defer catalog.Close()
		opts = append(opts, worker.WithResolver(worker.CatalogResolver{Catalog: catalog, RequireKnownTool: f.requireKnownTool}))
	}
	opts = append(opts, worker.WithFraming(pipeline.Framing(f.framing)))
	polCtx, cancelPol := context.WithTimeout(ctx, serveStartTimeout)
	polOpts, stopPolicy, err := f.policyOptions(polCtx, nc, reg, def, log)
	cancelPol()
	if err != nil {
		return fail()
	}
	defer stopPolicy()
	opts = append(opts, polOpts...)
	gopts, err := f.guards.options(nc, f.replicas)
	if err != nil {
		// No backend text in the log: the subject or the bucket is named.
		log.Error("guard hooks unavailable: check --authz-subject")
		return fail()
	}
	opts = append(opts, gopts...)
	svc, err := worker.NewService(nc, def, opts...)
	if err != nil {
		log.Error("invalid settings", "error", err.Error())
		return fail()
	}
	lameDuck.Store(svc)
	startCtx, cancelStart := context.WithTimeout(ctx, serveStartTimeout)
	defer cancelStart()
	if err := svc.Start(startCtx); err != nil {
		if ctx.Err() != nil {
			log.Info("stopped before ready")
			nc.Close()
			stopServer()
			return exitOK
		}
		log.Error("worker did not start (JetStream available? streams or consumer with other immutable settings?)", "error", err.Error())
		return fail()
	}

	// Further services on the same connection, stopped in reverse order.
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if catalog != nil {
		stop, err := startCatalogServices(startCtx, nc, catalog, log)
		if err != nil {
			svc.Stop(context.Background())
			return fail()
		}
		stops = append(stops, stop)
	}
	if f.stateKeys != "" {
		stop, err := f.startState(startCtx, nc, log)
		if err != nil {
			stopAll()
			svc.Stop(context.Background())
			return fail()
		}
		stops = append(stops, stop)
	}
	cancelStart()

	var httpSrv *http.Server
	httpAddr := ""
	if f.httpAddr != "" {
		ln, err := net.Listen("tcp", f.httpAddr)
		if err != nil {
			log.Error("cannot listen for /metrics", "httpAddr", f.httpAddr, "error", err.Error())
			stopAll()
			svc.Stop(context.Background())
			return fail()
		}
		httpAddr = ln.Addr().String()
		httpSrv = &http.Server{Handler: svc.Handler(reg), ReadHeaderTimeout: 5 * time.Second}
		go httpSrv.Serve(ln)
	}

	log.Info("ready", "natsUrl", redactNATSURLs(nc.ConnectedUrl()), "nats", mode, "httpAddr", httpAddr,
		"subject", worker.InlineSubject, "queue", wire.QueueInline, "stream", wire.StreamRaw, "consumer", wire.ConsumerDurable,
		"concurrency", f.concurrency, "catalog", catalog != nil, "stateService", f.stateKeys != "")
	if ready != nil {
		ready(nc.ConnectedUrl(), httpAddr)
	}

	code := exitOK
	select {
	case <-ctx.Done():
		log.Info("stopping", "cause", "signal")
	case <-closed:
		log.Error("NATS connection closed; stopping")
		code = exitFailure
	}
	drainCtx, cancelDrain := context.WithTimeout(context.Background(), f.drainTimeout)
	defer cancelDrain()
	if err := svc.Stop(drainCtx); err != nil {
		log.Warn("worker drain incomplete", "error", err.Error())
	}
	stopAll()
	if httpSrv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		httpSrv.Shutdown(sctx)
		cancel()
	}
	drainNATS(nc, closed, f.drainTimeout, log)
	stopServer()
	log.Info("stopped", "exitCode", code, "processed", svc.Processed())
	return code
}

// startState serves mcp.state.seal and mcp.state.verify with the key ring
// file, reloaded every statekeys.DefaultReloadInterval, and the state
// service's defaults (run `sanitize-worker state` for every option).
func (f *serveFlags) startState(ctx context.Context, nc *nats.Conn, log *slog.Logger) (func(), error) {
	src := statekeys.FileSource{Path: f.stateKeys}
	r, err := src.Load(ctx)
	if err != nil {
		log.Error("cannot load the state key ring (missing, mode not 0600/0640, or malformed)", "code", string(statekeys.CodeOf(err)), "reason", string(statekeys.ReasonOf(err)), "keysFile", f.stateKeys)
		return nil, err
	}
	keyring, err := statekeys.NewKeyring(r)
	if err != nil {
		log.Error("cannot use the state key ring", "code", string(statekeys.CodeOf(err)))
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	replay := worker.DefaultReplayBucketConfig()
	replay.Replicas = f.replicas
	svc, err := worker.NewStateService(nc, js, keyring, worker.WithReplayBucket(replay), worker.WithStateErrorHandler(func(err error) {
		log.Warn("state service error", "error", err.Error(), "code", string(statekeys.CodeOf(err)))
	}))
	if err != nil {
		log.Error("invalid state service options", "error", err.Error())
		return nil, err
	}
	if err := svc.Start(ctx); err != nil {
		log.Error("state service did not start", "error", err.Error())
		return nil, err
	}
	watchCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		keyring.Watch(watchCtx, src, statekeys.DefaultReloadInterval, func(err error) {
			log.Warn("state key ring reload failed; the previous ring stays", "code", string(statekeys.CodeOf(err)), "reason", string(statekeys.ReasonOf(err)))
		})
	}()
	log.Info("state service ready", "subjects", []string{wire.SubjectStateSeal, wire.SubjectStateVerify}, "activeKey", r.Active().ID)
	return func() {
		if err := svc.Stop(); err != nil {
			log.Warn("state service stop", "error", err.Error())
		}
		cancel()
		<-done
	}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	s := make([]string, 0, len(m))
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// startCatalogServices serves mcp.tools.put.<server> (tools/list results
// into the catalog) and mcp.args.validate (the argument gate) with their
// defaults; the returned func drains both.
func startCatalogServices(ctx context.Context, nc *nats.Conn, cat *toolcat.Catalog, log *slog.Logger) (func(), error) {
	onErr := worker.WithCatalogErrorHandler(func(err error) {
		log.Warn("catalog service error", "error", err.Error())
	})
	ts, err := worker.NewToolsService(nc, cat, onErr)
	if err != nil {
		log.Error("invalid tools service options", "error", err.Error())
		return nil, err
	}
	as, err := worker.NewArgsService(nc, cat, nil, onErr)
	if err != nil {
		log.Error("invalid args service options", "error", err.Error())
		return nil, err
	}
	if err := ts.Start(ctx); err != nil {
		log.Error("tools service did not start", "error", err.Error())
		return nil, err
	}
	if err := as.Start(ctx); err != nil {
		ts.Stop()
		log.Error("args service did not start", "error", err.Error())
		return nil, err
	}
	return func() {
		as.Stop()
		ts.Stop()
	}, nil
}
