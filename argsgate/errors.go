package argsgate

import "errors"

// ErrUnknownTool is what a lookup function returns (or wraps) for a tool
// that has no known inputSchema; other lookup errors mean the catalog is
// unavailable.
var ErrUnknownTool = errors.New("argsgate: unknown tool")

// Code is a stable code of a rejected call. Codes never change meaning.
type Code string

// Stable codes.
const (
	// CodeValid is the code of an accepted call.
	CodeValid Code = "ARGS_VALID"
	// CodeMalformed: the arguments are not a strict JSON object (syntax,
	// duplicate member, too large, too deep), or the tools/call request
	// around them is malformed.
	CodeMalformed Code = "ARGS_MALFORMED"
	// CodeMissing: a required parameter is absent.
	CodeMissing Code = "ARGS_MISSING"
	// CodeType: a parameter has the wrong JSON type.
	CodeType Code = "ARGS_TYPE"
	// CodeUnknownProperty: a parameter the schema does not declare.
	CodeUnknownProperty Code = "ARGS_UNKNOWN_PROPERTY"
	// CodeInvalid: any other schema keyword failed (enum, pattern, bounds,
	// lengths, anyOf, ...).
	CodeInvalid Code = "ARGS_INVALID"
	// CodeSchemaUnusable: the tool's inputSchema does not compile (or is
	// refused by the schema limits); the call fails closed.
	CodeSchemaUnusable Code = "ARGS_SCHEMA_UNUSABLE"
	// CodeUnknownTool: no inputSchema is known for the tool (used by the
	// catalog-backed service).
	CodeUnknownTool Code = "ARGS_UNKNOWN_TOOL"
	// CodeUnavailable: the inputSchema could not be looked up (catalog
	// unavailable); the call fails closed and may be retried.
	CodeUnavailable Code = "ARGS_UNAVAILABLE"
)
