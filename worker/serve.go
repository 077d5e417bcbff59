package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file is the sanitization service: its options, start, readiness and
// draining stop. The inline path (request/reply on mcp.sanitize.<kind>) is
// in serve_inline.go, the durable path (pull consumer on MCP_RAW) in
// serve_durable.go, and what both do to one message in serve_message.go.
// Subjects, headers and settings are documented in docs/nats.md.

// Defaults of the service.
const (
	// DefaultMessageTimeout is the deadline of one pass (code TIMEOUT).
	DefaultMessageTimeout = 30 * time.Second
	// DefaultPublishTimeout bounds the wait for a JetStream publish
	// acknowledgement.
	DefaultPublishTimeout = 10 * time.Second
	// DefaultFetchBatch is the most messages one pull request asks for.
	DefaultFetchBatch = 64
	// DefaultFetchMaxBytes is the byte budget of fetched messages that
	// wait in the client: a pull asks for at most this divided by the
	// largest message the stream can hold (at least one), so at the
	// server's default max payload (1 MiB) a pull asks for 31. It is half
	// the server's default per-connection max_pending (64 MB), so one
	// pull of the largest messages stays clear of the slow-consumer cut.
	// On R3 streams pulls of 7 ran at half the rate of pulls of 31 or 64
	// (docs/nats.md). Pull requests carry no byte cap themselves
	// (serve_pull.go says why).
	DefaultFetchMaxBytes = 32 << 20
	// DefaultFetchWait is how long one pull request waits for messages;
	// stopping waits for at most one such request, so it also bounds how
	// long an idle worker takes to stop (under 2 s with this default). A
	// pull in progress is not cut short: a delivery the server sends to it
	// after the worker stopped listening would wait out its AckWait.
	DefaultFetchWait = 1 * time.Second
	// DefaultInlinePendingBytes caps what the inline subscription buffers
	// before the client drops messages (a slow consumer): the requesters
	// of dropped messages time out rather than the worker running out of
	// memory.
	DefaultInlinePendingBytes = 64 << 20
	// DefaultConcurrencyPerCPU times GOMAXPROCS is the default number of
	// messages in flight per path.
	DefaultConcurrencyPerCPU = 8
	// DefaultStopTimeout bounds Stop when its context has no deadline.
	DefaultStopTimeout = 30 * time.Second
)

// AckMode is how the durable path acknowledges an input.
type AckMode string

const (
	// AckPlain sends one acknowledgement and does not wait for the server
	// to confirm it (default). A lost acknowledgement leads to a
	// redelivery whose publishes the output streams deduplicate by
	// Nats-Msg-Id, so nothing is duplicated (docs/nats.md has the numbers).
	AckPlain AckMode = "ack"
	// AckDouble waits for the server to confirm the acknowledgement.
	AckDouble AckMode = "double"
)

// Resolver completes the context of a message before its pass. It is the
// place of the tool catalog (it sets the tool's output schema from the
// server and tool names) and of any other per-message lookup.
//
// An error that is a *pipeline.Error rejects the message with its code (an
// error result is published, as for invalid JSON). Any other error is a
// transient failure: inline requests get an INTERNAL error result, durable
// messages are handed back for redelivery and reach the DLQ after
// MaxDeliver attempts. Errors must not carry payload or backend text.
type Resolver interface {
	Resolve(ctx context.Context, info *pipeline.MessageInfo, hdr nats.Header) error
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, info *pipeline.MessageInfo, hdr nats.Header) error

// Resolve implements Resolver.
func (f ResolverFunc) Resolve(ctx context.Context, info *pipeline.MessageInfo, hdr nats.Header) error {
	return f(ctx, info, hdr)
}

