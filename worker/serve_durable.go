package worker

import (
	"context"
	"errors"
	"fmt"
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
// Flow control: the fetch loop holds at most concurrency + batch messages
// (slots), pulls only as many as it has free slots, and caps each pull by
// bytes, so a burst of large messages never piles up in the client (where
// the server's slow-consumer limit would cut the connection and leave them
// unacknowledged until their AckWait).

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

func (s *Service) startDurable() {
	s.stopDur = make(chan struct{})
	s.durDone = make(chan struct{})
	slots := make(chan struct{}, s.cfg.concurrency+s.cfg.fetchBatch)
	work := make(chan jetstream.Msg, s.cfg.concurrency+s.cfg.fetchBatch)
	var workers sync.WaitGroup
	for i := 0; i < s.cfg.concurrency; i++ {
		workers.Go(func() {
			for m := range work {
				s.handleDurable(m)
				<-slots
			}
		})
	}
	// A pull whose byte cap is below one message never delivers it, and
	// one above the consumer's MaxRequestMaxBytes is refused by the server.
	maxBytes := s.cfg.fetchMaxBytes
	if need := int(s.nc.MaxPayload()) + 64<<10; maxBytes < need {
		maxBytes = need
		if lim := s.cfg.consumer.MaxRequestMaxBytes; maxBytes > lim {
			maxBytes = lim
			s.log.Warn("the server's max payload exceeds the consumer's max request bytes: raise it, or messages near max payload stay undelivered", "maxRequestMaxBytes", lim)
		}
		s.log.Info("fetch max bytes raised to the server's max payload plus headers", "fetchMaxBytes", maxBytes)
	}
	if s.cfg.statsEvery > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		s.statsCxl = cancel
		go s.consumerStats(ctx)
	}
	go func() {
		defer close(s.durDone)
		defer workers.Wait()
		defer close(work)
		s.fetchLoop(slots, work, maxBytes)
	}()
}

