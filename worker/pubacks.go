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

// The inline path's evidence publishes and their acknowledgements. Each
// record is published with a reply subject, as a JetStream asynchronous
// publish does, and the stream's acknowledgement settles the inline
// message (its evidence record stored, the message finished) on the reply
// subscription's goroutine. The JetStream context's PublishMsgAsync did
// the same with a future (two channels), a timer per publish, a
// reflective decoding of every acknowledgement and a hand-off to a waiter
// goroutine: about 11 µs of CPU a message, a twentieth of an inline 4 KiB
// message's whole cost (docs/benchmarks.md, "Issue 35, worker"). What a
// reader of MCP_EVIDENCE sees is unchanged: same subject, headers
// (Nats-Expected-Stream included) and body; failures have the same
// errors, hence the same classes (publishErrorClass):
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
//
// The durable path's publishes (clean, evidence, DLQ) go through the same
// subscription (publishWait): the acknowledgement is handed to the
// handler waiting for it on a buffered channel, with the same errors, so
// the same classes and retries (transientPublish).

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
	// w is the evidence record's publish: held here, so that a message
	// allocates one object for its acknowledgement, not three.
	w ackWait
}

// pubAck is the outcome of one publish: stored (dup: the stream had the
// message's Nats-Msg-Id already) or failed.
type pubAck struct {
	dup bool
	err error
}

// ackWait is one publish awaited: exactly one of ie (an inline message's
// evidence record) and ch (a waiting publisher; buffered, one outcome).
// msg is what is published (with its reply subject), kept for a publish
// again after no responders.
type ackWait struct {
	ie       *inlineEv
	ch       chan pubAck
	msg      nats.Msg
	deadline time.Time
	retries  int
}

// evAcks publishes to the streams and settles the acknowledgements.
type evAcks struct {
	s       *Service
	prefix  string // reply subjects: prefix + base-36 id
	sub     *nats.Subscription
	status  chan nats.Status
	timeout time.Duration

	mu      sync.Mutex
	closed  bool
	next    uint64
	pending map[uint64]*ackWait
}

// Retries after no responders, as the JetStream context's defaults.
const (
	evRetryWait     = jetstream.DefaultPubRetryWait
	evRetryAttempts = jetstream.DefaultPubRetryAttempts
)

// startEvAcks subscribes the reply subjects and starts the loop that
// times acknowledgements out; both end at the service's hard stop (the
// end of Stop, once every message is settled). The subscription is made
// before the paths start, so no acknowledgement can come before it.
func (s *Service) startEvAcks() (*evAcks, error) {
	e := &evAcks{s: s, prefix: s.nc.NewInbox() + ".", timeout: s.cfg.publishTimeout, pending: make(map[uint64]*ackWait)}
	sub, err := s.nc.Subscribe(e.prefix+"*", e.onAck)
	if err != nil {
		return nil, err
	}
	// Bounded by the paths: inlineAckBudget inline, two a durable slot.
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
	ie.w.ie = ie
	if _, err := e.send(&ie.w, m, wire.StreamEvidence); err != nil {
		e.settle(&ie.w, pubAck{err: err})
	}
}

// publishWait sends m to stream and returns the channel of its outcome and
// the function that stops waiting for it (the outcome is then dropped).
func (e *evAcks) publishWait(m *nats.Msg, stream string) (<-chan pubAck, func(), error) {
	w := &ackWait{ch: make(chan pubAck, 1)}
	id, err := e.send(w, m, stream)
	if err != nil {
		return nil, nil, err
	}
	return w.ch, func() { e.take(id) }, nil
}

// send registers w and publishes m to stream with a reply subject of its
// own. m itself is left as it is but for its Nats-Expected-Stream header
// (set once, only read by the sends after it), so that a caller may send
// it again while an earlier send's retry still reads it.
func (e *evAcks) send(w *ackWait, m *nats.Msg, stream string) (uint64, error) {
	if m.Header == nil {
		m.Header = nats.Header{}
	}
	if m.Header.Get(jetstream.ExpectedStreamHeader) != stream {
		m.Header.Set(jetstream.ExpectedStreamHeader, stream)
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return 0, context.Canceled
	}
	id := e.next
	e.next++
	w.msg = nats.Msg{Subject: m.Subject, Reply: e.prefix + strconv.FormatUint(id, 36), Header: m.Header, Data: m.Data}
	w.deadline = time.Now().Add(e.timeout)
	e.pending[id] = w
	e.mu.Unlock()
	if err := e.s.nc.PublishMsg(&w.msg); err != nil {
		e.take(id)
		return 0, err
	}
	return id, nil
}

