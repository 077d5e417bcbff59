package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// What the durable path does when the connection to its server is lost or
// the server goes into lame-duck mode, so that no input waits out its
// AckWait for a cause that is not its own:
//
//   - An acknowledgement written just before the connection broke may never
//     have reached the server (plain acks are not confirmed), and one that
//     reached a consumer leader just before it stepped down may not have
//     been replicated. The last acknowledgements are remembered and sent
//     again after a reconnect or a change of the consumer's leader, once a
//     pull has been answered (so a leader is there to take them); the
//     server ignores an acknowledgement of an acknowledged message.
//   - An output publish whose acknowledgement was lost with the connection
//     is sent again as soon as the client has reconnected (same
//     Nats-Msg-Id: the stream keeps one copy), instead of failing the
//     attempt after the publish timeout and waiting a back-off step.
//     Publishes that fail for a cluster cause (no responder during an
//     election, a timeout, a connection error) are retried within the
//     attempt for up to the publish timeout, and so is a resolver that is
//     unavailable (the tool catalog's bucket during an election).
//   - On lame-duck mode (LameDuck, from the connection's
//     LameDuckModeHandler) the loop stops pulling, lets its pull request
//     end and the messages received finish while the server still serves
//     the connection, and then moves the connection to another server
//     before it pulls again, so no delivery is in transit when the
//     connection moves. If the server closes the connection first (its
//     grace period is shorter than the drain), the client is already
//     elsewhere and is not moved again: the handling alone lets pulling
//     resume, so a move never cuts a pull sent after the notice
//     (docs/nats.md, "The lame-duck contract").

const (
	// ackRingSize is how many recent acknowledgements are remembered
	// (about 100 bytes each).
	ackRingSize = 16384
	// reackWindow is how long before a disconnection an acknowledgement
	// is sent again after the reconnect.
	reackWindow = 3 * time.Second
	// lameDuckDrain bounds the wait for the messages received to finish
	// when the server enters lame-duck mode, once the pull outstanding has
	// ended (the server's default grace period is 10 s).
	lameDuckDrain = 5 * time.Second
	// lameDuckPause bounds how long pulling stays paused in lame-duck mode
	// if no reconnection comes.
	lameDuckPause = 15 * time.Second
)

// ackRing remembers the reply subjects of recent acknowledgements.
type ackRing struct {
	mu      sync.Mutex
	replies [ackRingSize]string
	at      [ackRingSize]int64
	next    int
}

func (r *ackRing) add(reply string) {
	if reply == "" {
		return
	}
	now := time.Now().UnixNano()
	r.mu.Lock()
	r.replies[r.next], r.at[r.next] = reply, now
	r.next = (r.next + 1) % ackRingSize
	r.mu.Unlock()
}

// since returns the replies acknowledged at or after t.
func (r *ackRing) since(t int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for i := range r.replies {
		if r.replies[i] != "" && r.at[i] >= t {
			out = append(out, r.replies[i])
		}
	}
	return out
}

// onReconnect asks for the acknowledgements of the last reackWindow
// before the disconnection to be sent again.
func (s *Service) onReconnect() {
	if lost := s.health.disconnectedAt.Load(); lost != 0 {
		s.askReack(lost - int64(reackWindow))
	}
}

// askReack asks the pull loop to send the acknowledgements made since
// (UnixNano) again after its next answered pull.
func (s *Service) askReack(since int64) {
	if s.cfg.ackMode == AckDouble {
		return
	}
	for {
		cur := s.reackSince.Load()
		if cur != 0 && cur <= since {
			return
		}
		if s.reackSince.CompareAndSwap(cur, since) {
			return
		}
	}
}

// reack sends the acknowledgements asked for by askReack.
func (s *Service) reack() {
	since := s.reackSince.Swap(0)
	if since == 0 {
		return
	}
	replies := s.acks.since(since)
	for _, r := range replies {
		if s.nc.Publish(r, []byte("+ACK")) != nil {
			return
		}
	}
	if len(replies) > 0 {
		s.m.Reacks.Add(float64(len(replies)))
		s.log.Info("acknowledgements sent again after a reconnect or a new consumer leader", "count", len(replies))
	}
}

// errCodeDuplicateInProcess is the server's JSStreamDuplicateMessageConflict.
const errCodeDuplicateInProcess = 10158

// errReconnected: the client reconnected while an acknowledgement was
// awaited (it may have been lost with the old connection).
var errReconnected = errors.New("worker: reconnected while waiting for a publish acknowledgement")

// transientPublish reports whether a publish error has a cluster cause that
// a retry within the attempt may get past.
func transientPublish(err error) bool {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, errReconnected):
		return true
	case errors.As(err, &api):
		// 503: no stream leader yet. 409 with error code 10158
		// (JSStreamDuplicateMessageConflict, "duplicate message id is in
		// process"): a resend arrived while the stream still replicates
		// the first publish of the same Nats-Msg-Id; once it is stored the
		// resend is answered as a duplicate.
		return api.Code == 503 || api.ErrorCode == errCodeDuplicateInProcess
	}
	switch publishErrorClass(err) {
	case "timeout", "no-responders", "connection":
		return true
	}
	return false
}

