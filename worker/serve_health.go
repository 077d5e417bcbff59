package worker

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Health and lag: a refresher goroutine reads the connection state, checks
// the streams and reads the durable consumer's counts, and stores the
// results; /healthz, /readyz and Ready only read what it stored, so they
// answer at once whatever NATS is doing (a reconnecting client holds its
// lock while it dials; a JetStream API call during a leader election takes
// seconds). The connection watcher also tells the durable path when the
// client reconnected (serve_durable.go re-sends recent acknowledgements and
// republishes outputs whose acknowledgement was lost with the connection).

// Defaults of health.
const (
	// DefaultConsumerStatsEvery is how often the consumer's counts are read
	// (the lag gauges and the stall check).
	DefaultConsumerStatsEvery = time.Second
	// DefaultStallAfter is how long the worker may make no progress while
	// the consumer has input before it reports itself stalled.
	DefaultStallAfter = time.Minute
	// healthEvery is how often the connection state is read.
	healthEvery = 250 * time.Millisecond
	// streamsEvery is how often the streams are checked for /readyz.
	streamsEvery = 2 * time.Second
	// apiTimeout bounds one JetStream API call of the refresher.
	apiTimeout = 2 * time.Second
)

// Errors of Ready. They carry no detail from NATS.
var (
	ErrNotStarted   = errors.New("worker: not started")
	ErrDisconnected = errors.New("worker: not connected to NATS")
	// ErrStalled: the durable consumer has input for this worker
	// (undelivered messages, or the fleet held at MaxAckPending) and this
	// worker received or finished nothing for the stall time
	// (WithStallAfter).
	ErrStalled = errors.New("worker: stalled: the consumer has input and nothing progressed")
)

// health is the state the refresher stores for Ready.
type health struct {
	connected atomic.Bool
	streamErr atomic.Pointer[error]
	stalled   atomic.Bool
	// progress is the time (UnixNano) the durable path last received or
	// finished a message, or started.
	progress atomic.Int64
	// epoch counts reconnections; reconnected is closed and replaced at
	// each one.
	epoch       atomic.Uint64
	mu          sync.Mutex
	reconnected chan struct{}
	// disconnectedAt is when the connection was last lost (UnixNano).
	disconnectedAt atomic.Int64
}

func (h *health) markProgress() { h.progress.Store(time.Now().UnixNano()) }

// reconnectCh returns a channel closed at the next reconnection.
func (h *health) reconnectCh() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reconnected == nil {
		h.reconnected = make(chan struct{})
	}
	return h.reconnected
}

// signalReconnect counts a reconnection and wakes the waiters; the count
// changes before the channel closes, so a waiter that reads the count
// after taking the channel misses no reconnection.
func (h *health) signalReconnect() {
	h.mu.Lock()
	h.epoch.Add(1)
	if h.reconnected != nil {
		close(h.reconnected)
	}
	h.reconnected = make(chan struct{})
	h.mu.Unlock()
}

// startHealth starts the connection watcher and the refresher; stop ends
// both and waits for them.
func (s *Service) startHealth() (stop func()) {
	h := &s.health
	h.connected.Store(s.nc.IsConnected())
	s.maxPayload.Store(s.nc.MaxPayload())
	ok := error(nil)
	h.streamErr.Store(&ok)
	h.markProgress()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	events := s.nc.StatusChanged(nats.CONNECTED, nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case st, open := <-events:
				if !open {
					return
				}
				switch st {
				case nats.CONNECTED:
					h.connected.Store(true)
					s.maxPayload.Store(s.nc.MaxPayload())
					s.onReconnect()
					h.signalReconnect()
				default:
					if h.connected.Swap(false) {
						h.disconnectedAt.Store(time.Now().UnixNano())
					}
				}
			}
		}
	})
	wg.Go(func() { s.refresh(ctx) })
	return func() {
		cancel()
		s.nc.RemoveStatusListener(events)
		wg.Wait()
	}
}

