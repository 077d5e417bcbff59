package pipeline

import (
	"fmt"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Code is a stable error code; the codes are declared in package wire,
// which holds the vocabulary shared with clients.
type Code = wire.Code

// The codes of a pass, under their pipeline names.
const (
	CodeInvalidJSON                  = wire.CodeInvalidJSON
	CodeBoundExceeded                = wire.CodeBoundExceeded
	CodeTimeout                      = wire.CodeTimeout
	CodeOutputTruncated              = wire.CodeOutputTruncated
	CodeInvalidContent               = wire.CodeInvalidContent
	CodeInternal                     = wire.CodeInternal
	CodeSchemaMismatch               = wire.CodeSchemaMismatch
	CodeSchemaMismatchAfterRedaction = wire.CodeSchemaMismatchAfterRedaction
	CodeSchemaInvalid                = wire.CodeSchemaInvalid
	CodeToolError                    = wire.CodeToolError
	CodeInvalidEncoding              = wire.CodeInvalidEncoding
)

// Error is the typed failure of a pass. Reason is a stable, lower-case detail
// id, one of the wire.Reason constants (for example "duplicate-key",
// "depth", "trailing-data"); Offset is the
// input byte offset where the failure was found and Pointer the JSON pointer
// of the value, built from sanitized keys. None of its fields carries input
// text, so an Error may be logged and stored as evidence.
type Error struct {
	Code    Code
	Reason  string
	Offset  int64
	Pointer string
}

func (e *Error) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("pipeline: %s (%s) at byte %d, %s", e.Code, e.Reason, e.Offset, e.Pointer)
	}
	return fmt.Sprintf("pipeline: %s (%s) at byte %d", e.Code, e.Reason, e.Offset)
}

// Is matches errors with the same code, so errors.Is(err, &Error{Code: c})
// works as a code test.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Reason == "" || t.Reason == e.Reason)
}