type serveConfig struct {
	// guards are the hooks of the resource, prompt and completion guards
	// (guards.go).
	guards guardConfig

	policies map[string]*pipeline.Engine
	// notifyKeys bounds the servers of the notification limit
	// (WithNotificationKeys; 0: bounds.DefaultWindowKeys).
	notifyKeys     int
	inline         bool
	durable        bool
	manageStreams  bool
	streams        StreamsConfig
	consumer       ConsumerConfig
	concurrency    int
	timeout        time.Duration
	publishTimeout time.Duration
	fetchBatch     int
	fetchMaxBytes  int
	fetchWait      time.Duration
	inlinePending  int
	inlineRunning  int // 0: DefaultInlineRunningPerCPU × GOMAXPROCS
	ackMode        AckMode
	metrics        *Metrics
	log            *slog.Logger
	resolver       Resolver
	statsEvery     time.Duration
	stallAfter     time.Duration
	claims         bool
	claimTTL       time.Duration
	store          jetstream.ObjectStore
	payloadLimits  payload.Limits
	sink           payload.SinkOptions
	framing        pipeline.Framing  // of messages without Mcp-Framing (serve_framing.go)
	policySrc      PolicySource      // serve_policy.go
	tenantPins     map[string]string // tenant -> policy name or version
	chain          *evchain.Sealer   // evidence_chain.go
	archive        *ArchiveConfig    // archive.go (nil: off)
	chainEvery     time.Duration
	chainRecords   int             // evidence_chain.go: a checkpoint after this many records (0: by time only)
	chainKick      chan struct{}   // evidence_chain.go: a checkpoint is due by count
	archiveRT      *archiveRuntime // archive.go (nil: archive off)
}

// ServeOption configures a Service; options validate at once.
type ServeOption func(*serveConfig) error

func optErr(what string) error { return fmt.Errorf("%w: %s", ErrConfig, what) }

// WithPolicy adds an engine selected by messages whose Mcp-Policy header is
// name. Messages without the header use the engine given to NewService; a
// name that is not configured is a failure (INTERNAL, unknown-policy), not
// a silent fallback to another policy.
func WithPolicy(name string, e *pipeline.Engine) ServeOption {
	return func(c *serveConfig) error {
		if name == "" || e == nil || len(name) > 128 {
			return optErr("policy name must be 1..128 bytes with an engine")
		}
		if c.policies == nil {
			c.policies = map[string]*pipeline.Engine{}
		}
		c.policies[name] = e
		return nil
	}
}

// WithInline turns the inline path on or off (default on).
func WithInline(on bool) ServeOption { return func(c *serveConfig) error { c.inline = on; return nil } }

// WithDurable turns the durable path on or off (default on).
func WithDurable(on bool) ServeOption {
	return func(c *serveConfig) error { c.durable = on; return nil }
}

// WithManageStreams says whether Start creates or updates the streams and
// the consumer (default true). Off, they must exist (created by an
// operator with the configurations of StreamsConfig and ConsumerConfig).
func WithManageStreams(on bool) ServeOption {
	return func(c *serveConfig) error { c.manageStreams = on; return nil }
}

// WithStreams sets the stream configuration (default DefaultStreamsConfig).
func WithStreams(s StreamsConfig) ServeOption {
	return func(c *serveConfig) error {
		if err := s.Validate(); err != nil {
			return err
		}
		c.streams = s
		return nil
	}
}

// WithConsumer sets the durable consumer configuration (default
// DefaultConsumerConfig).
func WithConsumer(k ConsumerConfig) ServeOption {
	return func(c *serveConfig) error {
		if err := k.Validate(); err != nil {
			return err
		}
		k.BackOff = append([]time.Duration(nil), k.BackOff...)
		c.consumer = k
		return nil
	}
}

// WithConcurrency sets how many messages are sanitized at once, per path
// (default DefaultConcurrencyPerCPU × GOMAXPROCS: a pass is CPU-bound, but
// a durable message spends most of its time waiting for publish
// acknowledgements, so a few per core keep the cores busy; docs/nats.md).
func WithConcurrency(n int) ServeOption {
	return func(c *serveConfig) error {
		if n < 1 || n > 4096 {
			return optErr("concurrency must be 1..4096")
		}
		c.concurrency = n
		return nil
	}
}

// WithMessageTimeout sets the deadline of one pass (default
// DefaultMessageTimeout).
func WithMessageTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if d <= 0 {
			return optErr("message timeout must be positive")
		}
		c.timeout = d
		return nil
	}
}

// WithPublishTimeout bounds the wait for a publish acknowledgement
// (default DefaultPublishTimeout).
func WithPublishTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if d < 10*time.Millisecond {
			return optErr("publish timeout must be at least 10ms")
		}
		c.publishTimeout = d
		return nil
	}
}

