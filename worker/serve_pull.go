package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The pull loop of the durable path.
//
// Flow control: the loop holds at most concurrency + perPull messages
// (slots) and pulls only as many as it has free slots, at most perPull at
// a time, where perPull is the fetch byte budget divided by the largest
// message the stream can hold. So at most the budget of fetched messages
// waits in the client beyond those being processed, and a burst of large
// messages never piles up in it (where the server's slow-consumer limit
// would cut the connection).
//
// Pull requests carry no byte cap (no max_bytes), and are sent on the
// loop's own inbox (serve_pullreq.go says why not with Fetch). An R3 consumer sends a
// message only once its replicas agree that it was delivered, but the
// "409 Batch Completed" status that ends a byte-capped request whose batch
// is full goes out at once, ahead of the messages; a client that ends the
// request at that status (nats.go's Fetch ends and unsubscribes) leaves the
// messages to arrive at nobody and wait out their AckWait, delivery after
// delivery (docs/nats.md has the server code and the measurements).

// Pull statuses: label values of mcp_sanitize_pull_requests_total, one per
// way a pull request ends.
const (
	PullComplete         = "complete"          // the batch was filled
	PullExpired          = "expired"           // the request expired (408, 404) with fewer messages, maybe none
	PullBatchCompleted   = "batch-completed"   // 409 Batch Completed (byte-capped requests only)
	PullLeadershipChange = "leadership-change" // 409 Leadership Change: the consumer has a new leader
	PullConsumerDeleted  = "consumer-deleted"  // 409 Consumer Deleted
	PullServerShutdown   = "server-shutdown"   // 409 Server Shutdown (an R1 consumer's server stops)
	PullNoHeartbeat      = "no-heartbeat"      // the server's idle heartbeats stopped
	PullPinMismatch      = "pin-mismatch"      // 423 (priority groups; not used by the worker)
	PullNoResponders     = "no-responders"     // 503: no consumer leader answers (an election)
	PullConnection       = "connection"        // the client is disconnected or closing
	PullBadRequest       = "bad-request"       // 400: the server refused the request
	PullOther            = "other"             // anything else: counted in fetch_errors_total
)

// pullStatuses lists the label values, created up front.
var pullStatuses = []string{PullComplete, PullExpired, PullBatchCompleted, PullLeadershipChange, PullConsumerDeleted,
	PullServerShutdown, PullNoHeartbeat, PullPinMismatch, PullNoResponders, PullConnection, PullBadRequest, PullOther}

// pullStatus classes how a pull request of n messages that brought got
// ended with err (nil when it ended normally).
func pullStatus(err error, got, n int) string {
	switch {
	case err == nil && got >= n:
		return PullComplete
	case err == nil, errors.Is(err, nats.ErrTimeout), errors.Is(err, jetstream.ErrNoMessages), errors.Is(err, context.DeadlineExceeded):
		return PullExpired
	case errors.Is(err, jetstream.ErrBatchCompleted):
		return PullBatchCompleted
	case errors.Is(err, jetstream.ErrConsumerLeadershipChanged):
		return PullLeadershipChange
	case errors.Is(err, jetstream.ErrConsumerDeleted), errors.Is(err, jetstream.ErrConsumerNotFound):
		return PullConsumerDeleted
	case errors.Is(err, jetstream.ErrServerShutdown):
		return PullServerShutdown
	case errors.Is(err, jetstream.ErrNoHeartbeat):
		return PullNoHeartbeat
	case errors.Is(err, jetstream.ErrPinIDMismatch):
		return PullPinMismatch
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse):
		return PullNoResponders
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining), errors.Is(err, nats.ErrDisconnected),
		errors.Is(err, nats.ErrConnectionReconnecting):
		return PullConnection
	case errors.Is(err, jetstream.ErrBadRequest):
		return PullBadRequest
	default:
		return PullOther
	}
}

// pullPause is how long the loop waits after a pull that ended with
// status st before the next (0: at once). Cluster events (a new leader, a
// server stopping, no responder during an election, a reconnect) pass in
// a second or two: short pauses. bad-request and other double up to 2 s.
func pullPause(st string, prev time.Duration) time.Duration {
	switch st {
	case PullComplete, PullExpired, PullBatchCompleted:
		return 0
	case PullBadRequest, PullOther:
		if prev < 100*time.Millisecond {
			return 100 * time.Millisecond
		}
		return min(2*prev, 2*time.Second)
	default:
		if prev < 50*time.Millisecond {
			return 50 * time.Millisecond
		}
		return min(2*prev, time.Second)
	}
}

// maxMessageBytes is the largest message MCP_RAW can deliver: its
// MaxMsgSize when set, else the server's max payload, plus room for the
// subject and reply of a delivery.
func (s *Service) maxMessageBytes() int {
	n := int(s.nc.MaxPayload())
	if m := int(s.cfg.streams.MaxMsgSize); m > 0 && (n <= 0 || m < n) {
		n = m
	}
	return n + 1024
}

// perPull returns how many messages one pull request asks for at most.
func (s *Service) perPull() int {
	n := s.cfg.fetchMaxBytes / s.maxMessageBytes()
	return max(1, min(n, s.cfg.fetchBatch))
}

