package worker

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// This file is the NATS side of statekeys: the request/reply subjects
// mcp.state.seal and mcp.state.verify, served by every worker in one queue
// group, with evidence published on mcp.evidence.<tenant>. MCP servers in
// any language ask the fleet to seal and verify their requestState and
// never hold a key. Payloads are documented in docs/statekeys.md.

// Subjects and defaults of the state service.
const (
	SubjectStateSeal   = "mcp.state.seal"
	SubjectStateVerify = "mcp.state.verify"
	// DefaultStateQueue is the queue group the state service joins.
	DefaultStateQueue = "mcp-state"
	// DefaultStateEvidencePrefix is where evidence goes: <prefix>.<tenant>.
	DefaultStateEvidencePrefix = "mcp.evidence"
	// DefaultStateMaxRequestBytes caps one request message.
	DefaultStateMaxRequestBytes = 2 << 20
	// stateEvidenceNoTenant is the subject token used when a request carried
	// no valid tenant.
	stateEvidenceNoTenant = "_invalid"
)

// StateService serves mcp.state.seal and mcp.state.verify.
type StateService struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	ring *statekeys.Keyring
	cfg  stateConfig

	mu      sync.Mutex
	keeper  *statekeys.Keeper
	subs    []*nats.Subscription
	sem     chan struct{}
	wg      sync.WaitGroup
	cancel  context.CancelFunc
	started bool
	// received counts requests handed to dispatch (taken off the
	// subscription), for tests and future metrics.
	received atomic.Int64
}

type stateConfig struct {
	queue           string
	evidencePrefix  string
	maxRequestBytes int
	concurrency     int
	replay          ReplayBucketConfig
	store           statekeys.Store
	keeperOpts      []statekeys.Option
	keySource       *KVKeySource
	onError         func(error)
}

// StateOption configures a StateService; options validate at once.
type StateOption func(*stateConfig) error

var errStateOption = errors.New("worker: invalid state service option")

// WithStateQueue sets the queue group (default DefaultStateQueue).
func WithStateQueue(q string) StateOption {
	return func(c *stateConfig) error {
		if q == "" {
			return errStateOption
		}
		c.queue = q
		return nil
	}
}

// WithStateEvidencePrefix sets the evidence subject prefix (default
// DefaultStateEvidencePrefix).
func WithStateEvidencePrefix(p string) StateOption {
	return func(c *stateConfig) error {
		if p == "" || p[len(p)-1] == '.' {
			return errStateOption
		}
		c.evidencePrefix = p
		return nil
	}
}

// WithStateMaxRequestBytes caps one request message (default
// DefaultStateMaxRequestBytes).
func WithStateMaxRequestBytes(n int) StateOption {
	return func(c *stateConfig) error {
		if n < 1024 {
			return errStateOption
		}
		c.maxRequestBytes = n
		return nil
	}
}

// WithStateConcurrency sets how many requests one service handles at once
// (default GOMAXPROCS).
func WithStateConcurrency(n int) StateOption {
	return func(c *stateConfig) error {
		if n < 1 {
			return errStateOption
		}
		c.concurrency = n
		return nil
	}
}

// WithReplayBucket sets the single-use KV bucket configuration (default
// DefaultReplayBucketConfig).
func WithReplayBucket(b ReplayBucketConfig) StateOption {
	return func(c *stateConfig) error {
		if b.Bucket == "" || b.Replicas < 0 {
			return errStateOption
		}
		c.replay = b
		return nil
	}
}

// WithReplayStore replaces the JetStream KV single-use store (for a fleet
// that shares another store; the default creates the KV bucket).
func WithReplayStore(s statekeys.Store) StateOption {
	return func(c *stateConfig) error {
		if s == nil {
			return errStateOption
		}
		c.store = s
		return nil
	}
}

// WithKeeperOptions passes options to statekeys.New (TTL, limits, a Guard
// with policy keys and form policies; by default an elicit.Guard with
// none, which refuses form-mode elicitations and applies the URL guard).
func WithKeeperOptions(o ...statekeys.Option) StateOption {
	return func(c *stateConfig) error {
		c.keeperOpts = append(c.keeperOpts, o...)
		return nil
	}
}

