package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/argsgate"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// Defaults of Options.
const (
	// DefaultMaxMessageBytes bounds one message in either direction. A
	// server message is held whole before its pass (its kind depends on an
	// id that a server may write last), so this is the memory a message
	// may take; it is above the pipeline's default output bound (16 MiB)
	// plus base64 growth of its binary bound.
	DefaultMaxMessageBytes = 32 << 20
	// DefaultMaxPending bounds the client requests in flight whose method
	// the proxy remembers (the id → method map).
	DefaultMaxPending = 4096
	// DefaultMaxTools bounds the tools whose inputSchema the proxy
	// remembers from tools/list results for the argument gate.
	DefaultMaxTools = 4096
	// DefaultTimeout bounds the pass of one message.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxInFlight bounds the server messages of one session that
	// are between being read and being delivered (their passes run
	// concurrently): enough to keep a fleet of workers busy, few enough
	// that a session's memory stays a small multiple of one message.
	DefaultMaxInFlight = 16
	// DefaultMaxInFlightBytes bounds the bytes of those messages (one
	// message alone is always admitted, up to MaxMessageBytes).
	DefaultMaxInFlightBytes = 64 << 20
)

// ErrOptions reports an option New refused.
var ErrOptions = errors.New("proxy: invalid option")

// Options configure a Proxy. The zero value means the defaults.
type Options struct {
	// MaxMessageBytes bounds one message (default DefaultMaxMessageBytes).
	// A longer server message is refused: a response with an error for
	// its id when the id was read before the bound, anything else dropped
	// with evidence. A longer client message is answered with an error.
	MaxMessageBytes int64
	// MaxPending bounds the client requests in flight (default
	// DefaultMaxPending). A request beyond it evicts the oldest one that
	// has waited longer than PendingTimeout or, when none has, is
	// answered with an error that names the limit and not forwarded.
	MaxPending int
	// PendingTimeout is how long a client request may wait for its answer
	// before it may be evicted from a full id → method map (default
	// DefaultPendingTimeout): the client is then answered with an error
	// for it and the server told it is cancelled (pending.go).
	PendingTimeout time.Duration
	// MaxTools bounds the tools whose inputSchema is kept (default
	// DefaultMaxTools); beyond it, calls to the tools not kept pass
	// unchecked, as calls to tools never listed do.
	MaxTools int
	// Timeout bounds the pass of one message (default DefaultTimeout). On
	// expiry the message fails closed (code TIMEOUT).
	Timeout time.Duration
	// MaxInFlight bounds the server messages of one stdio session whose
	// passes run at once or that wait to be delivered (default
	// DefaultMaxInFlight); 1 sanitizes one message at a time. What
	// keeps its order is in docs/proxy.md, "Order". The reader of the
	// server's output waits for room.
	MaxInFlight int
	// MaxInFlightBytes bounds the bytes of those messages (default
	// DefaultMaxInFlightBytes); a message alone is always admitted.
	MaxInFlightBytes int64
	// Server and Tenant label evidence (and the fleet's metadata).
	Server, Tenant string
	// Evidence receives the evidence of every pass run in this process
	// and of every message the proxy refused itself. It is called from
	// the proxy's goroutines, several at once (a session's passes run
	// concurrently), so it must be safe for concurrent use; it must not
	// keep the pointer past the call. nil discards.
	Evidence func(*pipeline.Evidence)
	// Gate checks tools/call arguments against the inputSchema of the
	// tool, when a tools/list result named it. nil means a gate with
	// argsgate's defaults.
	Gate *argsgate.Gate
	// NoArgsGate lets every tools/call through unchecked.
	NoArgsGate bool
	// Log receives the proxy's diagnostics: counts, codes and reasons,
	// never message content. nil discards.
	Log *slog.Logger
	// Notifications bounds the server's notifications (the policy's
	// notifications; zero: its defaults, 200 a second). Over it they are
	// dropped, never queued, with one evidence record per window
	// (BOUND_EXCEEDED, notification-rate).
	Notifications pipeline.NotificationPolicy
}

func (o *Options) fill() error {
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxPending == 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.MaxTools == 0 {
		o.MaxTools = DefaultMaxTools
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.PendingTimeout == 0 {
		o.PendingTimeout = DefaultPendingTimeout
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxInFlightBytes == 0 {
		o.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	switch {
	case o.MaxMessageBytes < 1024:
		return fmt.Errorf("%w: MaxMessageBytes %d is below 1024", ErrOptions, o.MaxMessageBytes)
	case o.MaxPending < 1:
		return fmt.Errorf("%w: MaxPending %d", ErrOptions, o.MaxPending)
	case o.MaxTools < 1:
		return fmt.Errorf("%w: MaxTools %d", ErrOptions, o.MaxTools)
	case o.PendingTimeout < 0:
		return fmt.Errorf("%w: PendingTimeout %s", ErrOptions, o.PendingTimeout)
	case o.MaxInFlight < 1:
		return fmt.Errorf("%w: MaxInFlight %d", ErrOptions, o.MaxInFlight)
	case o.MaxInFlightBytes < 1:
		return fmt.Errorf("%w: MaxInFlightBytes %d", ErrOptions, o.MaxInFlightBytes)
	case o.Timeout < 0:
		return fmt.Errorf("%w: Timeout %s", ErrOptions, o.Timeout)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Gate == nil && !o.NoArgsGate {
		g, err := argsgate.New(argsgate.Options{})
		if err != nil {
			return err
		}
		o.Gate = g
	}
	return nil
}