// take removes and returns the publish waiting for id (nil: settled).
func (e *evAcks) take(id uint64) *ackWait {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.pending[id]
	delete(e.pending, id)
	return w
}

// onAck settles the publish an acknowledgement answers.
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
	if w := e.take(id); w != nil {
		e.settle(w, readPubAck(m.Data))
	}
}

// noResponders publishes the message of id again after evRetryWait, or
// settles it with jetstream.ErrNoStreamResponse once the attempts are
// spent.
func (e *evAcks) noResponders(id uint64) {
	e.mu.Lock()
	w := e.pending[id]
	if w == nil {
		e.mu.Unlock()
		return
	}
	if w.retries >= evRetryAttempts {
		delete(e.pending, id)
		e.mu.Unlock()
		e.settle(w, pubAck{err: jetstream.ErrNoStreamResponse})
		return
	}
	w.retries++
	w.deadline = time.Now().Add(evRetryWait + e.timeout)
	m := &w.msg
	e.mu.Unlock()
	time.AfterFunc(evRetryWait, func() {
		e.mu.Lock()
		still := e.pending[id] == w
		e.mu.Unlock()
		if !still {
			return
		}
		if err := e.s.nc.PublishMsg(m); err != nil {
			if e.take(id) != nil {
				e.settle(w, pubAck{err: err})
			}
		}
	})
}

// readPubAck reads a JetStream publish acknowledgement: stored (and
// whether as a duplicate), the stream's APIError, or
// jetstream.ErrInvalidJSAck. The answer of a stored message that is no
// duplicate, as the server writes it (`{"stream":"S","seq":N}`, with
// `"domain":"D",` before seq in a domain), is recognized without decoding
// it (pubAckPlain); anything else is decoded as the JetStream context
// does (FuzzReadPubAck compares the two).
func readPubAck(data []byte) pubAck {
	if pubAckPlain(data) {
		return pubAck{}
	}
	// The shape the JetStream context decodes (its pubAckResponse: the
	// API response's type and error, and the PubAck), so that what it
	// refuses (a member of the wrong type included) is refused here.
	var r struct {
		Type  string              `json:"type"`
		Error *jetstream.APIError `json:"error,omitempty"`
		*jetstream.PubAck
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return pubAck{err: jetstream.ErrInvalidJSAck}
	}
	if r.Error != nil {
		return pubAck{err: r.Error}
	}
	if r.PubAck == nil || r.Stream == "" {
		return pubAck{err: jetstream.ErrInvalidJSAck}
	}
	return pubAck{dup: r.Duplicate}
}

// pubAckPlain reports whether data is exactly a plain acknowledgement:
// `{"stream":"S","seq":N}` or `{"stream":"S","domain":"D","seq":N}`, S
// not empty, S and D without quote, backslash or control byte, N a JSON
// number of at most 19 digits (it fits a uint64).
func pubAckPlain(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(`{"stream":"`))
	if !ok {
		return false
	}
	name := func(b []byte) (int, bool) {
		for i, c := range b {
			switch {
			case c == '"':
				return i, true
			case c == '\\' || c < 0x20:
				return 0, false
			}
		}
		return 0, false
	}
	n, ok := name(rest)
	if !ok || n == 0 {
		return false
	}
	rest = rest[n+1:]
	if r, ok := bytes.CutPrefix(rest, []byte(`,"domain":"`)); ok {
		if n, ok = name(r); !ok {
			return false
		}
		rest = r[n+1:]
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"seq":`))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return false
	}
	digits := rest[:len(rest)-1]
	if len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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
	var due []*ackWait
	e.mu.Lock()
	for id, w := range e.pending {
		if now.IsZero() || now.After(w.deadline) {
			due = append(due, w)
			delete(e.pending, id)
		}
	}
	e.mu.Unlock()
	for _, w := range due {
		e.settle(w, pubAck{err: err})
	}
}

// settle hands the outcome of w's publish to its publisher, or records
// it for an inline message and drops the acknowledgement's reference.
func (e *evAcks) settle(w *ackWait, a pubAck) {
	if w.ch != nil {
		w.ch <- a // buffered: settled once
		return
	}
	w.ie.err = a.err
	e.s.unrefInline(w.ie)
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
	if s.store != nil && payload.IsClaim(ie.hdr) {
		go s.finishInline(ie)
		return
	}
	s.finishInline(ie)
}

// finishInline finishes an inline message whose references are all gone.
func (s *Service) finishInline(ie *inlineEv) {
	defer func() { <-s.evSem; s.inWG.Done() }()
	if ie.err != nil {
		s.publishFailed(wire.StreamEvidence, ie.mc, ie.err)
	}
	s.processed.Add(1)
	s.releaseClaim(ie.hdr)
}
