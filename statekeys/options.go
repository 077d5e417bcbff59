package statekeys

import (
	"crypto/rand"
	"io"
	"time"
)

// Defaults. Every limit of the Keeper is here, in one place, and each has an
// option that validates its value at once.
const (
	// DefaultTTL is the lifetime of request state when a seal request
	// names none.
	DefaultTTL = 5 * time.Minute
	// DefaultMaxTTL is the longest lifetime a seal request may ask for.
	DefaultMaxTTL = 30 * time.Minute
	// DefaultReplayMargin is added to the remaining lifetime when a flow id
	// is consumed, so that a verifier whose clock lags the sealer's still
	// finds the record.
	DefaultReplayMargin = time.Minute
	// DefaultClockSkew is how far in the future an issue time may be.
	DefaultClockSkew = 30 * time.Second
	// DefaultMaxTokenBytes caps a requestState token.
	DefaultMaxTokenBytes = 16 << 10
	// DefaultMaxArgumentsBytes caps the arguments of the original request.
	DefaultMaxArgumentsBytes = 1 << 20
	// DefaultMaxInputBytes caps the inputRequests and the inputResponses
	// documents, each.
	DefaultMaxInputBytes = 256 << 10
	// DefaultMaxInputRequests caps the entries of inputRequests.
	DefaultMaxInputRequests = 16
	// DefaultMaxAppStateBytes caps the opaque server state sealed with the
	// bindings.
	DefaultMaxAppStateBytes = 2 << 10
)

type options struct {
	now               func() time.Time
	rand              io.Reader
	defaultTTL        time.Duration
	maxTTL            time.Duration
	replayMargin      time.Duration
	clockSkew         time.Duration
	maxTokenBytes     int
	maxArgumentsBytes int
	maxInputBytes     int
	maxInputRequests  int
	maxAppStateBytes  int
	guard             Guard
}

func defaultOptions() options {
	return options{
		now:               time.Now,
		rand:              rand.Reader,
		defaultTTL:        DefaultTTL,
		maxTTL:            DefaultMaxTTL,
		replayMargin:      DefaultReplayMargin,
		clockSkew:         DefaultClockSkew,
		maxTokenBytes:     DefaultMaxTokenBytes,
		maxArgumentsBytes: DefaultMaxArgumentsBytes,
		maxInputBytes:     DefaultMaxInputBytes,
		maxInputRequests:  DefaultMaxInputRequests,
		maxAppStateBytes:  DefaultMaxAppStateBytes,
	}
}

// Option configures a Keeper. Options validate their value when New runs.
type Option func(*options) error

var errOption = &Error{Code: CodeInvalidRequest, Reason: "option_invalid"}

// WithClock sets the time source (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return errOption
		}
		o.now = now
		return nil
	}
}

// WithRand sets the source of nonces and flow ids (default crypto/rand).
func WithRand(r io.Reader) Option {
	return func(o *options) error {
		if r == nil {
			return errOption
		}
		o.rand = r
		return nil
	}
}

// WithTTL sets the default lifetime (default DefaultTTL) and the maximum a
// seal request may ask for (default DefaultMaxTTL). Both are at least one
// second, and def <= max.
func WithTTL(def, max time.Duration) Option {
	return func(o *options) error {
		if def < time.Second || max < def {
			return errOption
		}
		o.defaultTTL, o.maxTTL = def, max
		return nil
	}
}

// WithReplayMargin sets DefaultReplayMargin's value (0..1h).
func WithReplayMargin(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 || d > time.Hour {
			return errOption
		}
		o.replayMargin = d
		return nil
	}
}

// WithClockSkew sets how far in the future an issue time may lie
// (default DefaultClockSkew, 0..5m).
func WithClockSkew(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 || d > 5*time.Minute {
			return errOption
		}
		o.clockSkew = d
		return nil
	}
}

// WithLimits sets the size limits; a zero leaves that default in place.
func WithLimits(maxTokenBytes, maxArgumentsBytes, maxInputBytes, maxInputRequests, maxAppStateBytes int) Option {
	return func(o *options) error {
		for _, v := range []int{maxTokenBytes, maxArgumentsBytes, maxInputBytes, maxInputRequests, maxAppStateBytes} {
			if v < 0 {
				return errOption
			}
		}
		if maxTokenBytes != 0 {
			if maxTokenBytes < 256 {
				return errOption
			}
			o.maxTokenBytes = maxTokenBytes
		}
		if maxArgumentsBytes != 0 {
			o.maxArgumentsBytes = maxArgumentsBytes
		}
		if maxInputBytes != 0 {
			o.maxInputBytes = maxInputBytes
		}
		if maxInputRequests != 0 {
			o.maxInputRequests = maxInputRequests
		}
		if maxAppStateBytes != 0 {
			o.maxAppStateBytes = maxAppStateBytes
		}
		return nil
	}
}

// WithGuard sets the Guard that decides elicitations (package elicit
// provides it). Without it every form- and URL-mode elicitation is refused.
func WithGuard(g Guard) Option {
	return func(o *options) error {
		if g == nil {
			return errOption
		}
		o.guard = g
		return nil
	}
}