// WithKVKeySource makes Start watch a key ring kept in a NATS KV bucket and
// swap it into the Keyring on every change, so rotation needs no restart.
func WithKVKeySource(src KVKeySource) StateOption {
	return func(c *stateConfig) error {
		if src.KV == nil {
			return errStateOption
		}
		c.keySource = &src
		return nil
	}
}

// WithStateErrorHandler receives operational errors (publish failures, key
// ring reload failures). They carry codes, never key material or payloads.
func WithStateErrorHandler(f func(error)) StateOption {
	return func(c *stateConfig) error {
		c.onError = f
		return nil
	}
}

// NewStateService returns a service sealing with ring's active key. Start
// creates the single-use KV bucket (unless WithReplayStore) and subscribes.
func NewStateService(nc *nats.Conn, js jetstream.JetStream, ring *statekeys.Keyring, opts ...StateOption) (*StateService, error) {
	if nc == nil || ring == nil || ring.Ring() == nil {
		return nil, errStateOption
	}
	cfg := stateConfig{
		queue:           DefaultStateQueue,
		evidencePrefix:  DefaultStateEvidencePrefix,
		maxRequestBytes: DefaultStateMaxRequestBytes,
		concurrency:     runtime.GOMAXPROCS(0),
		replay:          DefaultReplayBucketConfig(),
		onError:         func(error) {},
	}
	// The elicitation guard of package elicit comes first, so that a
	// WithKeeperOptions(statekeys.WithGuard(...)) replaces it.
	guard, err := elicit.New()
	if err != nil {
		return nil, err
	}
	cfg.keeperOpts = append(cfg.keeperOpts, statekeys.WithGuard(guard))
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.store == nil && js == nil {
		return nil, errStateOption
	}
	return &StateService{nc: nc, js: js, ring: ring, cfg: cfg}, nil
}

// Start prepares the store, starts the key watch if configured, and
// subscribes to both subjects in the queue group.
func (s *StateService) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("worker: state service already started")
	}
	store := s.cfg.store
	if store == nil {
		// The bucket must keep records for as long as a state can live, so
		// its MaxAge follows the keeper's lifetime options.
		probe, err := statekeys.New(s.ring, &statekeys.MemoryStore{}, s.cfg.keeperOpts...)
		if err != nil {
			return err
		}
		rc := s.cfg.replay
		if min := probe.MaxLifetime() + time.Minute; rc.MaxAge < min {
			rc.MaxAge = min
		}
		kv, err := EnsureReplayBucket(ctx, s.js, rc)
		if err != nil {
			return err
		}
		store = NewKVStore(kv)
	}
	k, err := statekeys.New(s.ring, store, s.cfg.keeperOpts...)
	if err != nil {
		return err
	}
	s.keeper = k
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if s.cfg.keySource != nil {
		if err := s.cfg.keySource.Watch(runCtx, s.ring, s.cfg.onError); err != nil {
			cancel()
			return err
		}
	}
	s.sem = make(chan struct{}, s.cfg.concurrency)
	for _, subj := range []string{SubjectStateSeal, SubjectStateVerify} {
		sub, err := s.nc.QueueSubscribe(subj, s.cfg.queue, s.dispatch)
		if err != nil {
			s.unsubscribe()
			cancel()
			return err
		}
		s.subs = append(s.subs, sub)
	}
	fctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var fcancel context.CancelFunc
		fctx, fcancel = context.WithTimeout(ctx, 10*time.Second)
		defer fcancel()
	}
	if err := s.nc.FlushWithContext(fctx); err != nil {
		s.unsubscribe()
		cancel()
		return err
	}
	s.started = true
	return nil
}

// stopDrainTimeout bounds how long Stop waits for received requests.
const stopDrainTimeout = 30 * time.Second

