package toolcat

import (
	"errors"
	"strconv"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Code is a stable error code of the catalog (declared in package wire).
type Code = wire.Code

// Stable codes, under their toolcat names; wire documents each and holds
// their public messages.
const (
	CodeInvalid     = wire.CodeToolsInvalid
	CodeName        = wire.CodeToolsName
	CodeSchema      = wire.CodeToolsSchema
	CodeTooLarge    = wire.CodeToolsTooLarge
	CodeNotFound    = wire.CodeToolsNotFound
	CodeUnavailable = wire.CodeToolsUnavailable
)

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
	m, ok := wire.LookupPublicMessage(e.Code)
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
