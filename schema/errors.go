package schema

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Code is a stable error code that may cross a process boundary (declared
// in package wire). Codes never change meaning once published; match them
// with errors.Is against the sentinel errors below, never by the error
// string.
type Code = wire.Code

// Stable codes, under their schema names; wire documents each.
const (
	CodeInvalid       = wire.CodeSchemaInvalid
	CodeTooLarge      = wire.CodeSchemaTooLarge
	CodeTooDeep       = wire.CodeSchemaTooDeep
	CodeRefDenied     = wire.CodeSchemaRefDenied
	CodeRefUnresolved = wire.CodeSchemaRefUnresolved
	CodeValueInvalid  = wire.CodeValueInvalid
	CodeValueTooDeep  = wire.CodeValueTooDeep
)

// Reason is the specific cause of an Error: a stable string for evidence
// (declared in package wire, spelled in kebab-case like every reason).
type Reason = wire.Reason

// Reasons, under their schema names.
const (
	ReasonNone          = wire.ReasonNone
	ReasonSyntax        = wire.ReasonJSONSyntax
	ReasonDuplicateKey  = wire.ReasonDuplicateKey
	ReasonUTF8          = wire.ReasonInvalidUTF8
	ReasonSurrogate     = wire.ReasonLoneSurrogate
	ReasonNumber        = wire.ReasonNumberOutOfRange
	ReasonSize          = wire.ReasonSizeLimit
	ReasonDepth         = wire.ReasonDepthLimit
	ReasonMetaSchema    = wire.ReasonMetaschemaViolation
	ReasonDialect       = wire.ReasonUnsupportedDialect
	ReasonRegexp        = wire.ReasonPatternNotCompilable
	ReasonExternalRef   = wire.ReasonExternalReference
	ReasonMissingTarget = wire.ReasonReferenceTargetMissing
	ReasonCompile       = wire.ReasonNotCompilable
)

// errorText is the only text an Error shows; it depends on the code alone,
// so no schema text, value or library message can leak through it. It is
// the text of a Go error, terser than the public message of a reply
// (wire.Code.PublicMessage), which is what an agent sees.
var errorText = map[Code]string{
	CodeInvalid:       "invalid schema",
	CodeTooLarge:      "schema too large",
	CodeTooDeep:       "schema nested too deeply",
	CodeRefDenied:     "schema reference denied",
	CodeRefUnresolved: "schema reference unresolved",
	CodeValueInvalid:  "invalid JSON value",
	CodeValueTooDeep:  "JSON value nested too deeply",
}

// Error is the one error type of this package.
type Error struct {
	Code   Code
	Reason Reason
}

// Error returns "schema: " and the fixed public message of the code, and the
// reason (a fixed token).
func (e *Error) Error() string {
	m, ok := errorText[e.Code]
	if !ok {
		m = "schema error"
	}
	if e.Reason != ReasonNone {
		return "schema: " + m + " (" + string(e.Reason) + ")"
	}
	return "schema: " + m
}

// Is makes errors.Is(err, ErrInvalid) and friends match on Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == ReasonNone && t.Code == e.Code
}

// Sentinel errors, one per code, for errors.Is.
var (
	ErrInvalid       = &Error{Code: CodeInvalid}
	ErrTooLarge      = &Error{Code: CodeTooLarge}
	ErrTooDeep       = &Error{Code: CodeTooDeep}
	ErrRefDenied     = &Error{Code: CodeRefDenied}
	ErrRefUnresolved = &Error{Code: CodeRefUnresolved}
	ErrValueInvalid  = &Error{Code: CodeValueInvalid}
	ErrValueTooDeep  = &Error{Code: CodeValueTooDeep}
)

// CodeOf returns the Code of err; errors of other types map to CodeInvalid so
// that nothing unexpected is ever taken for success.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInvalid
}

func newErr(c Code, r Reason) *Error { return &Error{Code: c, Reason: r} }
