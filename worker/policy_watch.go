package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
)

// PolicyEngine is a verified policy compiled into an engine.
type PolicyEngine struct {
	Engine  *pipeline.Engine
	Version string
	Digest  string
}

// DefaultMaxPinnedPolicies is how many pinned versions (Mcp-Policy or a
// tenant's pin naming a version other than the active and shadow ones) a
// watcher keeps compiled.
const DefaultMaxPinnedPolicies = 8

// pinnedLoadTimeout bounds the read of a pinned version from the bucket.
const pinnedLoadTimeout = 2 * time.Second

// missingFor is how long a version the bucket did not have (or that did
// not verify) is answered as unknown without reading the bucket again;
// at most maxMissing such versions are remembered.
const (
	missingFor = 5 * time.Second
	maxMissing = 1024
)

// PolicyWatchOptions configures a PolicyWatcher.
type PolicyWatchOptions struct {
	// Logger receives swaps and refusals (default: discard). Entries carry
	// the key, the version and the refusal reason, never the document.
	Logger *slog.Logger
	// Metrics, if set, records the versions and refusals.
	Metrics *PolicyMetrics
	// MaxPinned caps the compiled pinned versions (default
	// DefaultMaxPinnedPolicies).
	MaxPinned int
}

// PolicyWatcher keeps a worker's policies in step with the policy bucket:
// it watches "active" and "shadow", verifies every new envelope against
// the trusted keys, compiles it, and swaps it in with one atomic store, so
// a message runs under the policy it started with and the next message
// under the new one. An envelope that does not verify or compile is
// refused: it is logged and counted, and the running policy stays. A
// deleted "active" also leaves the running policy in place (deleting is
// not a way to downgrade a fleet); a deleted "shadow" ends the shadow.
//
// It is a PolicySource for WithPolicySource.
type PolicyWatcher struct {
	kv    jetstream.KeyValue
	trust policyset.Trust
	log   *slog.Logger
	m     *PolicyMetrics
	max   int

	active atomic.Pointer[PolicyEngine]
	shadow atomic.Pointer[PolicyEngine]

	mu     sync.Mutex
	pinned map[string]*PolicyEngine
	// missing remembers, for missingFor, versions the bucket did not
	// have, so a producer naming unknown versions costs one read each
	// per interval rather than one per message.
	missing map[string]time.Time

	cancel context.CancelFunc
	done   chan struct{}
}

// NewPolicyWatcher returns a watcher of the bucket kv; Start starts it.
func NewPolicyWatcher(kv jetstream.KeyValue, trust policyset.Trust, o PolicyWatchOptions) (*PolicyWatcher, error) {
	if kv == nil || trust.Len() == 0 {
		return nil, optErr("a policy bucket and at least one trusted key are required")
	}
	if o.MaxPinned < 0 || o.MaxPinned > 1024 {
		return nil, optErr("max pinned policies must be 0..1024")
	}
	if o.MaxPinned == 0 {
		o.MaxPinned = DefaultMaxPinnedPolicies
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &PolicyWatcher{kv: kv, trust: trust, log: o.Logger, m: o.Metrics, max: o.MaxPinned, pinned: map[string]*PolicyEngine{}, missing: map[string]time.Time{}}, nil
}

// Start reads the current active and shadow policies (returning once they
// are in use, or when ctx ends) and keeps watching until Stop.
func (w *PolicyWatcher) Start(ctx context.Context) error {
	wctx, cancel := context.WithCancel(context.Background())
	watcher, err := w.kv.WatchFiltered(wctx, []string{PolicyKeyActive, PolicyKeyShadow})
	if err != nil {
		cancel()
		return ErrPolicyStore
	}
	w.cancel = cancel
	w.done = make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(w.done)
		defer watcher.Stop()
		initial := true
		for {
			select {
			case <-wctx.Done():
				return
			case e, ok := <-watcher.Updates():
				if !ok {
					return
				}
				if e == nil {
					if initial {
						initial = false
						close(ready)
					}
					continue
				}
				w.apply(e)
			}
		}
	}()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		w.Stop()
		return ctx.Err()
	}
}

// Stop ends the watch; the policies in use stay in use.
func (w *PolicyWatcher) Stop() {
	if w.cancel != nil {
		w.cancel()
		<-w.done
	}
}

// Active returns the active policy (nil before one was read).
func (w *PolicyWatcher) Active() *PolicyEngine { return w.active.Load() }

// Shadow returns the shadow policy (nil when there is none).
func (w *PolicyWatcher) Shadow() *PolicyEngine { return w.shadow.Load() }