func (s *Service) fetchLoop(slots chan struct{}, work chan<- jetstream.Msg, maxBytes int) {
	backoff := 100 * time.Millisecond
	for {
		// One free slot at least, then as many as are free up to a batch.
		select {
		case <-s.stopDur:
			return
		case slots <- struct{}{}:
		}
		n := 1
	more:
		for n < s.cfg.fetchBatch {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		// A pull in progress is not cancelled by Stop: it ends within
		// FetchWait and what it brings is processed.
		batch, err := s.cons.Fetch(n, jetstream.FetchMaxBytes(maxBytes), jetstream.FetchMaxWait(s.cfg.fetchWait))
		got := 0
		if err == nil {
			for m := range batch.Messages() {
				got++
				work <- m
			}
			err = batch.Error()
		}
		for i := got; i < n; i++ {
			<-slots
		}
		if err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
			s.m.FetchErrors.Inc()
			s.log.Warn("pull request failed", "error", publishErrorClass(err))
			select {
			case <-s.stopDur:
				return
			case <-time.After(backoff):
			}
			if backoff < 2*time.Second {
				backoff *= 2
			}
			continue
		}
		backoff = 100 * time.Millisecond
	}
}

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
		reason := "invalid-subject"
		if perr == nil {
			reason = "unknown-kind"
		}
		res := s.reject(s.def, mc, m.Data(), pipeline.CodeInvalidContent, reason, false)
		s.toDLQ(m, mc, res, start)
		return
	}

	// The object of an output too large for a message is named after the
	// input, so a retried attempt overwrites it rather than leave another.
	// The clean message goes out with JetStream publishes that keep it
	// for a retry: its body is not reused.
	res := s.process(s.hardCtx, mc, hdr, m.Data(), "clean."+mc.msgID, false)
	defer res.release()
	if res.retry {
		s.fail(m, mc, res, last, start)
		return
	}
	clean := &nats.Msg{
		Subject: wire.Subject(wire.CleanPrefix, mc.tenantTok, mc.serverTok, string(mc.kind)),
		Header:  outputHeader(mc, res),
		Data:    res.data,
	}
	clean.Header.Set(wire.HeaderMsgID, mc.msgID)
	em := evidenceMsg(mc, res.ev, false)
	em.Header.Set(wire.HeaderMsgID, mc.msgID)
	if err := s.publishAll([]*nats.Msg{clean, em}, []string{wire.StreamClean, wire.StreamEvidence}, mc); err != nil {
		s.fail(m, mc, s.reject(s.def, mc, m.Data(), pipeline.CodeInternal, "publish-failed", true), last, start)
		return
	}
	if err := s.ack(m); err != nil {
		// The outputs are stored; a redelivery republishes them under the
		// same ids, which the streams drop as duplicates.
		s.log.Warn("ack failed; the input will be redelivered and its outputs deduplicated", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.m.observe(PathDurable, res.ev, start)
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
	delay := s.cfg.consumer.delay(mc.deliveries)
	if err := m.NakWithDelay(delay); err != nil {
		s.log.Warn("nak failed; the input comes back after its AckWait", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.log.Info("durable attempt failed; handed back", "kind", string(mc.kind), "code", code, "reason", headerToken(res.ev.Reason), "rawSeq", mc.rawSeq, "delivery", mc.deliveries, "retryIn", delay.String())
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
		res = s.reject(s.def, mc, m.Data(), pipeline.CodeInternal, "publish-failed", true)
		code = codeLabel(res.ev.Code)
	}
	dm := &nats.Msg{Subject: wire.Subject(wire.DLQPrefix, mc.tenantTok), Header: outputHeader(mc, res), Data: res.data}
	dm.Header.Set(wire.HeaderMsgID, mc.msgID)
	dm.Header.Set("Mcp-Raw-Subject", headerToken(m.Subject()))
	dm.Header.Set("Mcp-Deliveries", strconv.FormatUint(mc.deliveries, 10))
	msgs, streams := []*nats.Msg{dm}, []string{wire.StreamDLQ}
	em := evidenceMsg(mc, res.ev, true)
	em.Header.Set(wire.HeaderMsgID, mc.msgID+dlqSuffix)
	msgs, streams = append(msgs, em), append(streams, wire.StreamEvidence)
	if err := s.publishAll(msgs, streams, mc); err != nil {
		s.log.Error("DLQ publish failed; the input stays in MCP_RAW", "rawSeq", mc.rawSeq, "code", code)
		return
	}
	if err := s.ack(m); err != nil {
		s.log.Warn("ack after DLQ failed", "rawSeq", mc.rawSeq, "error", publishErrorClass(err))
	}
	s.m.DLQ.WithLabelValues(code).Inc()
	s.m.Messages.WithLabelValues(PathDurable, kindLabel(mc.kind), OutcomeDLQ).Inc()
	s.m.Duration.WithLabelValues(PathDurable, kindLabel(mc.kind)).Observe(time.Since(start).Seconds())
	s.log.Warn("durable message sent to the DLQ", "kind", string(mc.kind), "code", code, "reason", headerToken(res.ev.Reason), "tenant", mc.tenantTok, "rawSeq", mc.rawSeq, "deliveries", mc.deliveries)
}

// publishAll publishes msgs asynchronously (each to the stream named at the
// same index, which the server checks) and waits for every
// acknowledgement. Any error, including a stream that refuses the message
// (for example 429 when it is flooded, or a full stream), fails the whole.
func (s *Service) publishAll(msgs []*nats.Msg, streams []string, mc *msgContext) error {
	futs := make([]jetstream.PubAckFuture, len(msgs))
	var first error
	for i, pm := range msgs {
		f, err := s.js.PublishMsgAsync(pm, jetstream.WithExpectStream(streams[i]))
		if err != nil {
			s.publishFailed(streams[i], mc, err)
			if first == nil {
				first = err
			}
			continue
		}
		futs[i] = f
	}
	for i, f := range futs {
		if f == nil {
			continue
		}
		if err := s.waitAck(f); err != nil {
			s.publishFailed(streams[i], mc, err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

func (s *Service) ack(m jetstream.Msg) error {
	if s.cfg.ackMode == AckDouble {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.publishTimeout)
		defer cancel()
		return m.DoubleAck(ctx)
	}
	return m.Ack()
}

// keepAlive sends InProgress every third of the AckWait until stopped.
func (s *Service) keepAlive(m jetstream.Msg) func() {
	every := s.cfg.consumer.AckWait() / 3
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// consumerStats copies the durable consumer's fleet-wide counts into gauges.
func (s *Service) consumerStats(ctx context.Context) {
	t := time.NewTicker(s.cfg.statsEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
			info, err := s.cons.Info(ictx)
			cancel()
			if err != nil {
				continue
			}
			s.m.ConsumerAckPend.Set(float64(info.NumAckPending))
			s.m.ConsumerPending.Set(float64(info.NumPending))
			s.m.ConsumerRedelivd.Set(float64(info.NumRedelivered))
		}
	}
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
	case errors.Is(err, jetstream.ErrMsgAlreadyAckd):
		return "already-acked"
	default:
		return "other"
	}
}
