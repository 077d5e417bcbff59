package worker

import (
	"context"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The inline path: request/reply on mcp.sanitize.<kind>, one queue group
// for the fleet. The reply is the sanitized message (or a sanitized error
// result) with Mcp-Outcome and Mcp-Code; evidence goes to
// mcp.evidence.<tenant> through JetStream.
//
// One queue subscription on mcp.sanitize.> serves every kind: a message is
// delivered once to the fleet whatever its kind, and a request on a subject
// whose kind is unknown gets a sanitized error result (INVALID_CONTENT,
// unknown-kind) instead of timing out. Per-kind subscriptions would need a
// second, catch-all subscription for that, and with it a second delivery
// of every payload.

// InlineSubject is the subscription of the inline path.
const InlineSubject = wire.SanitizePrefix + ".>"

func (s *Service) subscribeInline(ctx context.Context) error {
	s.inWork = make(chan *nats.Msg)
	budget := inlineAckBudget(s.cfg.concurrency)
	s.evSem = make(chan struct{}, budget)
	s.evWait = make(chan inlineAck, budget)
	for range s.cfg.concurrency {
		go s.inlineSlot()
	}
	for range budget {
		go s.inlineAckWaiter()
	}
	sub, err := s.nc.QueueSubscribe(InlineSubject, wire.QueueInline, s.dispatchInline)
	if err != nil {
		return err
	}
	if err := sub.SetPendingLimits(-1, s.cfg.inlinePending); err != nil {
		_ = sub.Unsubscribe()
		return err
	}
	s.subs = append(s.subs, sub)
	fctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	if err := s.nc.FlushWithContext(fctx); err != nil {
		_ = sub.Unsubscribe()
		s.subs = nil
		return err
	}
	return nil
}

// dispatchInline runs on the subscription's goroutine and blocks while
// every slot is busy, which pushes back on the subscription (its pending
// limit then decides what is dropped). A request that comes after the
// service stopped (the slots are gone) is answered on a goroutine of its
// own, with the TIMEOUT error result of a cancelled pass.
func (s *Service) dispatchInline(m *nats.Msg) {
	s.inWG.Add(1)
	select {
	case s.inWork <- m:
	case <-s.hardCtx.Done():
		go func() {
			defer s.inWG.Done()
			s.handleInline(m)
		}()
	}
}

// inlineSlot is one of the concurrency slots of the inline path: it
// handles one request at a time until the service stops. Slots live as
// long as the service, so a request does not pay for a new goroutine
// and for growing its stack to the depth of a pass (a tenth of the
// inline CPU at 4 KiB, docs/benchmarks.md).
func (s *Service) inlineSlot() {
	for {
		select {
		case m := <-s.inWork:
			s.handleInline(m)
			s.inWG.Done()
		case <-s.hardCtx.Done():
			return
		}
	}
}

func (s *Service) handleInline(m *nats.Msg) {
	start := time.Now()
	if m.Reply == "" {
		// Nobody waits for the answer; nothing is published for it.
		s.log.Debug("inline request without a reply subject ignored")
		return
	}
	s.m.inFlightInline.Inc()
	defer s.m.inFlightInline.Dec()
	kind := strings.TrimPrefix(m.Subject, wire.SanitizePrefix+".")
	hdr := m.Header
	if hdr == nil {
		hdr = nats.Header{}
	}
	mc := newContext(PathInline, kind, hdr.Get(wire.HeaderTenant), hdr.Get(wire.HeaderServer), hdr)
	// The reply goes out with PublishMsg, which copies it: the body's
	// memory is reused.
	res := s.process(s.hardCtx, mc, hdr, m.Data, "", true)
	defer res.release()

	// Evidence is on its way before the reply, and its acknowledgement is
	// checked after the reply so that it adds no latency. The check does
	// not hold the slot: a slot waiting for an acknowledgement (which queues
	// behind other messages in the server) is a slot not sanitizing, and
	// with the default two slots per core that left a tenth of the CPU idle
	// (docs/performance.md). evSem bounds the acknowledgements outstanding;
	// when it is full the slot waits here, which pushes back as before.
	s.evSem <- struct{}{}
	fut, err := s.js.PublishMsgAsync(s.sealedEvidenceMsg(mc, res.ev, false), expectEvidence)
	if err != nil {
		s.publishFailed(wire.StreamEvidence, mc, err)
	}
	reply := &nats.Msg{Subject: m.Reply, Header: outputHeader(mc, res), Data: res.data}
	if err := s.nc.PublishMsg(reply); err != nil {
		s.publishFailed(StreamReply, mc, err)
	}
	s.afterDelivery(mc, hdr, m.Data, res.ev) // archive, shadow: after the reply, no latency added
	s.m.observe(PathInline, res.ev, start)
	if res.ev.Outcome == pipeline.OutcomeRejected {
		s.log.Debug("inline message rejected", "kind", string(mc.kind), "code", string(res.ev.Code), "reason", headerToken(res.ev.Reason), "tenant", mc.tenantTok, "requestId", headerToken(mc.info.RequestID))
	}
	// The message is finished when its evidence is settled: Stop waits for
	// that through inWG, which this Add keeps above zero until then. The
	// channel holds as many as evSem allows, so the hand-off does not
	// block; once the service stopped the waiters are gone and the message
	// is settled on a goroutine of its own.
	s.inWG.Add(1)
	a := inlineAck{fut: fut, mc: mc, hdr: hdr}
	s.evMu.RLock()
	defer s.evMu.RUnlock()
	if s.hardCtx.Err() != nil {
		// The waiters are gone or going (select would pick either case
		// when both are ready).
		go s.settleInline(a, nil)
		return
	}
	s.evWait <- a // room for it: evSem holds a place
}

// expectEvidence is the publish option of every inline evidence record,
// built once.
var expectEvidence = jetstream.WithExpectStream(wire.StreamEvidence)

// inlineAck is an inline message whose evidence acknowledgement is awaited
// (fut is nil when the publish failed at once).
type inlineAck struct {
	fut jetstream.PubAckFuture
	mc  *msgContext
	hdr nats.Header
}

// inlineAckWaiter settles inline messages, one at a time, until the
// service stops: as long-lived as the slots, for the same reason, and
// with one timer for all its waits.
func (s *Service) inlineAckWaiter() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case a := <-s.evWait:
			s.settleInline(a, t)
		case <-s.hardCtx.Done():
			// No hand-off is under way once the lock is held, and later
			// ones see the hard stop: what is left is settled here.
			s.evMu.Lock()
			defer s.evMu.Unlock()
			for {
				select {
				case a := <-s.evWait:
					go s.settleInline(a, nil)
				default:
					return
				}
			}
		}
	}
}

