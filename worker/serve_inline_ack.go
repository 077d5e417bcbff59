package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The inline path's evidence acknowledgements. Each inline message
// publishes its evidence record to MCP_EVIDENCE with a reply subject, as
// a JetStream asynchronous publish does, and the stream's acknowledgement
// settles the message on the reply subscription's goroutine. The
// JetStream context's PublishMsgAsync did the same with a future (two
// channels), a timer per publish, a reflective decoding of every
// acknowledgement and a hand-off to a waiter goroutine: about 11 µs of
// CPU a message, a twentieth of an inline 4 KiB message's whole cost
// (docs/benchmarks.md, "Issue 35, worker"). What a reader of the stream
// sees is unchanged: same subject, headers (Nats-Expected-Stream
// included) and body; failures are counted and logged as before, with
// the same classes (publishErrorClass):
//
//   - the stream's error answer (an APIError), an acknowledgement that is
//     not one (jetstream.ErrInvalidJSAck);
//   - no responders (the stream is missing or has no leader): published
//     again after DefaultPubRetryWait, at most DefaultPubRetryAttempts
//     times, then jetstream.ErrNoStreamResponse;
//   - no answer within the publish timeout: jetstream.ErrAsyncPublishTimeout;
//   - the connection reconnecting or closed: nats.ErrDisconnected (the
//     answer may be lost with it), as the JetStream context does;
//   - the service's hard stop: context.Canceled.

// inlineEv is one inline message whose evidence acknowledgement is
// awaited. Two references keep it open, the slot's (until the reply and
// the archive are done) and the acknowledgement's; whichever goes last
// finishes the message (finishInline).
type inlineEv struct {
	mc  *msgContext
	hdr nats.Header
	// err is the publish's failure, written before the acknowledgement's
	// reference is dropped.
	err  error
	refs atomic.Int32
	// Under evAcks.mu: the message (kept for a publish again after no
	// responders), when it times out, the publishes made again.
	msg      *nats.Msg
	deadline time.Time
	retries  int
}

// evAcks publishes inline evidence records and settles their
// acknowledgements.
type evAcks struct {
	s       *Service
	prefix  string // reply subjects: prefix + base-36 id
	sub     *nats.Subscription
	status  chan nats.Status
	timeout time.Duration

	mu      sync.Mutex
	closed  bool
	next    uint64
	pending map[uint64]*inlineEv
}

// Retries after no responders, as the JetStream context's defaults.
const (
	evRetryWait     = jetstream.DefaultPubRetryWait
	evRetryAttempts = jetstream.DefaultPubRetryAttempts
)

// startEvAcks subscribes the reply subjects and starts the loop that
// times acknowledgements out; both end at the service's hard stop (the
// end of Stop, once every message is settled).
func (s *Service) startEvAcks() (*evAcks, error) {
	e := &evAcks{s: s, prefix: s.nc.NewInbox() + ".", timeout: s.cfg.publishTimeout, pending: make(map[uint64]*inlineEv)}
	sub, err := s.nc.Subscribe(e.prefix+"*", e.onAck)
	if err != nil {
		return nil, err
	}
	// Bounded by evSem (inlineAckBudget): never more than that pending.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	e.sub = sub
	e.status = s.nc.StatusChanged(nats.RECONNECTING, nats.CLOSED)
	go e.loop()
	return e, nil
}

// publish sends the evidence record m of ie. A publish that fails at once
// settles ie's acknowledgement with the error.
func (e *evAcks) publish(ie *inlineEv, m *nats.Msg) {
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	m.Header.Set(jetstream.ExpectedStreamHeader, wire.StreamEvidence)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.settle(ie, context.Canceled)
		return
	}
	id := e.next
	e.next++
	ie.msg = m
	ie.deadline = time.Now().Add(e.timeout)
	e.pending[id] = ie
	e.mu.Unlock()
	m.Reply = e.prefix + strconv.FormatUint(id, 36)
	if err := e.s.nc.PublishMsg(m); err != nil {
		if e.take(id) != nil {
			e.settle(ie, err)
		}
	}
}

// take removes and returns the message waiting for id (nil: settled).
func (e *evAcks) take(id uint64) *inlineEv {
	e.mu.Lock()
	defer e.mu.Unlock()
	ie := e.pending[id]
	delete(e.pending, id)
	return ie
}

