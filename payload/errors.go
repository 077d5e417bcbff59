package payload

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Error is the typed failure of decoding or encoding a body. Code is a
// stable code and Reason a stable lower-case detail id (both declared in
// package wire); neither
// carries payload text or the text of an underlying library error.
type Error struct {
	Code   wire.Code
	Reason wire.Reason
	// cause is kept only for context errors, so that errors.Is(err,
	// context.DeadlineExceeded) holds for a TIMEOUT; it never reaches
	// Error().
	cause error
}

// Reasons, under their payload names (declared in package wire). They are
// part of the public contract: metrics and evidence carry them, and their
// spelling never changes.
const (
	ReasonUnknownEncoding   = wire.ReasonUnknownEncoding
	ReasonMultipleEncodings = wire.ReasonMultipleEncodings
	ReasonCorrupt           = wire.ReasonCorrupt
	ReasonTruncated         = wire.ReasonTruncated
	ReasonDecodedBytes      = wire.ReasonDecodedBytes
	ReasonEncodedBytes      = wire.ReasonEncodedBytes
	ReasonZstdWindow        = wire.ReasonZstdWindow
	ReasonClaimBucket       = wire.ReasonClaimBucket
	ReasonClaimName         = wire.ReasonClaimName
	ReasonClaimNotFound     = wire.ReasonClaimNotFound
	ReasonClaimDigest       = wire.ReasonClaimDigest
	ReasonClaimStore        = wire.ReasonClaimStore
	ReasonNoStore           = wire.ReasonNoStore
	ReasonMaxPayload        = wire.ReasonMaxPayload
	ReasonDeadline          = wire.ReasonDeadline
	ReasonSpool             = wire.ReasonSpool
	ReasonEncode            = wire.ReasonEncode
	ReasonClosed            = wire.ReasonClosed
)

func (e *Error) Error() string {
	return fmt.Sprintf("payload: %s (%s)", e.Code, e.Reason)
}

// Is matches errors with the same code, and the same reason when the
// target has one: errors.Is(err, &payload.Error{Code: c}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Reason == "" || t.Reason == e.Reason)
}

// Unwrap returns the context error behind a TIMEOUT, and nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// Temporary reports whether trying again later may succeed: the Object
// Store failed or was not reachable, or the deadline ended the read.
func (e *Error) Temporary() bool {
	return e.Code == wire.CodeInternal || e.Code == wire.CodeTimeout
}

func newErr(code wire.Code, reason wire.Reason) *Error {
	return &Error{Code: code, Reason: reason}
}

// ctxErr maps a context error to TIMEOUT and anything else to fallback.
func ctxErr(ctx context.Context, err error, fallback *Error) *Error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || (ctx != nil && ctx.Err() != nil) {
		cause := context.DeadlineExceeded
		if errors.Is(err, context.Canceled) || (ctx != nil && errors.Is(ctx.Err(), context.Canceled)) {
			cause = context.Canceled
		}
		return &Error{Code: wire.CodeTimeout, Reason: ReasonDeadline, cause: cause}
	}
	return fallback
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
