package worker

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file serves mcp.tools.put.<server>: a tools/list result published
// there (bare {"tools":[…]} or the JSON-RPC response) is stored in the tool
// catalog (package toolcat, KV bucket mcp-tools) so that every worker
// validates arguments and structured results against the same schemas.
// Payloads are documented in docs/schema.md.

// Defaults of the tools service.
const (
	// DefaultToolsQueue is the queue group the tools service joins.
	DefaultToolsQueue = "mcp-tools"
	// DefaultToolsMaxRequestBytes caps one published tools/list result.
	DefaultToolsMaxRequestBytes = toolcat.DefaultMaxListBytes
	// DefaultCatalogRequestTimeout bounds the KV work of one request.
	DefaultCatalogRequestTimeout = 10 * time.Second
)

// ToolsService stores published tools/list results in the catalog.
type ToolsService struct {
	nc  *nats.Conn
	cat *toolcat.Catalog
	cfg catalogServiceConfig
	rr  replyService
}

// catalogServiceConfig is the configuration shared by the tools and args
// services.
type catalogServiceConfig struct {
	queue           string
	maxRequestBytes int
	concurrency     int
	timeout         time.Duration
	evidencePrefix  string
	onError         func(error)
}

// CatalogOption configures a ToolsService or an ArgsService; options
// validate at once.
type CatalogOption func(*catalogServiceConfig) error

var errCatalogOption = errors.New("worker: invalid tools/args service option")

// WithCatalogQueue sets the queue group (default DefaultToolsQueue for the
// tools service, DefaultArgsQueue for the args service).
func WithCatalogQueue(q string) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if q == "" || strings.ContainsAny(q, " \t\r\n") {
			return errCatalogOption
		}
		c.queue = q
		return nil
	}
}

// WithCatalogMaxRequestBytes caps one request message (defaults
// DefaultToolsMaxRequestBytes and DefaultArgsMaxRequestBytes).
func WithCatalogMaxRequestBytes(n int) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if n < 1024 {
			return errCatalogOption
		}
		c.maxRequestBytes = n
		return nil
	}
}

// WithCatalogConcurrency sets how many requests one service handles at
// once (default GOMAXPROCS).
func WithCatalogConcurrency(n int) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if n < 1 {
			return errCatalogOption
		}
		c.concurrency = n
		return nil
	}
}

// WithCatalogTimeout bounds the catalog (KV) work of one request (default
// DefaultCatalogRequestTimeout).
func WithCatalogTimeout(d time.Duration) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if d <= 0 {
			return errCatalogOption
		}
		c.timeout = d
		return nil
	}
}

// WithCatalogEvidencePrefix sets where the args service publishes evidence,
// <prefix>.<tenant> (default wire.EvidencePrefix); "" turns it off. The
// tools service publishes none.
func WithCatalogEvidencePrefix(p string) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if strings.HasSuffix(p, ".") || strings.ContainsAny(p, "*> ") {
			return errCatalogOption
		}
		c.evidencePrefix = p
		return nil
	}
}

// WithCatalogErrorHandler receives operational errors (reply or evidence
// publish failures, stores that failed for a publish without a reply). They
// carry codes, never payloads.
func WithCatalogErrorHandler(f func(error)) CatalogOption {
	return func(c *catalogServiceConfig) error {
		if f == nil {
			return errCatalogOption
		}
		c.onError = f
		return nil
	}
}