// WithFetch sets the pull batch, the byte budget of fetched messages (a
// pull asks for at most maxBytes divided by the largest message, and at
// most batch) and how long a pull waits (defaults DefaultFetchBatch,
// DefaultFetchMaxBytes, DefaultFetchWait).
func WithFetch(batch, maxBytes int, wait time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if batch < 1 || batch > 4096 || maxBytes < 1024 || wait < 100*time.Millisecond {
			return optErr("fetch batch must be 1..4096, max bytes at least 1 KiB and wait at least 100ms")
		}
		c.fetchBatch, c.fetchMaxBytes, c.fetchWait = batch, maxBytes, wait
		return nil
	}
}

// WithInlinePendingBytes caps the inline subscription's buffer (default
// DefaultInlinePendingBytes).
func WithInlinePendingBytes(n int) ServeOption {
	return func(c *serveConfig) error {
		if n < 1<<20 {
			return optErr("inline pending bytes must be at least 1 MiB")
		}
		c.inlinePending = n
		return nil
	}
}

// WithInlineRunning sets how many inline messages that only compute (no
// claimed body, no resolver, an output that fits a message) are handed to
// slots at once (default DefaultInlineRunningPerCPU × GOMAXPROCS; at or
// above the concurrency: no limit but the concurrency). See
// serve_inline_gate.go.
func WithInlineRunning(n int) ServeOption {
	return func(c *serveConfig) error {
		if n < 1 || n > 4096 {
			return optErr("inline running must be 1..4096")
		}
		c.inlineRunning = n
		return nil
	}
}

// WithAckMode sets how durable inputs are acknowledged (default AckPlain).
func WithAckMode(m AckMode) ServeOption {
	return func(c *serveConfig) error {
		if m != AckPlain && m != AckDouble {
			return optErr("ack mode must be ack or double")
		}
		c.ackMode = m
		return nil
	}
}

// WithMetrics sets the collectors (default: NewMetrics(nil), counted but
// not registered).
func WithMetrics(m *Metrics) ServeOption {
	return func(c *serveConfig) error {
		if m == nil {
			return optErr("nil metrics")
		}
		c.metrics = m
		return nil
	}
}

// WithLogger sets the logger (default: discard). Logs carry codes, kinds,
// sequences and sanitized identifiers, never payload text.
func WithLogger(l *slog.Logger) ServeOption {
	return func(c *serveConfig) error {
		if l == nil {
			return optErr("nil logger")
		}
		c.log = l
		return nil
	}
}

// WithResolver sets the per-message context hook (see Resolver).
func WithResolver(r Resolver) ServeOption {
	return func(c *serveConfig) error {
		if r == nil {
			return optErr("nil resolver")
		}
		c.resolver = r
		return nil
	}
}

// WithConsumerStatsEvery sets how often the durable consumer's state is read
// into the consumer_* gauges and checked for a stall (default
// DefaultConsumerStatsEvery; 0 turns both off).
func WithConsumerStatsEvery(d time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if d < 0 {
			return optErr("negative stats interval")
		}
		c.statsEvery = d
		return nil
	}
}

// WithStallAfter sets how long the durable path may receive and finish
// nothing while the consumer has input (pending or unacknowledged
// messages) before the service reports itself stalled: Ready fails with
// ErrStalled and mcp_sanitize_stalled is 1 (default DefaultStallAfter;
// it must exceed the message timeout plus the publish timeout).
func WithStallAfter(d time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if d < time.Second {
			return optErr("stall time must be at least 1s")
		}
		c.stallAfter = d
		return nil
	}
}

// WithClaims says whether bodies sent by reference (Mcp-Claim) are read
// and outputs too large for one message are written to the Object Store
// (default on). Start creates or updates the bucket (payload.EnsureBucket,
// objects kept for ttl, 0: payload.DefaultClaimTTL) when it manages
// streams, and binds the existing bucket otherwise. Off, a claim is
// rejected (INTERNAL, no-store) and a too large output becomes an error
// result (BOUND_EXCEEDED, max-payload).
func WithClaims(on bool, ttl time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if ttl < 0 {
			return optErr("negative claim TTL")
		}
		c.claims, c.claimTTL = on, ttl
		return nil
	}
}