// waitPub waits for the outcome of a publish (pubacks.go), or reports
// errReconnected when the client reconnects first; a stored message that
// the stream already held (its Nats-Msg-Id) is a duplicate. m is the
// message, whose chain record (if sealed) a duplicate voids. stop ends
// the wait for an outcome that did not come.
func (s *Service) waitPub(m *nats.Msg, ch <-chan pubAck, stop func(), reconnected <-chan struct{}) (dup bool, err error) {
	select {
	case a := <-ch:
		if a.err == nil && a.dup {
			s.chainDup(m)
		}
		return a.dup, a.err
	case <-reconnected:
		stop()
		return false, errReconnected
	case <-s.hardCtx.Done():
		stop()
		return false, context.Canceled
	}
}

// publishDurable publishes msgs (each to the stream at the same index)
// and waits for every acknowledgement; a publish that fails for a cluster
// cause is sent again within the cluster retry window (republish).
func (s *Service) publishDurable(msgs []*nats.Msg, streams []string, mc *msgContext) error {
	_, err := s.publishDurableDup(msgs, streams, mc)
	return err
}

// publishDurableDup is publishDurable that also says whether the first
// message was a duplicate its stream already held (a DLQ entry published
// twice for one input: by its last delivery and by the max-deliveries
// advisory of that delivery, when it outlived its AckWait).
func (s *Service) publishDurableDup(msgs []*nats.Msg, streams []string, mc *msgContext) (firstDup bool, _ error) {
	chs := make([]<-chan pubAck, len(msgs))
	stops := make([]func(), len(msgs))
	errs := make([]error, len(msgs))
	rc := s.health.reconnectCh()
	for i, pm := range msgs {
		chs[i], stops[i], errs[i] = s.pubs.publishWait(pm, streams[i])
	}
	for i, ch := range chs {
		if errs[i] == nil {
			var dup bool
			dup, errs[i] = s.waitPub(msgs[i], ch, stops[i], rc)
			if i == 0 {
				firstDup = dup
			}
		}
	}
	var first error
	for i, err := range errs {
		if err != nil && transientPublish(err) {
			err = s.republish(msgs[i], streams[i], err, mc.deliveries)
		}
		if err != nil {
			s.publishFailed(streams[i], mc, err)
			if first == nil {
				first = err
			}
		}
	}
	return firstDup, first
}

// electionWindow is how long a publish that fails for a cluster cause (no
// responders, a 503) is sent again within an attempt, at least: long
// enough for the election of a stream leader that was lost. nats-server's Raft (v2.15.2, raft.go: minElectionTimeout
// and maxElectionTimeout) calls an election 4 to 9 s after the last
// heartbeat of a lost leader, and a split vote costs another such wait;
// until then the stream has no leader and every publish to it finds no
// responders. With the retries bounded by a publish timeout shorter than
// that (the cluster test's 5 s), an election handed the inputs in flight
// back for a whole back-off step (30 s there), and processing stalled far
// beyond the election (docs/nats.md, "A restart, a lame duck or a leader
// election").
const electionWindow = 20 * time.Second

// clusterRetryWindow returns how long, from its first failure, a publish
// that fails for a cluster cause is sent again within an attempt of an
// input delivered deliveries times: the publish timeout,
// or electionWindow if longer, but never longer than the back-off step a
// hand-back would wait (RetryAfter): beyond it, handing the input back
// brings the next attempt no sooner than trying again does. While it
// retries, the input's keep-alive holds it (keepAlive).
func (c *serveConfig) clusterRetryWindow(deliveries uint64) time.Duration {
	return max(c.publishTimeout, min(electionWindow, c.consumer.RetryAfter(deliveries)))
}

// clusterRetryMax is the longest clusterRetryWindow of any delivery.
func (c *serveConfig) clusterRetryMax() time.Duration {
	w := c.publishTimeout
	for k := 1; k <= c.consumer.MaxDeliver; k++ {
		w = max(w, c.clusterRetryWindow(uint64(k)))
	}
	return w
}

// republish sends pm again after a publish failure with a cluster cause
// (err), for as long as the failures keep that cause and for at most the
// cluster retry window (clusterRetryWindow) after the first failure: an
// election of a stream leader takes up to 9 s and more, a reconnect less.
func (s *Service) republish(pm *nats.Msg, stream string, err error, deliveries uint64) error {
	until := time.Now().Add(s.cfg.clusterRetryWindow(deliveries))
	pause := 50 * time.Millisecond
	for transientPublish(err) && time.Now().Before(until) && s.hardCtx.Err() == nil {
		if !errors.Is(err, errReconnected) {
			select {
			case <-s.health.reconnectCh():
			case <-time.After(pause):
			case <-s.hardCtx.Done():
			}
			pause = min(2*pause, time.Second)
		}
		s.m.PublishRetries.WithLabelValues(stream).Inc()
		rc := s.health.reconnectCh()
		var ch <-chan pubAck
		var stop func()
		if ch, stop, err = s.pubs.publishWait(pm, stream); err == nil {
			_, err = s.waitPub(pm, ch, stop, rc)
		}
	}
	return err
}

