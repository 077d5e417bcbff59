package toolcat

import (
	"errors"
	"strconv"
)

// Code is a stable error code of the catalog.
type Code string

// Stable codes.
const (
	// CodeInvalid: the tools/list result is malformed (not JSON, no tools
	// array, a JSON-RPC error, a tool that is not an object, a duplicate
	// tool name).
	CodeInvalid Code = "TOOLS_INVALID"
	// CodeName: a server or tool name that cannot be a key.
	CodeName Code = "TOOLS_NAME"
	// CodeSchema: a tool's inputSchema is missing, or its inputSchema or
	// outputSchema does not compile (Error.SchemaCode says why).
	CodeSchema Code = "TOOLS_SCHEMA"
	// CodeTooLarge: the tools/list result, one definition or the number of
	// tools exceeds the limits.
	CodeTooLarge Code = "TOOLS_TOO_LARGE"
	// CodeNotFound: no such tool in the catalog.
	CodeNotFound Code = "TOOLS_NOT_FOUND"
	// CodeUnavailable: the KV bucket failed; retry later.
	CodeUnavailable Code = "TOOLS_UNAVAILABLE"
)

var publicMessage = map[Code]string{
	CodeInvalid:     "invalid tools/list result",
	CodeName:        "invalid server or tool name",
	CodeSchema:      "tool schema missing or not compilable",
	CodeTooLarge:    "tools/list result exceeds the limits",
	CodeNotFound:    "tool not in the catalog",
	CodeUnavailable: "tool catalog unavailable",
}

// Error is the one error type of this package. Its message depends on the
// code, the tool index and the schema code only: no name, schema text or
// backend error text.
type Error struct {
	Code Code
	// Index is the position of the tool concerned in the tools array, or -1.
	Index int
	// SchemaCode is the schema package code for CodeSchema ("" otherwise);
	// Field is "inputSchema" or "outputSchema".
	SchemaCode string
	Field      string
}

func (e *Error) Error() string {
	m, ok := publicMessage[e.Code]
	if !ok {
		m = "tool catalog error"
	}
	s := "toolcat: " + m
	if e.Index >= 0 {
		s += " (tool #" + strconv.Itoa(e.Index)
		if e.Field != "" {
			s += " " + e.Field
		}
		if e.SchemaCode != "" {
			s += ": " + e.SchemaCode
		}
		s += ")"
	}
	return s
}

// Is matches on Code (errors.Is(err, toolcat.ErrNotFound)).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Index == -1
}

// Sentinel errors for errors.Is.
var (
	ErrInvalid     = &Error{Code: CodeInvalid, Index: -1}
	ErrName        = &Error{Code: CodeName, Index: -1}
	ErrSchema      = &Error{Code: CodeSchema, Index: -1}
	ErrTooLarge    = &Error{Code: CodeTooLarge, Index: -1}
	ErrNotFound    = &Error{Code: CodeNotFound, Index: -1}
	ErrUnavailable = &Error{Code: CodeUnavailable, Index: -1}
)

// CodeOf returns the code of err; other errors map to CodeUnavailable.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeUnavailable
}

func fail(c Code, index int) *Error { return &Error{Code: c, Index: index} }
