package worker

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Stranded inputs. The worker takes the DLQ decision on the last delivery
// it receives. A last delivery that no worker received (lost with a
// connection, or pulled by a client that never acknowledged it), or whose
// DLQ publish failed, is not delivered again: the server emits a
// max-deliveries advisory and keeps the input, unacknowledged, forever.
// Every worker listens for that advisory in one queue group; the one that
// gets it reads the input by its sequence, publishes its sanitized error
// result to the DLQ (INTERNAL, reason max-deliveries; never the raw body)
// with a DLQ evidence record, under the ids a worker's own DLQ decision
// would use, and deletes the input from MCP_RAW (which the consumer takes
// as an acknowledgement). Under limits retention the input is kept (it is
// the archive) and stays counted as unacknowledged.

// ReasonMaxDeliveries is the evidence reason of an input sent to the DLQ
// from the server's max-deliveries advisory.
const ReasonMaxDeliveries = string(wire.ReasonMaxDeliveries)

// strandedQueue is the queue group of the advisory subscription.
const strandedQueue = "mcp-sanitize-stranded"

// maxDeliveriesAdvisory is the part of the server's advisory the worker
// reads.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// strandedSubject is the advisory subject of the durable consumer.
func (s *Service) strandedSubject() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + wire.StreamRaw + "." + s.cfg.consumer.Durable
}

// subscribeStranded starts the advisory subscription (durable path on).
// Advisories are handled one at a time: they are rare, and each is a
// bounded read, two publishes and a delete.
func (s *Service) subscribeStranded() error {
	sem := make(chan struct{}, 1)
	sub, err := s.nc.QueueSubscribe(s.strandedSubject(), strandedQueue, func(m *nats.Msg) {
		var a maxDeliveriesAdvisory
		if len(m.Data) > 64<<10 || json.Unmarshal(m.Data, &a) != nil || a.Stream != wire.StreamRaw || a.StreamSeq == 0 {
			return
		}
		sem <- struct{}{}
		s.inWG.Add(1)
		go func() {
			defer s.inWG.Done()
			defer func() { <-sem }()
			s.handleStranded(a)
		}()
	})
	if err != nil {
		return err
	}
	s.subs = append(s.subs, sub)
	return nil
}

// handleStranded sends the input of one advisory to the DLQ.
func (s *Service) handleStranded(a maxDeliveriesAdvisory) {
	ctx, cancel := context.WithTimeout(s.hardCtx, 2*s.cfg.publishTimeout)
	defer cancel()
	st, err := s.js.Stream(ctx, wire.StreamRaw)
	if err != nil {
		s.log.Warn("stranded input not read", "rawSeq", a.StreamSeq, "error", publishErrorClass(err))
		return
	}
	raw, err := st.GetMsg(ctx, a.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return // acknowledged or removed meanwhile
	}
	if err != nil {
		s.log.Warn("stranded input not read", "rawSeq", a.StreamSeq, "error", publishErrorClass(err))
		return
	}
	hdr := raw.Header
	if hdr == nil {
		hdr = nats.Header{}
	}
	tenant, server, kind, perr := wire.ParseRaw(raw.Subject)
	if perr != nil {
		tenant, server, kind = rawTokens(raw.Subject)
	}
	mc := newContext(PathDurable, kind, tenant, server, hdr)
	mc.rawSeq, mc.deliveries = a.StreamSeq, a.Deliveries
	mc.msgID = MsgID(a.StreamSeq, raw.Time)
	res := s.reject(s.def, mc, raw.Data, pipeline.CodeInternal, ReasonMaxDeliveries, true)
	dup, err := s.publishDLQ(raw.Subject, mc, res)
	if err != nil {
		s.log.Error("stranded input: DLQ publish failed; it stays in MCP_RAW", "rawSeq", a.StreamSeq)
		return
	}
	if s.cfg.streams.RawRetention == jetstream.WorkQueuePolicy {
		if err := st.DeleteMsg(ctx, a.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			s.log.Warn("stranded input in the DLQ but not deleted from MCP_RAW", "rawSeq", a.StreamSeq, "error", publishErrorClass(err))
		}
		s.releaseClaim(hdr)
	}
	if dup {
		return // its last delivery sent it to the DLQ meanwhile, and counted it
	}
	code := codeLabel(res.ev.Code)
	s.m.DLQ.WithLabelValues(code).Inc()
	s.m.Stranded.Inc()
	s.m.Messages.WithLabelValues(PathDurable, kindLabel(mc.kind), OutcomeDLQ).Inc()
	s.log.Warn("stranded input (max deliveries, last delivery not handled) sent to the DLQ", "kind", string(mc.kind), "code", code, "reason", ReasonMaxDeliveries, "tenant", mc.tenantTok, "rawSeq", mc.rawSeq, "deliveries", mc.deliveries)
}
