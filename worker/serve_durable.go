package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The durable path: one pull consumer on MCP_RAW shared by the fleet. Per
// message: sanitize, publish the result to mcp.clean.<tenant>.<server>.<kind>
// and the evidence to mcp.evidence.<tenant>, both with a Nats-Msg-Id
// derived from the input, wait for both acknowledgements, then acknowledge
// the input. A failed attempt is handed back (NakWithDelay on the back-off
// schedule); the last attempt that fails sends a sanitized error result to
// mcp.dlq.<tenant> instead.
//
// The pull loop and its flow control are in serve_pull.go.

// MsgID returns the Nats-Msg-Id of the outputs of the input stored at seq
// (stream sequence) and stamp (stream timestamp) of MCP_RAW: the same for
// every delivery of that input, different for every other input (the stamp
// keeps it unique even if the stream is recreated and sequences restart).
func MsgID(seq uint64, stamp time.Time) string {
	return wire.StreamRaw + ":" + strconv.FormatUint(seq, 10) + ":" + strconv.FormatInt(stamp.UnixNano(), 36)
}

// dlqSuffix marks the evidence of a DLQ decision, which is a record of its
// own next to the evidence of the pass.
const dlqSuffix = ":dlq"

func (s *Service) handleDurable(m jetstream.Msg) {
	start := time.Now()
	s.m.inFlightDurable.Inc()
	defer s.m.inFlightDurable.Dec()
	defer s.processed.Add(1)
	meta, err := m.Metadata()
	if err != nil {
		// Not a JetStream delivery: nothing to acknowledge it with.
		s.log.Warn("durable message without metadata ignored")
		return
	}
	hdr := m.Headers()
	if hdr == nil {
		hdr = nats.Header{}
	}
	tenant, server, kind, perr := wire.ParseRaw(m.Subject())
	if perr != nil {
		tenant, server, kind = rawTokens(m.Subject())
	}
	mc := newContext(PathDurable, kind, tenant, server, hdr)
	mc.rawSeq, mc.deliveries = meta.Sequence.Stream, meta.NumDelivered
	mc.msgID = MsgID(meta.Sequence.Stream, meta.Timestamp)
	if meta.NumDelivered > 1 {
		s.m.Redeliveries.WithLabelValues(kindLabel(mc.kind)).Inc()
	}
	last := meta.NumDelivered >= uint64(s.cfg.consumer.MaxDeliver)

	// Keep the input alive while it is processed, so a long pass is not
	// redelivered to another worker in the middle.
	stopKeep := s.keepAlive(m)
	defer stopKeep()

	if perr != nil || !mc.kindOK {
		// No clean subject can be built for it: a permanent failure.
		reason := string(wire.ReasonInvalidSubject)
		if perr == nil {
			reason = string(wire.ReasonUnknownKind)
		}
		res := s.reject(s.def, mc, m.Data(), pipeline.CodeInvalidContent, reason, false)
		s.toDLQ(m, mc, res, start)
		return
	}

	// The object of an output too large for a message is named after the
	// input, so a retried attempt overwrites it rather than leave another.
	// The clean message goes out with JetStream publishes that keep it
	// for a retry (even after publishDurable gave up waiting): detached
	// copies the body out of the sink, whose buffer goes back to the pool.
	res := s.process(s.hardCtx, mc, hdr, m.Data(), "clean."+mc.msgID, true).detached()
	// A resolver unavailable for a cluster cause (the catalog's bucket
	// during an election) is asked again within the attempt, for up to the
	// publish timeout, rather than handed back for a back-off step.
	for until, pause := time.Now().Add(s.cfg.publishTimeout), 50*time.Millisecond; res.passing && time.Now().Before(until) && s.hardCtx.Err() == nil; pause = min(2*pause, time.Second) {
		res.release()
		select {
		case <-time.After(pause):
		case <-s.hardCtx.Done():
		}
		res = s.process(s.hardCtx, mc, hdr, m.Data(), "clean."+mc.msgID, true).detached()
	}
	defer res.release()
	if res.retry {
		s.fail(m, mc, res, last, start)
		return
	}
	if res.rated {
		s.dropRated(m, mc, hdr, res, last, start)
		return
	}
	clean := &nats.Msg{
		Subject: wire.Subject(wire.CleanPrefix, mc.tenantTok, mc.serverTok, string(mc.kind)),
		Header:  outputHeader(mc, res),
		Data:    res.data,
	}
	clean.Header.Set(wire.HeaderMsgID, mc.msgID)
	em := s.sealedEvidenceMsg(mc, res.ev, false)
	em.Header.Set(wire.HeaderMsgID, mc.msgID)
	if err := s.publishDurable([]*nats.Msg{clean, em}, []string{wire.StreamClean, wire.StreamEvidence}, mc); err != nil {
		s.fail(m, mc, s.reject(s.def, mc, m.Data(), pipeline.CodeInternal, string(wire.ReasonPublishFailed), true), last, start)
		return
	}
	if err := s.ack(m); err != nil {
		// The outputs are stored; a redelivery republishes them under the
		// same ids, which the streams drop as duplicates.
		s.log.Warn("ack failed; the input will be redelivered and its outputs deduplicated", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.m.observe(PathDurable, res.ev, start)
	s.afterDelivery(mc, hdr, m.Data(), res.ev) // archive, shadow: after the ack, delivery does not wait
	if s.cfg.streams.RawRetention == jetstream.WorkQueuePolicy {
		// The input is gone from MCP_RAW; so goes the body it claimed.
		s.releaseClaim(hdr)
	}
	if res.ev.Outcome == pipeline.OutcomeRejected {
		s.log.Debug("durable message rejected", "kind", string(mc.kind), "code", string(res.ev.Code), "reason", headerToken(res.ev.Reason), "tenant", mc.tenantTok, "rawSeq", mc.rawSeq)
	}
}

// rawTokens splits a subject that wire.ParseRaw refused, for the DLQ
// subject and evidence: invalid tokens become wire.InvalidToken later.
func rawTokens(subject string) (tenant, server, kind string) {
	var parts [5]string
	n := 0
	start := 0
	for i := 0; i <= len(subject) && n < 5; i++ {
		if i == len(subject) || subject[i] == '.' {
			parts[n] = subject[start:i]
			n++
			start = i + 1
		}
	}
	return parts[2], parts[3], parts[4]
}

// fail handles an attempt that failed: hand it back for a later attempt,
// or on the last attempt send it to the DLQ.
func (s *Service) fail(m jetstream.Msg, mc *msgContext, res result, last bool, start time.Time) {
	code := codeLabel(res.ev.Code)
	if last {
		s.toDLQ(m, mc, res, start)
		return
	}
	s.m.Naks.WithLabelValues(code).Inc()
	s.m.Messages.WithLabelValues(PathDurable, kindLabel(mc.kind), OutcomeFail).Inc()
	delay := s.cfg.consumer.RetryAfter(mc.deliveries)
	if err := m.NakWithDelay(s.cfg.consumer.nakDelay()); err != nil {
		s.log.Warn("nak failed; the input comes back after its AckWait", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.log.Info("durable attempt failed; handed back", "kind", string(mc.kind), "code", code, "reason", headerToken(res.ev.Reason), "rawSeq", mc.rawSeq, "delivery", mc.deliveries, "retryIn", delay.String())
}

// publishDLQ publishes the DLQ entry of an input of subject raw (its
// sanitized error result res) and the DLQ decision's evidence.
func (s *Service) publishDLQ(raw string, mc *msgContext, res result) (dup bool, err error) {
	dm := &nats.Msg{Subject: wire.Subject(wire.DLQPrefix, mc.tenantTok), Header: outputHeader(mc, res), Data: res.data}
	dm.Header.Set(wire.HeaderMsgID, mc.msgID)
	dm.Header.Set("Mcp-Raw-Subject", headerToken(raw))
	dm.Header.Set("Mcp-Deliveries", strconv.FormatUint(mc.deliveries, 10))
	em := s.sealedEvidenceMsg(mc, res.ev, true)
	em.Header.Set(wire.HeaderMsgID, mc.msgID+dlqSuffix)
	return s.publishDurableDup([]*nats.Msg{dm, em}, []string{wire.StreamDLQ, wire.StreamEvidence}, mc)
}

// toDLQ publishes the sanitized error result of a message that cannot be
// processed (never its raw body) to mcp.dlq.<tenant>, with its evidence,
// and acknowledges the input. If the DLQ publish fails the input is left
// unacknowledged: it stays in MCP_RAW (the server emits a max-deliveries
// advisory) rather than being dropped.
func (s *Service) toDLQ(m jetstream.Msg, mc *msgContext, res result, start time.Time) {
	code := codeLabel(res.ev.Code)
	if res.ev.Outcome != pipeline.OutcomeRejected {
		// A pass that succeeded but whose outputs could not be stored.
		res = s.reject(s.def, mc, m.Data(), pipeline.CodeInternal, string(wire.ReasonPublishFailed), true)
		code = codeLabel(res.ev.Code)
	}
	dup, err := s.publishDLQ(m.Subject(), mc, res)
	if err != nil {
		s.log.Error("DLQ publish failed; the input stays in MCP_RAW until the max-deliveries advisory brings it back", "rawSeq", mc.rawSeq, "code", code)
		return
	}
	if err := s.ack(m); err != nil {
		s.log.Warn("ack after DLQ failed", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	if dup {
		// The advisory of this delivery sent it first (serve_stranded.go):
		// one input, one DLQ entry, counted once.
		return
	}
	s.m.DLQ.WithLabelValues(code).Inc()
	s.m.Messages.WithLabelValues(PathDurable, kindLabel(mc.kind), OutcomeDLQ).Inc()
	s.m.Duration.WithLabelValues(PathDurable, kindLabel(mc.kind)).Observe(time.Since(start).Seconds())
	s.log.Warn("durable message sent to the DLQ", "kind", string(mc.kind), "code", code, "reason", headerToken(res.ev.Reason), "tenant", mc.tenantTok, "rawSeq", mc.rawSeq, "deliveries", mc.deliveries)
}

func (s *Service) ack(m jetstream.Msg) error {
	if s.cfg.ackMode == AckDouble {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.publishTimeout)
		defer cancel()
		return m.DoubleAck(ctx)
	}
	err := m.Ack()
	if err == nil {
		s.acks.add(m.Reply())
	}
	return err
}

// keepAlive sends InProgress every third of the shortest back-off step
// (the shortest AckWait of any delivery) until stopped. It is a timer that
// re-arms itself, not a goroutine and a ticker a message: most passes end
// long before the first keep-alive is due. No InProgress is sent once the
// returned function has returned.
func (s *Service) keepAlive(m jetstream.Msg) func() {
	k := &keepAlive{m: m, every: slices.Min(s.cfg.consumer.BackOff) / 3}
	k.mu.Lock()
	k.t = time.AfterFunc(k.every, k.fire)
	k.mu.Unlock()
	return k.stop
}

// keepAlive is the keep-alive timer of one durable message.
type keepAlive struct {
	m       jetstream.Msg
	every   time.Duration
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

func (k *keepAlive) fire() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return
	}
	_ = k.m.InProgress()
	k.t.Reset(k.every)
}

func (k *keepAlive) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	k.t.Stop()
}

// publishErrorClass names the class of a NATS error for logs: a JetStream
// API error by its codes, a few client errors by name. Server and client
// error texts are not logged.
func publishErrorClass(err error) string {
	var api *jetstream.APIError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &api):
		return fmt.Sprintf("jetstream-api-%d-%d", api.Code, api.ErrorCode)
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse):
		return "no-responders"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, jetstream.ErrAsyncPublishTimeout):
		return "timeout"
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining), errors.Is(err, nats.ErrDisconnected):
		return "connection"
	case errors.Is(err, jetstream.ErrMsgAlreadyAckd), errors.Is(err, nats.ErrMsgAlreadyAckd):
		return "already-acked"
	default:
		return "other"
	}
}

// dropRated settles a notification over the rate limit (notify_rate.go):
// no clean message; the window's first gets its evidence record (quiet
// ones none); then the input is acknowledged. A failed evidence publish
// hands the input back like any failed attempt.
func (s *Service) dropRated(m jetstream.Msg, mc *msgContext, hdr nats.Header, res result, last bool, start time.Time) {
	if !res.quiet {
		em := s.sealedEvidenceMsg(mc, res.ev, false)
		em.Header.Set(wire.HeaderMsgID, mc.msgID)
		if err := s.publishDurable([]*nats.Msg{em}, []string{wire.StreamEvidence}, mc); err != nil {
			s.fail(m, mc, s.reject(s.def, mc, nil, pipeline.CodeInternal, string(wire.ReasonPublishFailed), true), last, start)
			return
		}
	}
	if err := s.ack(m); err != nil {
		s.log.Warn("ack failed; the input will be redelivered", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.m.observe(PathDurable, res.ev, start)
	if s.cfg.streams.RawRetention == jetstream.WorkQueuePolicy {
		s.releaseClaim(hdr)
	}
}
