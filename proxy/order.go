package proxy

import (
	"context"
	"sync"
)

// This file runs the server messages of one session through their passes
// concurrently and delivers what they give in an order the client can rely
// on (docs/proxy.md, "Order"):
//
//   - Ordered messages (notifications, server requests, and what is
//     refused before a pass: lines that are not one JSON-RPC message,
//     messages over the bound) are delivered in the order the server
//     wrote them.
//   - A response is delivered once every ordered message the server wrote
//     before it has been delivered (or dropped): a progress or log
//     notification, or a sampling request, that came before a result is
//     never overtaken by it.
//   - Responses may overtake each other and the ordered messages written
//     after them (JSON-RPC pairs a response with its request by id, not by
//     position): a slow large tool result holds back neither the other
//     results nor the notifications that follow it.
//
// At most MaxInFlight messages, and MaxInFlightBytes of them (one message
// alone is always admitted), are held between being read and being
// delivered; the reader waits for room, so the memory of a session stays
// bounded and a server that writes faster than its messages are sanitized
// is slowed down by the pipe, never queued without limit.

// orderer is the in-flight state of one session's server messages. Its
// zero value is not ready: use newOrderer.
type orderer struct {
	deliver  func(Routed)
	maxN     int
	maxBytes int64

	mu    sync.Mutex
	room  *sync.Cond
	n     int
	bytes int64
	// last is the link of the last ordered message submitted so far; a
	// message submitted next is delivered after it.
	last *link
	// waiting counts messages whose pass is done and that wait for an
	// earlier ordered message, done those delivered (tests observe them).
	waiting, done int

	wg sync.WaitGroup
}

// link is an ordered message's place in the order: ch closes once it is
// delivered; waiters is how many messages wait for it (q.mu held).
type link struct {
	ch      chan struct{}
	waiters int
}

func newOrderer(o Options, deliver func(Routed)) *orderer {
	first := &link{ch: make(chan struct{})}
	close(first.ch)
	q := &orderer{deliver: deliver, maxN: o.MaxInFlight, maxBytes: o.MaxInFlightBytes, last: first}
	q.room = sync.NewCond(&q.mu)
	return q
}

// submit runs run (a message's pass and routing) on a goroutine of its own
// once there is room, and delivers its result by the ordering rule:
// ordered says whether the message keeps its place among the ordered
// ones, size is the memory it holds until delivered. submit blocks while
// the bounds are full; it is called from one goroutine (the reader of the
// server's messages), in the order the server wrote them.
func (q *orderer) submit(ordered bool, size int, run func() Routed) {
	if q.maxN == 1 {
		// One at a time: the reader runs the pass itself (no goroutine
		// to hand over to), which is the same order.
		q.deliver(run())
		q.mu.Lock()
		q.done++
		q.mu.Unlock()
		return
	}
	q.mu.Lock()
	for q.n > 0 && (q.n >= q.maxN || q.bytes+int64(size) > q.maxBytes) {
		q.room.Wait()
	}
	q.n++
	q.bytes += int64(size)
	prev := q.last
	var mine *link
	if ordered {
		mine = &link{ch: make(chan struct{})}
		q.last = mine
	}
	q.mu.Unlock()
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		r := run()
		q.mu.Lock()
		select {
		case <-prev.ch:
			q.mu.Unlock()
		default:
			prev.waiters++
			q.waiting++
			q.mu.Unlock()
			<-prev.ch
		}
		q.deliver(r)
		q.mu.Lock()
		if mine != nil {
			// The messages waiting for this one stop waiting now, in the
			// same step as it is counted delivered.
			close(mine.ch)
			q.waiting -= mine.waiters
		}
		q.n--
		q.done++
		q.bytes -= int64(size)
		q.room.Signal()
		q.mu.Unlock()
	}()
}

// wait returns once every submitted message has been delivered.
func (q *orderer) wait() { q.wg.Wait() }

// submitServer submits one server message (msg, owned by the queue from
// now on) of sess: its pass is FromServer's.
func (q *orderer) submitServer(ctx context.Context, sess *Session, msg []byte) {
	e := peek(msg)
	sess.markProgress(&e)
	q.submit(e.typ != msgResponse, len(msg), func() Routed {
		return sess.fromServer(ctx, e, msg, nil)
	})
}