func newCatalogConfig(queue string, maxBytes int, opts []CatalogOption) (catalogServiceConfig, error) {
	cfg := catalogServiceConfig{
		queue:           queue,
		maxRequestBytes: maxBytes,
		concurrency:     runtime.GOMAXPROCS(0),
		timeout:         DefaultCatalogRequestTimeout,
		evidencePrefix:  wire.EvidencePrefix,
		onError:         func(error) {},
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// NewToolsService returns a service storing tools/list results published on
// mcp.tools.put.<server> into cat.
func NewToolsService(nc *nats.Conn, cat *toolcat.Catalog, opts ...CatalogOption) (*ToolsService, error) {
	if nc == nil || cat == nil {
		return nil, errCatalogOption
	}
	cfg, err := newCatalogConfig(DefaultToolsQueue, DefaultToolsMaxRequestBytes, opts)
	if err != nil {
		return nil, err
	}
	s := &ToolsService{nc: nc, cat: cat, cfg: cfg}
	s.rr = replyService{nc: nc, queue: cfg.queue, concurrency: cfg.concurrency, handle: s.handle}
	return s, nil
}

// Start subscribes to mcp.tools.put.* in the queue group.
func (s *ToolsService) Start(ctx context.Context) error {
	return s.rr.start(ctx, wire.ToolsPutPrefix+".*")
}

// Stop drains the subscription (requests already received are answered)
// and waits for them, at most 30 s.
func (s *ToolsService) Stop() error { return s.rr.stop() }

// toolsPutReply is the reply on mcp.tools.put.<server>.
type toolsPutReply struct {
	OK     bool             `json:"ok"`
	Server string           `json:"server,omitempty"`
	Tools  []string         `json:"tools,omitempty"`
	Error  *catalogErrorMsg `json:"error,omitempty"`
}

// catalogErrorMsg is the error of a reply: a code and its fixed message,
// with the tool index and schema code when they apply.
type catalogErrorMsg struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Index      *int   `json:"index,omitempty"`
	Field      string `json:"field,omitempty"`
	SchemaCode string `json:"schemaCode,omitempty"`
}

func catalogError(err error) *catalogErrorMsg {
	var e *toolcat.Error
	if !errors.As(err, &e) {
		e = &toolcat.Error{Code: toolcat.CodeUnavailable, Index: -1}
	}
	m := &catalogErrorMsg{Code: string(e.Code), Message: (&toolcat.Error{Code: e.Code, Index: -1}).Error(), Field: e.Field, SchemaCode: e.SchemaCode}
	if e.Index >= 0 {
		i := e.Index
		m.Index = &i
	}
	return m
}

func (s *ToolsService) handle(m *nats.Msg) {
	server := strings.TrimPrefix(m.Subject, wire.ToolsPutPrefix+".")
	var reply toolsPutReply
	if len(m.Data) > s.cfg.maxRequestBytes {
		reply.Error = catalogError(toolcat.ErrTooLarge)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout)
		res, err := s.cat.Put(ctx, server, m.Data)
		cancel()
		if err != nil {
			reply.Error = catalogError(err)
		} else {
			reply = toolsPutReply{OK: true, Server: res.Server, Tools: res.Tools}
		}
	}
	if m.Reply == "" {
		if reply.Error != nil {
			s.cfg.onError(errors.New("worker: tools put failed: " + reply.Error.Code))
		}
		return
	}
	b, err := json.Marshal(reply)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"code":"TOOLS_UNAVAILABLE","message":"toolcat: tool catalog unavailable"}}`)
	}
	hdr := nats.Header{}
	if reply.Error != nil {
		hdr.Set(wire.HeaderCode, reply.Error.Code)
	}
	if err := m.RespondMsg(&nats.Msg{Data: b, Header: hdr}); err != nil {
		s.cfg.onError(errors.New("worker: tools reply failed"))
	}
}

// replyService is a queue-group request/reply subscription with bounded
// concurrency and a draining stop, shared by the tools and args services.
type replyService struct {
	nc          *nats.Conn
	queue       string
	concurrency int
	handle      func(*nats.Msg)

	mu      sync.Mutex
	sub     *nats.Subscription
	sem     chan struct{}
	wg      sync.WaitGroup
	started bool
	// received counts requests taken off the subscription (tests, metrics).
	received atomic.Int64
}

func (r *replyService) start(ctx context.Context, subject string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return errors.New("worker: service already started")
	}
	r.sem = make(chan struct{}, r.concurrency)
	sub, err := r.nc.QueueSubscribe(subject, r.queue, r.dispatch)
	if err != nil {
		return err
	}
	fctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	if err := r.nc.FlushWithContext(fctx); err != nil {
		_ = sub.Unsubscribe()
		return err
	}
	r.sub, r.started = sub, true
	return nil
}

// dispatch runs on the subscription's goroutine and blocks while all slots
// are busy, which pushes back on the subscription.
func (r *replyService) dispatch(m *nats.Msg) {
	r.received.Add(1)
	r.sem <- struct{}{}
	r.wg.Add(1)
	go func() {
		defer func() { <-r.sem; r.wg.Done() }()
		r.handle(m)
	}()
}

func (r *replyService) stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopDrainTimeout)
	defer cancel()
	first := drainSubs(ctx, []*nats.Subscription{r.sub})
	r.sub = nil
	r.wg.Wait()
	r.started = false
	return first
}