// settleInline waits for the evidence acknowledgement of an inline
// message, then counts it as processed and releases its claim. t is the
// stopped timer of the wait (nil: a timer of its own).
func (s *Service) settleInline(a inlineAck, t *time.Timer) {
	defer func() { <-s.evSem; s.inWG.Done() }()
	if a.fut != nil {
		if err := s.waitAck(a.fut, t); err != nil {
			s.publishFailed(wire.StreamEvidence, a.mc, err)
		}
	}
	s.processed.Add(1)
	s.releaseClaim(a.hdr)
}

// inlineAckBudget is how many inline evidence acknowledgements may be
// outstanding: two per slot. With the durable path's two publishes per
// slot it stays under the JetStream context's limit of pending
// asynchronous publishes (4 x concurrency + 64, NewService), so a publish
// never stalls on that limit.
func inlineAckBudget(concurrency int) int { return 2 * concurrency }

// waitAck waits for a publish acknowledgement, bounded by the publish
// timeout (the JetStream context also times the future out). t, when not
// nil, is a stopped timer that waitAck runs and leaves stopped; a timer
// that is stopped or has fired can be reset without draining its channel
// (Go 1.23 timers).
func (s *Service) waitAck(f jetstream.PubAckFuture, t *time.Timer) error {
	d := s.cfg.publishTimeout + time.Second
	if t == nil {
		t = time.NewTimer(d)
	} else {
		t.Reset(d)
	}
	defer t.Stop()
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	case <-t.C:
		return context.DeadlineExceeded
	case <-s.hardCtx.Done():
		// Stopping gave up waiting (or the connection is gone for good).
		return context.Canceled
	}
}

// publishFailed counts and logs a failed publish. The error text comes from
// the client or the server (no payload); only its class is logged.
func (s *Service) publishFailed(stream string, mc *msgContext, err error) {
	s.chainVoid(stream, mc)
	s.m.PublishFailures.WithLabelValues(stream).Inc()
	s.log.Warn("publish failed", "stream", stream, "kind", string(mc.kind), "tenant", mc.tenantTok, "error", publishErrorClass(err))
}