// WithObjectStore sets the claim store instead of the bucket Start would
// bind (a *payload.Store reads with a bounded read-ahead).
func WithObjectStore(o jetstream.ObjectStore) ServeOption {
	return func(c *serveConfig) error {
		if o == nil {
			return optErr("nil object store")
		}
		c.store = o
		return nil
	}
}

// WithPayloadLimits bounds decoding (default: payload's defaults, 64 MiB
// decoded, 8 MiB zstd window).
func WithPayloadLimits(l payload.Limits) ServeOption {
	return func(c *serveConfig) error {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c.payloadLimits = l
		return nil
	}
}

// WithSinkOptions sets how outputs are written: compression threshold and
// encoding, spool directory and memory (Store, Bucket and ObjectName are
// set per message; MaxPayload 0 means the connection's max payload).
func WithSinkOptions(o payload.SinkOptions) ServeOption {
	return func(c *serveConfig) error {
		if err := o.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c.sink = o
		return nil
	}
}

// Service sanitizes MCP messages on NATS: inline requests on
// mcp.sanitize.<kind> and durable messages of MCP_RAW. Start it once; Stop
// drains it.
type Service struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	def *pipeline.Engine
	cfg serveConfig
	// store holds claimed bodies and large outputs (nil: claims off).
	store jetstream.ObjectStore
	m     *Metrics
	log   *slog.Logger

	mu       sync.Mutex
	started  bool
	stopped  bool
	subs     []*nats.Subscription
	inWork   chan inlineReq // inline requests, to the slots (unbuffered)
	inGate   chan struct{}  // inline messages that only compute, handed to slots (serve_inline_gate.go)
	evSem    chan struct{}  // inline evidence acknowledgements outstanding
	pubs     *evAcks        // stream publishes and their acknowledgements (pubacks.go)
	inWG     sync.WaitGroup
	cons     jetstream.Consumer
	stopDur  chan struct{} // closed: the fetch loop stops
	durDone  chan struct{} // closed: the fetch loop and its workers ended
	hardStop context.CancelFunc
	hardCtx  context.Context
	stopHlth func()
	// stopChain stops the evidence checkpoints and publishes the last.
	stopChain func()
	chainRT   chainRuntime // evidence_chain.go
	// archiveBodies holds copies of claimed bodies archived (archive.go;
	// nil: off).
	archiveBodies jetstream.ObjectStore

	ready  atomic.Bool
	health health
	// maxPayload is the connection's max payload, read when the
	// connection (re)connects (connMaxPayload).
	maxPayload atomic.Int64
	acks       ackRing
	lameDuck   atomic.Bool // lame-duck mode of a server is being handled: no pull is sent
	// ldmMu guards ldmServers, the ids of the servers that announced
	// lame-duck mode during the handling (serve_reconnect.go).
	ldmMu      sync.Mutex
	ldmServers map[string]bool
	ldmNC      lameDuckConn // nil: nc (tests set a fake)
	pulling    atomic.Bool  // a pull request is outstanding
	inFlight   atomic.Int64 // durable messages received and not yet finished (queued or processed)
	// reackSince (UnixNano, 0: none) asks the pull loop to send the
	// acknowledgements made since then again.
	reackSince atomic.Int64
	processed  atomic.Int64
	// notify is the notification rate limit (notify_rate.go).
	notify notifyLimiter
}

// NewService returns a service that sanitizes with def (and the engines of
// WithPolicy). It creates its own JetStream context on nc so that
// asynchronous publishes time out after the publish timeout.
func NewService(nc *nats.Conn, def *pipeline.Engine, opts ...ServeOption) (*Service, error) {
	if nc == nil || def == nil {
		return nil, optErr("a connection and a default engine are required")
	}
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.metrics == nil {
		m, _ := NewMetrics(nil)
		cfg.metrics = m
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(cfg.publishTimeout), jetstream.WithPublishAsyncMaxPending(4*cfg.concurrency+64))
	if err != nil {
		return nil, err
	}
	return &Service{nc: nc, js: js, def: def, cfg: cfg, m: cfg.metrics, log: cfg.log, notify: notifyLimiter{maxKeys: cfg.notifyKeys}}, nil
}

