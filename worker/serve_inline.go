package worker

import (
	"context"
	"strings"
	"sync"
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
	s.inWork = make(chan inlineReq)
	s.inGate = s.cfg.newInlineGate()
	s.evSem = make(chan struct{}, inlineAckBudget(s.cfg.concurrency))
	for range s.cfg.concurrency {
		go s.inlineSlot()
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
// every slot is busy, or while the gate is full for a message that only
// computes (serve_inline_gate.go), which pushes back on the subscription
// (its pending limit then decides what is dropped). A request that comes
// after the service stopped (the slots are gone) is answered on a
// goroutine of its own, with the TIMEOUT error result of a cancelled pass.
func (s *Service) dispatchInline(m *nats.Msg) {
	r := inlineReq{m: m}
	if s.inGate != nil && s.computeOnly(m) {
		select {
		case s.inGate <- struct{}{}:
			r.gated = true
		case <-s.hardCtx.Done():
		}
	}
	s.inWG.Add(1)
	select {
	case s.inWork <- r:
	case <-s.hardCtx.Done():
		go func() {
			defer s.inWG.Done()
			s.runInline(r)
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
		case r := <-s.inWork:
			s.runInline(r)
			s.inWG.Done()
		case <-s.hardCtx.Done():
			return
		}
	}
}

// runInline handles r and gives its place in the gate back.
func (s *Service) runInline(r inlineReq) {
	if r.gated {
		defer func() { <-s.inGate }()
	}
	s.handleInline(r.m)
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

	// Evidence is on its way before the reply, and its acknowledgement
	// settles the message on the acknowledgements' goroutine
	// (serve_inline_ack.go), so that it adds no latency and does not hold
	// the slot: a slot waiting for an acknowledgement (which queues behind
	// other messages in the server) is a slot not sanitizing, and with the
	// default two slots per core that left a tenth of the CPU idle
	// (docs/performance.md). evSem bounds the acknowledgements
	// outstanding; when it is full the slot waits here, which pushes back.
	// Stop waits for the settlement through inWG.
	s.evSem <- struct{}{}
	s.inWG.Add(1)
	ie := &inlineEv{mc: mc, hdr: hdr}
	ie.refs.Store(2)
	if res.quiet {
		// A quiet result is a notification over the rate limit after the
		// window's first: its window has its record (notify_rate.go).
		s.unrefInline(ie)
	} else {
		s.pubs.publish(ie, s.sealedEvidenceMsg(mc, res.ev, false))
	}
	reply := newReply(m.Reply, mc, res)
	err := s.nc.PublishMsg(&reply.msg)
	reply.release()
	if err != nil {
		s.publishFailed(StreamReply, mc, err)
	}
	if !res.rated {
		// Archive, shadow: after the reply, no latency added. A
		// notification over the rate limit was not delivered: neither.
		s.afterDelivery(mc, hdr, m.Data, res.ev)
	}
	s.m.observe(PathInline, res.ev, start)
	if res.ev.Outcome == pipeline.OutcomeRejected {
		s.log.Debug("inline message rejected", "kind", string(mc.kind), "code", string(res.ev.Code), "reason", headerToken(res.ev.Reason), "tenant", mc.tenantTok, "requestId", headerToken(mc.info.RequestID))
	}
	// The claim is released once the evidence is settled too: the
	// archive above may still read the claimed body.
	s.unrefInline(ie)
}

// expectEvidence is the publish option of the evidence records published
// through the JetStream context (shadow records), built once.
var expectEvidence = jetstream.WithExpectStream(wire.StreamEvidence)

// inlineAckBudget is how many inline evidence acknowledgements may be
// outstanding: two per slot, so a slot runs the next pass while the
// stream stores the last record, and the records waiting in the server
// stay bounded.
func inlineAckBudget(concurrency int) int { return 2 * concurrency }

// publishFailed counts and logs a failed publish. The error text comes from
// the client or the server (no payload); only its class is logged.
func (s *Service) publishFailed(stream string, mc *msgContext, err error) {
	s.chainVoid(stream, mc)
	s.m.PublishFailures.WithLabelValues(stream).Inc()
	s.log.Warn("publish failed", "stream", stream, "kind", string(mc.kind), "tenant", mc.tenantTok, "error", publishErrorClass(err))
}

// replyMsg is an inline reply and the set its headers are built in, reused
// from one message to the next (replyPool): PublishMsg encodes the headers
// and copies the body before it returns, and nothing else keeps the
// message, so its map, its values' array and the message itself need not
// be allocated again for every reply. What the requester gets is what
// outputHeader gives (TestReplyHeaderReuse).
type replyMsg struct {
	msg nats.Msg
	hs  headerSet
}

// replyPool holds replyMsgs, sized for a reply's usual headers (up to
// fourteen: the body's three, outcome, code, guard, kind, input digest,
// the four identifiers, policy, trace context).
var replyPool = sync.Pool{New: func() any { return &replyMsg{hs: newHeaderSet(16)} }}

// newReply returns the reply to subject with the headers and body of res.
// Release it once it is published.
func newReply(subject string, mc *msgContext, res result) *replyMsg {
	r := replyPool.Get().(*replyMsg)
	r.hs.output(mc, res)
	r.msg = nats.Msg{Subject: subject, Header: r.hs.h, Data: res.data}
	return r
}

// release returns r to replyPool; nothing may use r or its headers after.
func (r *replyMsg) release() {
	r.msg = nats.Msg{}
	r.hs.reset()
	replyPool.Put(r)
}