var pinVersionRE = lazyre.New(`^[A-Za-z0-9._:-]{1,64}$`)

// Version returns the engine of a version: the active or shadow one, or a
// version read from versions.<version>, verified, compiled and kept (up to
// MaxPinned). It returns nil for a version that is not stored or does not
// verify.
func (w *PolicyWatcher) Version(name string) *PolicyEngine {
	if a := w.active.Load(); a != nil && a.Version == name {
		return a
	}
	if s := w.shadow.Load(); s != nil && s.Version == name {
		return s
	}
	if !pinVersionRE.MatchString(name) {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if pe := w.pinned[name]; pe != nil {
		return pe
	}
	now := time.Now()
	if t, ok := w.missing[name]; ok && now.Sub(t) < missingFor {
		return nil
	}
	miss := func() {
		if len(w.missing) >= maxMissing {
			for k, t := range w.missing {
				if now.Sub(t) >= missingFor || len(w.missing) >= maxMissing {
					delete(w.missing, k)
				}
			}
		}
		w.missing[name] = now
	}
	ctx, cancel := context.WithTimeout(context.Background(), pinnedLoadTimeout)
	defer cancel()
	e, err := w.kv.Get(ctx, PolicyVersionKey(name))
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			w.log.Warn("pinned policy unavailable", "version", name, "error", ErrPolicyStore.Error())
		}
		miss()
		return nil
	}
	pe, reason := w.compile(e.Value())
	if pe == nil || pe.Version != name {
		w.refuse(PolicyVersionKey(name), reason, name)
		miss()
		return nil
	}
	delete(w.missing, name)
	if len(w.pinned) >= w.max {
		for k := range w.pinned { // drop one; a pinned version is read again when asked for
			delete(w.pinned, k)
			break
		}
	}
	w.pinned[name] = pe
	return pe
}

// compile verifies and compiles an envelope.
func (w *PolicyWatcher) compile(b []byte) (*PolicyEngine, string) {
	sp, err := policyset.Verify(b, w.trust)
	if err != nil {
		return nil, string(policyset.ReasonOf(err))
	}
	eng, err := pipeline.NewEngine(sp.Policy)
	if err != nil {
		return nil, "compile"
	}
	return &PolicyEngine{Engine: eng, Version: sp.Envelope.Version, Digest: sp.Envelope.Digest}, ""
}

func (w *PolicyWatcher) refuse(key, reason, version string) {
	if w.m != nil {
		w.m.Refused.WithLabelValues(reason).Inc()
	}
	if !pinVersionRE.MatchString(version) {
		version = ""
	}
	w.log.Warn("policy refused; the running policy stays", "key", key, "reason", reason, "version", version)
}

// apply takes one update of "active" or "shadow".
func (w *PolicyWatcher) apply(e jetstream.KeyValueEntry) {
	role, slot := PolicyRoleActive, &w.active
	if e.Key() == PolicyKeyShadow {
		role, slot = PolicyRoleShadow, &w.shadow
	}
	if e.Operation() != jetstream.KeyValuePut {
		if role == PolicyRoleShadow {
			if old := slot.Swap(nil); old != nil {
				w.log.Info("shadow policy removed", "version", old.Version)
			}
			w.m.SetVersion(role, "")
			return
		}
		if cur := slot.Load(); cur != nil {
			w.log.Warn("active policy deleted from the bucket; the running policy stays", "version", cur.Version)
		}
		return
	}
	if cur := slot.Load(); cur != nil {
		if env, err := policyset.ParseEnvelope(e.Value()); err == nil && env.Digest == cur.Digest && env.Version == cur.Version {
			// The same policy again (a rollback to it, a repeated push):
			// verified before; only its signature could differ.
			if _, err := policyset.Verify(e.Value(), w.trust); err == nil {
				return
			}
		}
	}
	pe, reason := w.compile(e.Value())
	if pe == nil {
		version := ""
		if env, err := policyset.ParseEnvelope(e.Value()); err == nil {
			version = env.Version
		}
		w.refuse(e.Key(), reason, version)
		return
	}
	old := slot.Swap(pe)
	prev := ""
	if old != nil {
		prev = old.Version
	}
	if w.m != nil {
		w.m.Swaps.WithLabelValues(role).Inc()
		w.m.SetVersion(role, pe.Version)
	}
	w.log.Info("policy in use", "role", role, "version", pe.Version, "digest", pe.Digest, "previous", prev, "revision", e.Revision())
}