// ValidateOptions reports the error NewService would return for opts,
// without a connection (for command-line checks).
func ValidateOptions(opts ...ServeOption) error {
	_, err := buildConfig(opts)
	return err
}

// buildConfig applies opts to the defaults and checks how they fit
// together. All defaults of the service live here.
func buildConfig(opts []ServeOption) (serveConfig, error) {
	cfg := serveConfig{
		inline:         true,
		durable:        true,
		manageStreams:  true,
		streams:        DefaultStreamsConfig(),
		consumer:       DefaultConsumerConfig(),
		concurrency:    DefaultConcurrencyPerCPU * runtime.GOMAXPROCS(0),
		timeout:        DefaultMessageTimeout,
		publishTimeout: DefaultPublishTimeout,
		fetchBatch:     DefaultFetchBatch,
		fetchMaxBytes:  DefaultFetchMaxBytes,
		fetchWait:      DefaultFetchWait,
		inlinePending:  DefaultInlinePendingBytes,
		ackMode:        AckPlain,
		statsEvery:     DefaultConsumerStatsEvery,
		stallAfter:     DefaultStallAfter,
		claims:         true,
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return cfg, err
		}
	}
	switch {
	case !cfg.inline && !cfg.durable:
		return cfg, optErr("at least one of the inline and durable paths must be on")
	case cfg.consumer.BackOff[0] <= cfg.timeout:
		return cfg, optErr("the first back-off step (the AckWait) must exceed the message timeout")
	case cfg.streams.Duplicates <= cfg.consumer.MaxGap()+cfg.timeout+cfg.publishTimeout+attemptPublishTime(cfg.publishTimeout, cfg.clusterRetryMax()):
		return cfg, optErr("the duplicates window must exceed the longest back-off step used plus the message timeout plus three times the publish timeout plus the cluster retry window (the publish timeout, or 20s if the back-off steps are longer) plus 3s (retries within an attempt)")
	case cfg.stallAfter <= cfg.timeout+cfg.publishTimeout:
		return cfg, optErr("the stall time must exceed the message timeout plus the publish timeout")
	case cfg.fetchBatch > cfg.consumer.MaxRequestBatch:
		return cfg, optErr("the fetch batch must not exceed the consumer's max request batch")
	}
	return cfg, nil
}

// The duplicates window must exceed the longest time between a publish of
// one attempt and the same publish of the next: the rest of the first
// attempt's publishes, the back-off step, and the next attempt's pass with
// its resolver retries (the message timeout plus the publish timeout).
//
// attemptPublishTime bounds how long the publishes of one attempt take:
// the first try (up to the publish timeout plus a second), retries for up
// to the cluster retry window after it (clusterRetryWindow), and the last
// retry's wait.
func attemptPublishTime(publishTimeout, retryWindow time.Duration) time.Duration {
	return 2*publishTimeout + retryWindow + 3*time.Second
}

// Start creates or updates the streams and the consumer (unless
// WithManageStreams(false)), subscribes the inline path and starts the
// durable fetch loop.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return errors.New("worker: sanitize service already started")
	}
	if s.cfg.manageStreams {
		if err := EnsureStreams(ctx, s.js, s.cfg.streams); err != nil {
			return err
		}
	} else if err := CheckStreams(ctx, s.js); err != nil {
		return err
	}
	if err := s.ensureArchive(ctx); err != nil {
		return err
	}
	if err := s.bindStore(ctx); err != nil {
		return err
	}
	s.hardCtx, s.hardStop = context.WithCancel(context.Background())
	pubs, err := s.startEvAcks()
	if err != nil {
		s.hardStop()
		return err
	}
	s.pubs = pubs
	if s.cfg.durable {
		var cons jetstream.Consumer
		var err error
		if s.cfg.manageStreams {
			cons, err = EnsureConsumer(ctx, s.js, s.cfg.consumer)
		} else {
			cons, err = s.js.Consumer(ctx, wire.StreamRaw, s.cfg.consumer.Durable)
		}
		if err != nil {
			s.hardStop()
			return err
		}
		s.cons = cons
	}
	if s.cfg.inline {
		if err := s.subscribeInline(ctx); err != nil {
			s.hardStop()
			return err
		}
	}
	if s.cfg.durable {
		if err := s.subscribeStranded(); err != nil {
			s.hardStop()
			return err
		}
	}
	s.stopHlth = s.startHealth()
	s.stopChain = s.startChain()
	if s.cfg.durable {
		if err := s.startDurable(); err != nil {
			s.stopChain()
			s.stopHlth()
			s.hardStop()
			return err
		}
	}
	s.started = true
	s.ready.Store(true)
	return nil
}

