package worker

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The evidence chain (docs/evidence-chain.md): with WithEvidenceChain every
// evidence record the service publishes is sealed by package evchain (its
// chain member links it to the record before it), and a signed checkpoint
// of the chain's head goes to ChainCheckpointSubject every checkpoint
// interval and when the service stops.

// ChainCheckpointSubject is where checkpoints are published. It has two
// tokens after the evidence prefix, so no tenant's subject
// (mcp.evidence.<tenant>) is the same, and MCP_EVIDENCE stores it.
const ChainCheckpointSubject = wire.EvidencePrefix + ".chain.checkpoint"

// HeaderChainSeq carries a sealed record's sequence in its chain.
const HeaderChainSeq = "Mcp-Chain-Seq"

// DefaultCheckpointEvery is the default checkpoint interval.
const DefaultCheckpointEvery = 10 * time.Second

// DefaultCheckpointRecords is the default count of records after which a
// checkpoint is published before the interval ends (serve
// --checkpoint-records): at 10,000 records/s a checkpoint every 0.1 s,
// one message of about 300 bytes per 1,000 records.
const DefaultCheckpointRecords = 1000

// WithEvidenceChain seals every evidence record with s and publishes a
// checkpoint every interval (0: DefaultCheckpointEvery) when s has a key.
// A record sealed and then not stored (its publish failed for good, or the
// stream dropped it as the duplicate of a redelivered message's evidence)
// is declared void to the sealer, and the next checkpoint says so.
func WithEvidenceChain(s *evchain.Sealer, every time.Duration) ServeOption {
	return func(c *serveConfig) error {
		if s == nil || every < 0 {
			return optErr("an evidence chain needs a sealer and a non-negative checkpoint interval")
		}
		if every == 0 {
			every = DefaultCheckpointEvery
		}
		c.chain, c.chainEvery = s, every
		c.chainKick = make(chan struct{}, 1)
		return nil
	}
}

// WithCheckpointRecords publishes a checkpoint as soon as n records were
// sealed since the last one, besides the checkpoint interval (0: by time
// only). It bounds the records a cut of the stream's tail could remove
// undetected by count, as the interval bounds them by time.
func WithCheckpointRecords(n int) ServeOption {
	return func(c *serveConfig) error {
		if n < 0 {
			return optErr("checkpoint records must not be negative")
		}
		c.chainRecords = n
		return nil
	}
}

// chainRuntime is the state of the checkpoint loop.
type chainRuntime struct {
	// pending counts the shadow records waiting for their
	// acknowledgement.
	pending sync.WaitGroup
}

// seal seals one record of the chain and asks for a checkpoint when the
// count since the last one is reached.
func (s *Service) seal(data []byte) ([]byte, uint64, error) {
	b, seq, err := s.cfg.chain.Seal(make([]byte, 0, len(data)+192+evchain.MaxChainID), data)
	if err == nil && s.cfg.chainRecords > 0 && s.cfg.chain.Unvouched() >= uint64(s.cfg.chainRecords) {
		select {
		case s.cfg.chainKick <- struct{}{}:
		default: // one is due already
		}
	}
	return b, seq, err
}

// sealedEvidenceMsg builds the evidence message of a pass and seals it
// when the chain is on.
func (s *Service) sealedEvidenceMsg(mc *msgContext, ev *pipeline.Evidence, dlq bool) *nats.Msg {
	m := evidenceMsg(mc, ev, dlq)
	if s.cfg.chain == nil {
		return m
	}
	b, seq, err := s.seal(m.Data)
	if err != nil {
		return m // not an object: cannot happen, the record is built here
	}
	m.Data = b
	m.Header.Set(HeaderChainSeq, strconv.FormatUint(seq, 10))
	mc.chainSeq = seq
	return m
}

// chainVoid declares the sealed evidence record of mc not stored.
func (s *Service) chainVoid(stream string, mc *msgContext) {
	if s.cfg.chain != nil && stream == wire.StreamEvidence && mc.chainSeq != 0 {
		s.cfg.chain.Void(mc.chainSeq)
	}
}

// chainDup voids the sealed evidence record m (if it is one) that the
// stream acknowledged as a duplicate: the evidence of a redelivered
// message, stored by its first delivery.
func (s *Service) chainDup(m *nats.Msg) {
	if s.cfg.chain == nil || m == nil {
		return
	}
	if seq, err := strconv.ParseUint(m.Header.Get(HeaderChainSeq), 10, 64); err == nil && seq != 0 {
		s.cfg.chain.Void(seq)
	}
}

// sealShadow seals a shadow record into the chain (nil m.Data unchanged
// when the chain is off) and returns its sequence.
func (s *Service) sealShadow(m *nats.Msg) uint64 {
	if s.cfg.chain == nil {
		return 0
	}
	b, seq, err := s.seal(m.Data)
	if err != nil {
		return 0
	}
	m.Data = b
	m.Header.Set(HeaderChainSeq, strconv.FormatUint(seq, 10))
	return seq
}

// settleShadow waits for the acknowledgement of a sealed shadow record
// and declares it void when it was not stored (or not known to be: a
// record present and void verifies like any other).
func (s *Service) settleShadow(f jetstream.PubAckFuture, seq uint64) {
	defer s.chainRT.pending.Done()
	t := time.NewTimer(s.cfg.publishTimeout + time.Second)
	defer t.Stop()
	select {
	case <-f.Ok():
		return
	case <-f.Err():
	case <-t.C:
	case <-s.hardCtx.Done():
	}
	s.cfg.chain.Void(seq)
}

// startChain starts the checkpoint loop; the returned func stops it and
// publishes the last checkpoint.
func (s *Service) startChain() func() {
	if s.cfg.chain == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.cfg.chainEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s.publishCheckpoint()
			case <-s.cfg.chainKick:
				s.publishCheckpoint()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		// Shadow records still waiting for their acknowledgement are
		// settled (stored, or declared void) before the last checkpoint.
		s.chainRT.pending.Wait()
		s.publishCheckpoint()
	}
}

// publishCheckpoint publishes a checkpoint of the chain's head, if there
// is anything new. A failure is logged; the next checkpoint vouches for
// everything this one would have (voids included).
func (s *Service) publishCheckpoint() {
	cp := s.cfg.chain.Checkpoint(time.Now())
	if cp == nil || s.nc.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.publishTimeout)
	defer cancel()
	if _, err := s.js.Publish(ctx, ChainCheckpointSubject, cp, jetstream.WithExpectStream(wire.StreamEvidence)); err != nil {
		s.m.PublishFailures.WithLabelValues(wire.StreamEvidence).Inc()
		s.log.Warn("evidence checkpoint not published; the next one covers it", "chain", s.cfg.chain.Chain(), "error", publishErrorClass(err))
	}
}
