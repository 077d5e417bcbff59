package schema

import "errors"

// Code is a stable error code that may cross a process boundary. Codes never
// change meaning once published; match them with errors.Is against the
// sentinel errors below, never by the error string.
type Code string

// Stable codes.
const (
	// CodeInvalid: the schema is not strict JSON, is not a valid schema of
	// its dialect (meta-schema check), names an unknown dialect, or holds a
	// pattern that does not compile.
	CodeInvalid Code = "SCHEMA_INVALID"
	// CodeTooLarge: the schema text exceeds Limits.MaxSchemaBytes.
	CodeTooLarge Code = "SCHEMA_TOO_LARGE"
	// CodeTooDeep: the schema nests deeper than Limits.MaxDepth.
	CodeTooDeep Code = "SCHEMA_TOO_DEEP"
	// CodeRefDenied: the schema references a document other than itself
	// and the bundled official meta-schemas.
	CodeRefDenied Code = "SCHEMA_REF_DENIED"
	// CodeRefUnresolved: a reference inside the schema points at nothing
	// (a missing JSON pointer or anchor).
	CodeRefUnresolved Code = "SCHEMA_REF_UNRESOLVED"
	// CodeValueInvalid: a value given to Decode is not strict JSON
	// (syntax, duplicate member, invalid UTF-8, lone surrogate).
	CodeValueInvalid Code = "VALUE_INVALID"
	// CodeValueTooDeep: a value given to Decode nests deeper than allowed.
	CodeValueTooDeep Code = "VALUE_TOO_DEEP"
)

// Reason is the specific cause of an Error: a stable string for evidence.
type Reason string

// Reasons.
const (
	ReasonNone          Reason = ""
	ReasonSyntax        Reason = "json_syntax"
	ReasonDuplicateKey  Reason = "duplicate_key"
	ReasonUTF8          Reason = "invalid_utf8"
	ReasonSurrogate     Reason = "lone_surrogate"
	ReasonNumber        Reason = "number_out_of_range"
	ReasonSize          Reason = "size_limit"
	ReasonDepth         Reason = "depth_limit"
	ReasonMetaSchema    Reason = "metaschema_violation"
	ReasonDialect       Reason = "unsupported_dialect"
	ReasonRegexp        Reason = "pattern_not_compilable"
	ReasonExternalRef   Reason = "external_reference"
	ReasonMissingTarget Reason = "reference_target_missing"
	ReasonCompile       Reason = "not_compilable"
)

// publicMessage is the only text an Error shows; it depends on the code
// alone, so no schema text, value or library message can leak through it.
var publicMessage = map[Code]string{
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
	m, ok := publicMessage[e.Code]
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