// onAck settles the message an acknowledgement answers.
func (e *evAcks) onAck(m *nats.Msg) {
	if len(m.Subject) <= len(e.prefix) {
		return
	}
	id, err := strconv.ParseUint(m.Subject[len(e.prefix):], 36, 64)
	if err != nil {
		return
	}
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		e.noResponders(id)
		return
	}
	if ie := e.take(id); ie != nil {
		e.settle(ie, pubAckError(m.Data))
	}
}

// noResponders publishes the record of id again after evRetryWait, or
// settles it with jetstream.ErrNoStreamResponse once the attempts are
// spent.
func (e *evAcks) noResponders(id uint64) {
	e.mu.Lock()
	ie := e.pending[id]
	if ie == nil {
		e.mu.Unlock()
		return
	}
	if ie.retries >= evRetryAttempts {
		delete(e.pending, id)
		e.mu.Unlock()
		e.settle(ie, jetstream.ErrNoStreamResponse)
		return
	}
	ie.retries++
	ie.deadline = time.Now().Add(evRetryWait + e.timeout)
	m := ie.msg
	e.mu.Unlock()
	time.AfterFunc(evRetryWait, func() {
		e.mu.Lock()
		still := e.pending[id] == ie
		e.mu.Unlock()
		if !still {
			return
		}
		if err := e.s.nc.PublishMsg(m); err != nil {
			if e.take(id) != nil {
				e.settle(ie, err)
			}
		}
	})
}

// pubAckPrefix starts every acknowledgement that stored a message: the
// server writes its PubAck with the stream first.
var pubAckPrefix = []byte(`{"stream":"`)

// pubAckError reads a JetStream publish acknowledgement: nil when the
// message is stored (a duplicate included), the stream's APIError, or
// jetstream.ErrInvalidJSAck. The common answer is recognized without
// decoding it; anything else is decoded as the JetStream context does.
func pubAckError(data []byte) error {
	if bytes.HasPrefix(data, pubAckPrefix) && len(data) > len(pubAckPrefix) && data[len(pubAckPrefix)] != '"' &&
		!bytes.Contains(data, []byte(`"error"`)) {
		return nil
	}
	var r struct {
		Error  *jetstream.APIError `json:"error"`
		Stream string              `json:"stream"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return jetstream.ErrInvalidJSAck
	}
	if r.Error != nil {
		return r.Error
	}
	if r.Stream == "" {
		return jetstream.ErrInvalidJSAck
	}
	return nil
}

// loop times acknowledgements out, fails them when the connection
// reconnects or closes, and cancels what is left at the hard stop.
func (e *evAcks) loop() {
	every := min(time.Second, max(e.timeout/4, 10*time.Millisecond))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			e.failAll(jetstream.ErrAsyncPublishTimeout, now)
		case <-e.status:
			e.failAll(nats.ErrDisconnected, time.Time{})
		case <-e.s.hardCtx.Done():
			e.mu.Lock()
			e.closed = true
			e.mu.Unlock()
			e.failAll(context.Canceled, time.Time{})
			e.s.nc.RemoveStatusListener(e.status)
			_ = e.sub.Unsubscribe()
			return
		}
	}
}

// failAll settles with err every message pending whose deadline is before
// now (zero now: every one).
func (e *evAcks) failAll(err error, now time.Time) {
	var due []*inlineEv
	e.mu.Lock()
	for id, ie := range e.pending {
		if now.IsZero() || now.After(ie.deadline) {
			due = append(due, ie)
			delete(e.pending, id)
		}
	}
	e.mu.Unlock()
	for _, ie := range due {
		e.settle(ie, err)
	}
}

// settle records the acknowledgement's outcome and drops its reference.
func (e *evAcks) settle(ie *inlineEv, err error) {
	ie.err = err
	e.s.unrefInline(ie)
}

// unrefInline drops one reference of ie; the last finishes the message:
// a failed evidence publish is counted, the message counts as processed,
// its claim is released, and Stop no longer waits for it. A claim's
// release (an Object Store delete) runs on a goroutine of its own, so that
// it does not hold the acknowledgements behind it.
func (s *Service) unrefInline(ie *inlineEv) {
	if ie.refs.Add(-1) != 0 {
		return
	}
	finish := func() {
		defer func() { <-s.evSem; s.inWG.Done() }()
		if ie.err != nil {
			s.publishFailed(wire.StreamEvidence, ie.mc, ie.err)
		}
		s.processed.Add(1)
		s.releaseClaim(ie.hdr)
	}
	if s.store != nil && payload.IsClaim(ie.hdr) {
		go finish()
		return
	}
	finish()
}