// refresh keeps the stored health and the consumer gauges current.
func (s *Service) refresh(ctx context.Context) {
	tick := time.NewTicker(healthEvery)
	defer tick.Stop()
	var lastStreams, lastStats, statsOK time.Time
	statsOK = time.Now()
	leader := ""
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			// The watcher misses no event, but a listener is registered
			// after connect: read the state too.
			if c := s.nc.IsConnected(); c != s.health.connected.Load() {
				s.health.connected.Store(c)
			}
			if now.Sub(lastStreams) >= streamsEvery {
				lastStreams = now
				cctx, cancel := context.WithTimeout(ctx, apiTimeout)
				err := CheckStreams(cctx, s.js)
				cancel()
				if ctx.Err() != nil {
					return
				}
				if err != nil && !s.health.connected.Load() {
					// Cannot tell while disconnected; readiness already
					// says not connected.
					err = nil
				}
				s.health.streamErr.Store(&err)
			}
			if s.cons != nil && s.cfg.statsEvery > 0 && now.Sub(lastStats) >= s.cfg.statsEvery {
				lastStats = now
				if l, ok := s.consumerStats(ctx); ok {
					if leader != "" && l != "" && l != leader {
						// Acknowledgements the old leader took but did
						// not replicate are lost with it.
						s.askReack(statsOK.Add(-reackWindow).UnixNano())
					}
					if l != "" {
						leader = l
					}
					statsOK = time.Now()
				}
				s.m.ConsumerInfoAge.Set(time.Since(statsOK).Seconds())
			}
		}
	}
}

// consumerStats copies the durable consumer's fleet-wide counts into the
// gauges and decides whether this worker is stalled. It returns the
// consumer's leader ("" on one server) and whether the counts could be
// read.
func (s *Service) consumerStats(ctx context.Context) (string, bool) {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	info, err := s.cons.Info(ictx)
	cancel()
	if err != nil {
		return "", false
	}
	s.m.ConsumerAckPend.Set(float64(info.NumAckPending))
	s.m.ConsumerPending.Set(float64(info.NumPending))
	s.m.ConsumerRedelivd.Set(float64(info.NumRedelivered))
	s.m.ConsumerWaiting.Set(float64(info.NumWaiting))
	// Input this worker could take: undelivered messages, or a fleet held
	// at MaxAckPending. Messages other workers are processing are not.
	input := info.NumPending > 0 || (info.Config.MaxAckPending > 0 && info.NumAckPending >= info.Config.MaxAckPending)
	idle := time.Since(time.Unix(0, s.health.progress.Load()))
	stalled := input && idle > s.cfg.stallAfter
	if stalled {
		s.m.Stalled.Set(1)
	} else {
		s.m.Stalled.Set(0)
	}
	if stalled != s.health.stalled.Swap(stalled) {
		if stalled {
			s.log.Error("durable path stalled: the consumer has input and this worker made no progress", "pending", info.NumPending, "ackPending", info.NumAckPending, "waitingPulls", info.NumWaiting, "idle", idle.Round(time.Second).String())
		} else {
			s.log.Info("durable path progresses again")
		}
	}
	leader := ""
	if info.Cluster != nil {
		leader = info.Cluster.Leader
	}
	return leader, true
}

// Ready reports nil when the service is started, connected, the streams
// exist (checked every 2 s) and the durable path is not stalled. It reads
// stored state only and never waits for NATS.
func (s *Service) Ready(context.Context) error {
	if !s.ready.Load() {
		return ErrNotStarted
	}
	if !s.health.connected.Load() {
		return ErrDisconnected
	}
	if p := s.health.streamErr.Load(); p != nil && *p != nil {
		return *p
	}
	if s.health.stalled.Load() {
		return ErrStalled
	}
	return nil
}

// Stalled reports whether the durable path is stalled (see ErrStalled).
func (s *Service) Stalled() bool { return s.health.stalled.Load() }

// connMaxPayload returns the connection's max payload as read at the last
// (re)connection, so that a message does not take the connection's lock
// for it (that lock is held by every publish and by the read loop); before
// the first reading it asks the connection.
func (s *Service) connMaxPayload() int64 {
	if n := s.maxPayload.Load(); n > 0 {
		return n
	}
	return s.nc.MaxPayload()
}