// Stop drains both subscriptions (no new requests reach this member of the
// queue group; requests it already received are still answered), waits for
// requests in flight, and stops the key watch. A drain that does not finish
// within 30 s is cut short by unsubscribing.
func (s *StateService) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopDrainTimeout)
	defer cancel()
	first := drainSubs(ctx, s.subs)
	s.subs = nil
	s.wg.Wait()
	s.cancel()
	s.started = false
	return first
}

func (s *StateService) unsubscribe() error {
	var first error
	for _, sub := range s.subs {
		if err := sub.Unsubscribe(); err != nil && first == nil && !errors.Is(err, nats.ErrConnectionClosed) {
			first = err
		}
	}
	s.subs = nil
	return first
}

// dispatch runs on the subscription's goroutine; it bounds concurrency by
// blocking until a slot is free, which pushes back on the subscription.
func (s *StateService) dispatch(m *nats.Msg) {
	s.received.Add(1)
	s.sem <- struct{}{}
	s.wg.Add(1)
	go func() {
		defer func() { <-s.sem; s.wg.Done() }()
		s.handle(m)
	}()
}

// Wire payloads (docs/statekeys.md).

type stateSealRequest struct {
	Identity      statekeys.Identity          `json:"identity"`
	Operation     statekeys.Operation         `json:"operation"`
	InputRequests json.RawMessage             `json:"inputRequests,omitempty"`
	FormPolicy    *statekeys.SignedFormPolicy `json:"formPolicy,omitempty"`
	TTLSeconds    int                         `json:"ttlSeconds,omitempty"`
	AppState      []byte                      `json:"appState,omitempty"` // base64
}

type stateSealReply struct {
	OK           bool            `json:"ok"`
	RequestState string          `json:"requestState,omitempty"`
	FlowID       string          `json:"flowId,omitempty"`
	KeyID        string          `json:"keyId,omitempty"`
	ExpiresAt    *time.Time      `json:"expiresAt,omitempty"`
	Error        *stateErrorWire `json:"error,omitempty"`
}

type stateVerifyRequest struct {
	RequestState   string                        `json:"requestState"`
	Identity       statekeys.Identity            `json:"identity"`
	Operation      statekeys.Operation           `json:"operation"`
	InputRequests  json.RawMessage               `json:"inputRequests,omitempty"`
	InputResponses json.RawMessage               `json:"inputResponses,omitempty"`
	URLCompletions map[string]statekeys.Identity `json:"urlCompletions,omitempty"`
}

type stateVerifyReply struct {
	OK             bool                               `json:"ok"`
	FlowID         string                             `json:"flowId,omitempty"`
	KeyID          string                             `json:"keyId,omitempty"`
	ExpiresAt      *time.Time                         `json:"expiresAt,omitempty"`
	InputResponses map[string]statekeys.InputResponse `json:"inputResponses,omitempty"`
	AppState       []byte                             `json:"appState,omitempty"`
	Error          *stateErrorWire                    `json:"error,omitempty"`
}

type stateErrorWire struct {
	Code    statekeys.Code `json:"code"`
	Message string         `json:"message"`
}

func stateErrorReply(err error) *stateErrorWire {
	c := statekeys.CodeOf(err)
	return &stateErrorWire{Code: c, Message: statekeys.PublicMessage(c)}
}

