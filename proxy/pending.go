package proxy

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file keeps the id → method map bounded without losing a request a
// client still waits for (docs/proxy.md, "Requests in flight"):
//
//   - A request the client cancels (notifications/cancelled) leaves the
//     map at once.
//   - When the map is full (MaxPending), the oldest request that has waited
//     longer than PendingTimeout is evicted to make room. Over stdio the
//     client is answered for it with an error (TIMEOUT, pending-expired)
//     and the server is sent notifications/cancelled for it; over HTTP the
//     request's own POST still routes its answer (the map only serves
//     responses that come on another stream), so the entry just goes.
//   - When nothing is old enough, the new request is answered with an
//     error that names the limit (BOUND_EXCEEDED, pending-full) and is not
//     forwarded.
//   - A response to a request the client cancelled or the proxy evicted is
//     dropped with evidence (INVALID_CONTENT, request-gone): no one waits
//     for it, and without its method it could only be sanitized as
//     generic, past the guards of its method. The ids of such requests are
//     remembered, MaxPending of them, oldest forgotten first.

// DefaultPendingTimeout is how long a request may wait for its answer
// before it can be evicted from a full id → method map.
const DefaultPendingTimeout = 10 * time.Minute

// maxGoneKey is the longest id key remembered as is among the gone ones;
// a longer one is remembered by its SHA-256.
const maxGoneKey = 64

// goneKey is the key under which a gone request's id is remembered.
func goneKey(key string) string {
	if len(key) <= maxGoneKey {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "h" + string(sum[:])
}

// markGone remembers that the request of key is no longer awaited (s.mu
// held).
func (s *Session) markGone(key string) {
	k := goneKey(key)
	if _, ok := s.gone[k]; ok {
		return
	}
	if len(s.goneOrder) >= s.p.o.MaxPending {
		delete(s.gone, s.goneOrder[0])
		s.goneOrder = s.goneOrder[1:]
	}
	s.gone[k] = struct{}{}
	s.goneOrder = append(s.goneOrder, k)
}

// isGone reports whether the request of key was cancelled or evicted (s.mu
// held).
func (s *Session) isGone(key string) bool {
	_, ok := s.gone[goneKey(key)]
	return ok
}

// unmarkGone forgets that key was gone: a client that uses an id again
// (MCP forbids it, JSON-RPC does not) awaits its answer (s.mu held).
func (s *Session) unmarkGone(key string) {
	if len(s.gone) > 0 {
		delete(s.gone, goneKey(key)) // its place in goneOrder ages out
	}
}

// evictExpired evicts the oldest request in flight when it has waited
// longer than PendingTimeout (s.mu held), and returns it. The scan is over
// the whole map, and only when it is full. Requests of the same time are
// ordered by when they were put (seq), not by the map's random order.
func (s *Session) evictExpired(now time.Time) (key string, p pending, ok bool) {
	first := true
	for k, v := range s.pending {
		if first || v.at.Before(p.at) || v.at.Equal(p.at) && v.seq < p.seq {
			key, p, first = k, v, false
		}
	}
	if first || now.Sub(p.at) <= s.p.o.PendingTimeout {
		return "", pending{}, false
	}
	s.deletePending(key)
	s.markGone(key)
	return key, p, true
}

// expiredRouted is what the eviction of a request gives: over stdio, an
// error for it to the client and its cancellation to the server.
func (s *Session) expiredRouted(p pending) *Routed {
	s.refused(wire.KindForMethod(p.method), p.id, wire.CodeTimeout, wire.ReasonPendingExpired)
	if s.postScoped {
		return nil
	}
	msg := "Request expired: the server did not answer it within the proxy's pending timeout (" +
		s.p.o.PendingTimeout.String() + ") and the proxy needed its place for a new request; it was cancelled"
	cancel := make([]byte, 0, 128+len(p.id))
	cancel = append(cancel, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	cancel = append(cancel, p.id...)
	cancel = append(cancel, `,"reason":"request expired in the proxy"}}`...)
	return &Routed{
		Client: errorResponseCode(p.id, -32603, msg, wire.CodeTimeout, wire.ReasonPendingExpired),
		Server: cancel,
	}
}

// pendingFull is the answer to a request refused because the map is full:
// it names the limit.
func (s *Session) pendingFull(id []byte) []byte {
	msg := "Too many requests in flight: the proxy keeps at most " + strconv.Itoa(s.p.o.MaxPending) +
		" unanswered requests a session (max-pending), none has waited past the pending timeout (" +
		s.p.o.PendingTimeout.String() + "); retry once some are answered or cancelled"
	return errorResponseCode(id, -32603, msg, wire.CodeBoundExceeded, wire.ReasonPendingFull)
}

// forgetKey forgets a request in flight that will not be answered.
func (s *Session) forgetKey(key string) {
	s.mu.Lock()
	s.deletePending(key)
	s.mu.Unlock()
}

// cancelled forgets the request a client's notifications/cancelled names;
// a response to it that still comes is dropped.
func (s *Session) cancelled(params []byte) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if key, ok := idKey(p.RequestID); ok {
		s.mu.Lock()
		if _, inFlight := s.pending[key]; inFlight {
			s.deletePending(key)
			s.markGone(key)
		}
		s.mu.Unlock()
	}
}
