package worker

import (
	"runtime"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
)

// The inline path's gate: how many messages that only compute are in the
// slots at once.
//
// A pass is CPU-bound. With more requests in flight than cores, every
// request handed to an idle slot is one more runnable goroutine: it waits
// in the Go scheduler's run queue instead of the subscription's, for the
// same time, but each slot then publishes its answer as soon as it is done
// and parks, and the connection's flusher, woken by the publish, writes
// that one answer before the next is ready. Handed to at most about two
// slots a core, a slot that finishes finds the next request waiting and
// starts on it at once, and the flusher writes the answers of several
// slots together: with eight requesters at 4 KiB the worker's connection
// wrote 0.45 times a message instead of 0.90 (the plain echo: 0.27-0.32),
// and the server read it about as much less (docs/benchmarks.md, "Issue
// 35, inline (…fifth session)").
//
// Messages that wait (a claimed body read from the Object Store, a
// resolver, an output too large for a message, which goes to the Object
// Store) are not counted: they still get any free slot of the
// concurrency, as before, so that slots waiting for I/O do not hold back
// the ones that compute. What a message gets (reply, headers, evidence)
// does not depend on the gate; only when its pass starts does.

// DefaultInlineRunningPerCPU times GOMAXPROCS is the default number of
// inline messages that only compute handed to slots at once
// (WithInlineRunning).
const DefaultInlineRunningPerCPU = 2

// inlineReq is one inline request handed to a slot; gated: it holds a
// place of inGate, which the slot gives back once the message is done.
type inlineReq struct {
	m     *nats.Msg
	gated bool
}

// newInlineGate returns the gate of the configuration (nil: every message
// can be handed to a slot of the concurrency, the gate limits nothing).
func (c *serveConfig) newInlineGate() chan struct{} {
	n := c.inlineRunning
	if n == 0 {
		n = DefaultInlineRunningPerCPU * runtime.GOMAXPROCS(0)
	}
	if n >= c.concurrency {
		return nil
	}
	return make(chan struct{}, n)
}

// computeOnly reports whether an inline request only computes: no
// resolver is configured, its body is in the message (not a claim), and
// its output will fit a message (an output above the connection's
// maximum payload goes to the Object Store; half of it is the bound here,
// as a sanitized output can be somewhat larger than its input).
func (s *Service) computeOnly(m *nats.Msg) bool {
	return s.cfg.resolver == nil && !payload.IsClaim(m.Header) && int64(len(m.Data)) <= s.connMaxPayload()/2
}