func (s *Service) startDurable() error {
	p, err := newPuller(s.nc, s.cfg.consumer.Durable)
	if err != nil {
		return err
	}
	s.stopDur = make(chan struct{})
	s.durDone = make(chan struct{})
	perPull := s.perPull()
	if perPull < s.cfg.fetchBatch {
		s.log.Info("pull batch bounded by the fetch byte budget and the largest message", "perPull", perPull, "fetchBatch", s.cfg.fetchBatch, "fetchMaxBytes", s.cfg.fetchMaxBytes, "maxMessageBytes", s.maxMessageBytes())
	}
	slots := make(chan struct{}, s.cfg.concurrency+perPull)
	work := make(chan jetstream.Msg, s.cfg.concurrency+perPull)
	var workers sync.WaitGroup
	for i := 0; i < s.cfg.concurrency; i++ {
		workers.Go(func() {
			for m := range work {
				s.handleDurable(m)
				s.health.markProgress()
				s.inFlight.Add(-1)
				<-slots
			}
		})
	}
	go func() {
		defer close(s.durDone)
		defer workers.Wait()
		defer close(work)
		defer p.close()
		s.fetchLoop(p, slots, work, perPull)
		// Deliveries already received are processed, each with a slot.
		p.drain(func(m *nats.Msg) {
			slots <- struct{}{}
			s.inFlight.Add(1)
			work <- pulledMsg{m: m, nc: s.nc}
		})
	}()
	return nil
}

// stopping reports whether Stop has closed stopDur.
func (s *Service) stopping() bool {
	select {
	case <-s.stopDur:
		return true
	default:
		return false
	}
}

// noLeaderCheck is how long pulls may find no consumer leader before the
// loop checks whether the consumer still exists.
const noLeaderCheck = 10 * time.Second

func (s *Service) fetchLoop(p *puller, slots chan struct{}, work chan<- jetstream.Msg, perPull int) {
	var pause time.Duration
	var noLeaderSince time.Time
	for {
		if !s.waitLameDuck() || s.stopping() {
			return
		}
		// One free slot at least, then as many as are free up to perPull.
		select {
		case <-s.stopDur:
			return
		case slots <- struct{}{}:
		}
		if s.stopping() {
			// Stop and a free slot came together and select took the
			// slot: no new pull once Stop has begun.
			<-slots
			return
		}
		n := 1
	more:
		for n < perPull {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		s.pulling.Store(true)
		if s.lameDuck.Load() {
			s.pulling.Store(false)
			for i := 0; i < n; i++ {
				<-slots
			}
			continue
		}
		// A pull in progress is not cancelled by Stop: it ends within
		// FetchWait (plus pullGrace if its status is lost) and what it
		// brings is processed.
		got, st, err := p.pull(n, s.cfg.fetchWait, func(m *nats.Msg) {
			s.health.markProgress()
			s.inFlight.Add(1)
			work <- pulledMsg{m: m, nc: s.nc}
		})
		s.pulling.Store(false)
		for i := got; i < n; i++ {
			<-slots
		}
		s.m.PullRequests.WithLabelValues(st).Inc()
		if st != PullNoResponders {
			noLeaderSince = time.Time{}
		}
		switch st {
		case PullComplete, PullExpired:
			// A leader answered: acknowledgements that may have been
			// lost can be sent again.
			s.reack()
		case PullBadRequest, PullOther:
			s.m.FetchErrors.Inc()
			s.log.Warn("pull request failed", "status", st, "error", publishErrorClass(err))
		case PullConsumerDeleted:
			s.log.Error("the durable consumer is gone", "consumer", s.cfg.consumer.Durable)
			s.recreateConsumer()
		case PullNoResponders:
			// An election, or no consumer at all (nobody serves its
			// requests then either).
			if noLeaderSince.IsZero() {
				noLeaderSince = time.Now()
			} else if time.Since(noLeaderSince) > noLeaderCheck {
				noLeaderSince = time.Now()
				if s.consumerMissing() {
					s.log.Error("the durable consumer is gone", "consumer", s.cfg.consumer.Durable)
					s.recreateConsumer()
				}
			}
			s.log.Info("pull request ended by the cluster", "status", st, "messages", got)
		default:
			s.log.Info("pull request ended by the cluster", "status", st, "messages", got)
		}
		pause = pullPause(st, pause)
		if pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-s.stopDur:
				t.Stop()
				return
			case <-s.health.reconnectCh():
			case <-t.C:
			}
			t.Stop()
		}
	}
}

// consumerMissing reports whether the server says the durable consumer
// does not exist.
func (s *Service) consumerMissing() bool {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	_, err := s.js.Consumer(ctx, wire.StreamRaw, s.cfg.consumer.Durable)
	return errors.Is(err, jetstream.ErrConsumerNotFound)
}

// recreateConsumer creates the durable consumer again when the service
// manages it (someone deleted it); otherwise pulls keep failing until an
// operator creates it.
func (s *Service) recreateConsumer() {
	if !s.cfg.manageStreams {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	// The consumer handle names the stream and the consumer only, so the
	// loop's handle pulls from the new consumer.
	if _, err := EnsureConsumer(ctx, s.js, s.cfg.consumer); err == nil {
		s.log.Warn("durable consumer created again", "consumer", s.cfg.consumer.Durable)
	}
}