// LameDuck is called when the server of the connection enters lame-duck
// mode (nats.LameDuckModeHandler): pulling pauses, the pull request
// outstanding ends, the messages received finish while the server still
// serves the connection, the connection moves to another server, and
// pulling resumes there (moveOffLameDuck).
func (s *Service) LameDuck() {
	// Before Start has finished (serve hands the notice on from the
	// connection's creation) and after Stop there is no pull loop to
	// pause, and the handling needs the service's stop context.
	if !s.cfg.durable || !s.ready.Load() {
		return
	}
	id := s.ldmConn().ConnectedServerId()
	s.ldmMu.Lock()
	if s.ldmServers == nil {
		s.ldmServers = make(map[string]bool)
	}
	s.ldmServers[id] = true
	handling := s.lameDuck.Swap(true)
	s.ldmMu.Unlock()
	if handling {
		// The handling under way looks at the server it ends on.
		return
	}
	s.log.Warn("NATS server in lame-duck mode: finishing the pull and the messages in flight, then moving to another server")
	go s.handleLameDuck()
}

// lameDuckConn is what the lame-duck handling uses of the connection.
type lameDuckConn interface {
	ConnectedServerId() string
	FlushWithContext(context.Context) error
	ForceReconnect() error
}

// ldmConn returns the connection the lame-duck handling works on: the
// service's own, or the one a test set in ldmNC.
func (s *Service) ldmConn() lameDuckConn {
	if s.ldmNC != nil {
		return s.ldmNC
	}
	return s.nc
}

// handleLameDuck moves the connection off servers in lame-duck mode, then
// lets the pull loop resume. It alone clears lameDuck, so no pull request
// is outstanding while it moves the connection: a pull's deliveries on
// their way through the old server when the connection moves reach
// nobody, and come back only after their AckWait.
func (s *Service) handleLameDuck() {
	for range 3 {
		from := s.ldmConn().ConnectedServerId()
		s.ldmMu.Lock()
		again := s.ldmServers[from]
		if !again {
			s.ldmServers = nil
			s.lameDuck.Store(false)
		}
		s.ldmMu.Unlock()
		if !again {
			return
		}
		s.moveOffLameDuck(from)
	}
	// Three servers in a row in lame-duck mode: pull wherever the
	// connection is; the next notice starts over.
	s.ldmMu.Lock()
	s.ldmServers = nil
	s.lameDuck.Store(false)
	s.ldmMu.Unlock()
}

// moveOffLameDuck waits for the pull request outstanding to end (its own
// bound: FetchWait, plus pullGrace when its status is lost), then for the
// messages received to finish (at most lameDuckDrain: they finish faster
// on this connection than after a move, where their publishes are sent
// again), and moves the connection to another server, unless the server
// closed it first (the grace period of lame-duck mode can be shorter than
// the drain; the client then reconnected elsewhere by itself, and moving
// it again is not needed).
func (s *Service) moveOffLameDuck(from string) {
	nc := s.ldmConn()
	on := func() bool { return s.hardCtx.Err() == nil && nc.ConnectedServerId() == from }
	wait := func(busy func() bool, d time.Duration) {
		for until := time.Now().Add(d); busy() && on() && time.Now().Before(until); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait(s.pulling.Load, s.cfg.fetchWait+pullGrace+time.Second)
	wait(func() bool { return s.inFlight.Load() > 0 }, lameDuckDrain)
	if !on() {
		if s.hardCtx.Err() != nil {
			return
		}
		s.log.Info("lame-duck server closed the connection before the drain ended; not moved again", "pulling", s.pulling.Load(), "inFlight", s.inFlight.Load())
		return
	}
	s.log.Info("moving off the lame-duck server", "pulling", s.pulling.Load(), "inFlight", s.inFlight.Load())
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = nc.FlushWithContext(ctx)
	cancel()
	rc := s.health.reconnectCh()
	if err := nc.ForceReconnect(); err != nil {
		return
	}
	t := time.NewTimer(lameDuckPause)
	defer t.Stop()
	select {
	case <-rc:
	case <-t.C:
	case <-s.hardCtx.Done():
	}
}

// waitLameDuck holds the pull loop while lame-duck mode is handled. It
// reports false when the service stops.
func (s *Service) waitLameDuck() bool {
	for s.lameDuck.Load() {
		select {
		case <-s.stopDur:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}
