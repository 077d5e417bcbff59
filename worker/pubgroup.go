package worker

import (
	"sync/atomic"

	"github.com/nats-io/nats.go"
)

// maxGroup is the most publishes one durable attempt makes: the clean
// output (or DLQ entry) and its evidence record.
const maxGroup = 2

// pubGroup is the publishes of one durable attempt (clean and evidence,
// DLQ and evidence), awaited together: the handler sleeps until the last
// acknowledgement and wakes once, not once per publish. The two
// acknowledgements come from two streams, usually in two reads of the
// connection; waiting for each in turn woke the handler for each (one
// goroutine switch a message more than needed). The outcomes, errors and
// retries are those of publishWait.
type pubGroup struct {
	n    int
	ids  [maxGroup]uint64
	w    [maxGroup]ackWait
	acks [maxGroup]pubAck
	sent [maxGroup]bool
	// left counts the publishes not yet settled; the one that settles
	// the last sends on done.
	left atomic.Int32
	done chan struct{}
}

// settle records the outcome of publish i; the last one wakes the waiter.
// The outcome is written before the count drops, so the waiter, woken by
// the last drop, reads every outcome.
func (g *pubGroup) settle(i int, a pubAck) {
	g.acks[i] = a
	if g.left.Add(-1) == 0 {
		g.done <- struct{}{} // buffered: sent once
	}
}

// publishGroup sends msgs (at most maxGroup), each to the stream of the
// same index, and waits for every outcome, or for a reconnection or the
// hard stop (then the publishes still unanswered fail with
// errReconnected or context.Canceled). errs[i] is publish i's error, dups
// whether the stream already held it.
func (s *Service) publishGroup(msgs []*nats.Msg, streams []string) (errs [maxGroup]error, dups [maxGroup]bool) {
	g := &pubGroup{n: len(msgs), done: make(chan struct{}, 1)}
	g.left.Store(int32(len(msgs)))
	rc := s.health.reconnectCh()
	for i, pm := range msgs {
		g.w[i].g, g.w[i].gi = g, i
		id, err := s.pubs.send(&g.w[i], pm, streams[i])
		if err != nil {
			// Not registered: nobody else settles it.
			g.acks[i] = pubAck{err: err}
			g.left.Add(-1)
			continue
		}
		g.ids[i], g.sent[i] = id, true
	}
	if g.left.Load() > 0 {
		var cause error
		select {
		case <-g.done:
		case <-rc:
			cause = errReconnected
		case <-s.hardCtx.Done():
			cause = s.hardCtx.Err()
		}
		if cause != nil {
			// Fail what is still pending; what a settler took already is
			// about to be settled: wait for it.
			last := false
			for i := range g.n {
				if g.sent[i] && s.pubs.take(g.ids[i]) != nil {
					g.acks[i] = pubAck{err: cause}
					last = g.left.Add(-1) == 0
				}
			}
			if !last && g.left.Load() > 0 {
				<-g.done
			}
		}
	}
	for i := range g.n {
		errs[i], dups[i] = g.acks[i].err, g.acks[i].dup
		if errs[i] == nil && dups[i] {
			s.chainDup(msgs[i])
		}
	}
	return errs, dups
}