func (s *StateService) handle(m *nats.Msg) {
	if m.Reply == "" {
		return // nobody to answer; a request without a reply is ignored
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var reply any
	var ev statekeys.Evidence
	switch m.Subject {
	case SubjectStateSeal:
		reply, ev = s.seal(ctx, m.Data)
	case SubjectStateVerify:
		reply, ev = s.verify(ctx, m.Data)
	default:
		return
	}
	b, err := json.Marshal(reply)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"code":"STATE_UNAVAILABLE","message":"request state service unavailable"}}`)
	}
	// Evidence first: it is on record before the requester can act.
	s.publishEvidence(ev)
	if err := m.Respond(b); err != nil {
		s.cfg.onError(errors.New("worker: state reply failed"))
	}
}

func (s *StateService) seal(ctx context.Context, data []byte) (stateSealReply, statekeys.Evidence) {
	var req stateSealRequest
	if err := s.decodeRequest(data, &req); err != nil {
		return stateSealReply{Error: stateErrorReply(err)}, stateWireEvidence("seal", err)
	}
	sealed, ev, err := s.keeper.Seal(ctx, statekeys.SealRequest{
		Identity:      req.Identity,
		Operation:     req.Operation,
		InputRequests: req.InputRequests,
		FormPolicy:    req.FormPolicy,
		TTL:           time.Duration(req.TTLSeconds) * time.Second,
		AppState:      req.AppState,
	})
	if err != nil {
		return stateSealReply{Error: stateErrorReply(err)}, ev
	}
	exp := sealed.ExpiresAt
	return stateSealReply{OK: true, RequestState: sealed.RequestState, FlowID: sealed.FlowID, KeyID: sealed.KeyID, ExpiresAt: &exp}, ev
}

func (s *StateService) verify(ctx context.Context, data []byte) (stateVerifyReply, statekeys.Evidence) {
	var req stateVerifyRequest
	if err := s.decodeRequest(data, &req); err != nil {
		return stateVerifyReply{Error: stateErrorReply(err)}, stateWireEvidence("verify", err)
	}
	v, ev, err := s.keeper.Verify(ctx, statekeys.VerifyRequest{
		RequestState:   req.RequestState,
		Identity:       req.Identity,
		Operation:      req.Operation,
		InputRequests:  req.InputRequests,
		InputResponses: req.InputResponses,
		URLCompletions: req.URLCompletions,
	})
	if err != nil {
		return stateVerifyReply{Error: stateErrorReply(err)}, ev
	}
	exp := v.ExpiresAt
	return stateVerifyReply{OK: true, FlowID: v.FlowID, KeyID: v.KeyID, ExpiresAt: &exp, InputResponses: v.Responses, AppState: v.AppState}, ev
}

// stateWireEvidence records a request whose envelope was refused, with the
// reason DecodeEnvelope gave (request-malformed when it gave none).
func stateWireEvidence(action string, err error) statekeys.Evidence {
	reason := statekeys.ReasonOf(err)
	if reason == statekeys.ReasonNone {
		reason = statekeys.ReasonRequestMalformed
	}
	return statekeys.Evidence{
		Rule: statekeys.RuleMRTR, Action: action, Decision: statekeys.DecisionReject,
		Code: statekeys.CodeOf(err), Reason: reason, Time: time.Now().UTC(),
	}
}

// publishEvidence sends ev to <prefix>.<tenant>. Evidence holds no key
// material, token, subject, arguments or response content (see
// statekeys.Evidence).
//
// A cross-tenant retry is published to both tenants: the one that presented
// the state and the one it was sealed for.
func (s *StateService) publishEvidence(ev statekeys.Evidence) {
	tenant := ev.Tenant
	if tenant == "" {
		tenant = stateEvidenceNoTenant
	}
	b, err := json.Marshal(stateEvidenceRecord{Kind: "statekeys", Evidence: ev})
	if err != nil {
		return
	}
	tenants := []string{tenant}
	if ev.SealedTenant != "" && ev.SealedTenant != tenant {
		tenants = append(tenants, ev.SealedTenant)
	}
	for _, t := range tenants {
		if err := s.nc.Publish(s.cfg.evidencePrefix+"."+t, b); err != nil {
			s.cfg.onError(errors.New("worker: evidence publish failed"))
		}
	}
}

type stateEvidenceRecord struct {
	Kind string `json:"kind"`
	statekeys.Evidence
}

// decodeRequest decodes one seal or verify request envelope of at most
// the configured size with statekeys.DecodeEnvelope: strict I-JSON with
// exact member names, so one envelope has one reading. A refusal is a
// statekeys error with CodeInvalidRequest and the envelope's reason.
func (s *StateService) decodeRequest(data []byte, v any) error {
	if len(data) > s.cfg.maxRequestBytes {
		return &statekeys.Error{Code: statekeys.CodeInvalidRequest, Reason: statekeys.ReasonRequestMalformed}
	}
	return statekeys.DecodeEnvelope(data, v)
}
