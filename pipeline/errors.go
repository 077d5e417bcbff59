package pipeline

import "fmt"

// Code is a stable error code. Codes cross process boundaries (results,
// evidence, metrics labels), so their spelling never changes.
type Code string

const (
	// CodeInvalidJSON: the message is not one well-formed JSON value
	// (syntax error, trailing data, invalid UTF-8 under the reject policy).
	CodeInvalidJSON Code = "INVALID_JSON"
	// CodeBoundExceeded: a bound whose action is reject was crossed, or the
	// document is unsafe in shape (duplicate or prototype-polluting keys).
	CodeBoundExceeded Code = "BOUND_EXCEEDED"
	// CodeTimeout: the deadline of the caller's context ended the pass.
	CodeTimeout Code = "TIMEOUT"
	// CodeOutputTruncated: the result was delivered, cut to its bounds. It is
	// an outcome recorded in _meta and evidence, not an error result.
	CodeOutputTruncated Code = "OUTPUT_TRUNCATED"
	// CodeInvalidContent: a content block broke the content rules (binary
	// data that is not base64, a MIME type outside the allow-list).
	CodeInvalidContent Code = "INVALID_CONTENT"
	// CodeInternal: the pass failed for a reason of its own (a scanner fault,
	// an I/O error while reading); nothing of the input was delivered.
	CodeInternal Code = "INTERNAL"
	// CodeSchemaMismatch: the tool declares an outputSchema and its own
	// structuredContent is missing or does not conform to it.
	CodeSchemaMismatch Code = "SCHEMA_MISMATCH"
	// CodeSchemaMismatchAfterRedaction: the tool's structuredContent
	// conforms, but the sanitized (redacted, normalized, projected) value
	// does not, so it cannot be delivered whole.
	CodeSchemaMismatchAfterRedaction Code = "SCHEMA_MISMATCH_AFTER_REDACTION"
	// CodeSchemaInvalid: the tool's outputSchema cannot be compiled (bad
	// schema, an external reference, over the size or depth limits).
	CodeSchemaInvalid Code = "SCHEMA_INVALID"
	// CodeToolError: not a failure of the pass. The tool reported an
	// execution error (isError: true) and its text was replaced by a public
	// message from the policy (reason "mapped" or "unmapped"); in _meta and
	// evidence.
	CodeToolError Code = "TOOL_ERROR"
	// CodeInvalidEncoding: the message body could not be decoded for
	// transport (unknown Content-Encoding, corrupt or truncated compressed
	// data, a claim check that cannot be resolved).
	CodeInvalidEncoding Code = "INVALID_ENCODING"
)

// PublicMessage is the text an agent sees for a code. It never carries input.
func (c Code) PublicMessage() string {
	switch c {
	case CodeInvalidJSON:
		return "The tool returned output that is not valid JSON, so it was withheld."
	case CodeBoundExceeded:
		return "The tool output exceeded a safety limit, so it was withheld. Narrow the request (a smaller range, a filter, fewer fields or a page size) and call the tool again."
	case CodeTimeout:
		return "Sanitizing the tool output took too long, so it was withheld. Narrow the request and call the tool again."
	case CodeInvalidContent:
		return "The tool returned content that is not allowed (not a result object, malformed binary data or a disallowed media type), so the output was withheld."
	case CodeInvalidEncoding:
		return "The tool output arrived in an encoding that could not be decoded (corrupt or unsupported compression, or a missing stored payload), so it was withheld."
	case CodeSchemaMismatch:
		return "The tool returned structured output that does not match its declared output schema, so it was withheld. Call the tool again; if this keeps happening, the tool is broken and another approach is needed."
	case CodeSchemaMismatchAfterRedaction:
		return "The tool's structured output no longer matched its declared output schema once sensitive data was removed, so it was withheld. Narrow the request to leave out fields that may hold secrets, or use another approach."
	case CodeSchemaInvalid:
		return "The tool declares an output schema that cannot be used, so its output was withheld."
	case CodeToolError:
		return "The tool failed. Check the arguments and try again, or use another approach."
	default:
		return "The tool output could not be sanitized, so it was withheld."
	}
}

// Error is the typed failure of a pass. Reason is a stable, lower-case detail
// id (for example "duplicate-key", "depth", "trailing-data"); Offset is the
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