// bindStore sets the claim store: the one given, or the bucket of the
// payload limits (default wire.BucketPayloads), created or bound.
func (s *Service) bindStore(ctx context.Context) error {
	switch {
	case !s.cfg.claims:
		return nil
	case s.cfg.store != nil:
		s.store = s.cfg.store
		return nil
	}
	bucket := s.cfg.payloadLimits.Bucket
	var st *payload.Store
	var err error
	if s.cfg.manageStreams {
		st, err = payload.EnsureReplicatedBucket(ctx, s.js, bucket, s.cfg.claimTTL, s.cfg.streams.Replicas)
	} else {
		st, err = payload.NewStore(ctx, s.js, bucket)
	}
	if err != nil {
		return fmt.Errorf("worker: claim bucket: %w", err)
	}
	s.store = st
	s.cfg.sink.Bucket = st.Bucket()
	return nil
}

// releaseClaim deletes the object a consumed input claimed. A failure is
// logged: the bucket's TTL removes the object later.
func (s *Service) releaseClaim(hdr nats.Header) {
	if s.store == nil || !payload.IsClaim(hdr) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.publishTimeout)
	defer cancel()
	if err := payload.Release(ctx, s.store, hdr); err != nil {
		s.log.Warn("claimed object not released; its TTL will remove it", "error", publishErrorClass(err))
	}
}

// Stop drains the service: the inline subscription stops taking requests
// (those received are answered), the fetch loop stops pulling (at most one
// pull request of FetchWait, 5 s more if its status is lost, is waited
// for), every message in flight is
// finished (published, acknowledged), and pending publishes are flushed.
// When ctx ends first (DefaultStopTimeout if it has no deadline) the
// passes still running are cancelled: their durable inputs are handed back
// for redelivery and inline requesters get a TIMEOUT error result.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.stopped {
		s.stopped = true
		return nil
	}
	s.stopped = true
	s.ready.Store(false)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStopTimeout)
		defer cancel()
	}
	// Passes still running when ctx ends are cut short.
	stopWatch := context.AfterFunc(ctx, s.hardStop)
	defer stopWatch()
	if s.nc.IsClosed() {
		// Nothing can be published or acknowledged any more: what is in
		// flight comes back to another worker after its AckWait.
		s.hardStop()
	}

	first := drainSubs(ctx, s.subs)
	s.subs = nil
	if s.stopDur != nil {
		close(s.stopDur)
		select {
		case <-s.durDone:
		case <-ctx.Done():
			<-s.durDone // passes were cancelled; they end promptly
		}
	}
	s.inWG.Wait()
	if s.cfg.archiveRT != nil {
		s.cfg.archiveRT.pending.Wait() // archive publishes retried (archive.go)
	}
	if s.stopChain != nil {
		s.stopChain()
	}
	if s.stopHlth != nil {
		s.stopHlth()
	}
	if !s.nc.IsClosed() {
		fctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := s.nc.FlushWithContext(fctx); err != nil && first == nil && !errors.Is(err, nats.ErrConnectionClosed) {
			first = err
		}
		cancel()
	}
	s.hardStop()
	return first
}

// Handler serves /metrics (from g), /healthz (the process runs) and
// /readyz (Ready). Answers carry no detail beyond "ok" or "not ready".
func (s *Service) Handler(g prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	if g != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := s.Ready(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("not ready\n"))
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}

// Processed returns how many messages the service finished (published or
// handed back), for logs and tests.
func (s *Service) Processed() int64 { return s.processed.Load() }
