package statekeys

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Code is a stable error code that may cross a process boundary. Codes are an
// API: they never change meaning once published. Match them with errors.Is
// against the sentinel errors below, never by the error string. The codes
// and their public messages are declared in package wire.
type Code = wire.Code

// Stable codes. See docs/statekeys.md for the table.
const (
	CodeRejected        = wire.CodeStateRejected
	CodeUnavailable     = wire.CodeStateUnavailable
	CodeInvalidRequest  = wire.CodeStateInvalidRequest
	CodeFormRefused     = wire.CodeElicitationFormRefused
	CodeURLRefused      = wire.CodeElicitationURLRefused
	CodeResponseRefused = wire.CodeElicitationResponseRefused
	CodeKeyring         = wire.CodeKeyringInvalid
)

// Reason is the specific cause of a failure. Reasons go to evidence only;
// they are stable strings but never part of a public reply. The strings are
// declared in package wire with every other reason (one casing, one list);
// the names here are this package's short ones.
type Reason = wire.Reason

// Reasons. Every Reason maps to exactly one Code; see reasonCode.
const (
	ReasonNone = wire.ReasonNone

	// Token and key reasons.
	ReasonTokenMalformed = wire.ReasonTokenMalformed
	ReasonTokenTooLarge  = wire.ReasonTokenTooLarge
	ReasonUnknownKey     = wire.ReasonUnknownKey
	ReasonRetiredKey     = wire.ReasonRetiredKey
	ReasonAuthFailed     = wire.ReasonAuthenticationFailed
	ReasonPayload        = wire.ReasonPayloadMalformed
	ReasonVersion        = wire.ReasonVersionUnsupported
	ReasonExpired        = wire.ReasonExpired
	ReasonNotYetValid    = wire.ReasonNotYetValid
	ReasonReplayed       = wire.ReasonReplayed
	// ReasonTokenAlphabet: a byte outside the token alphabet (CR and LF
	// among them), refused before anything is decoded.
	ReasonTokenAlphabet = wire.ReasonTokenAlphabet
	// ReasonTokenNonCanonical: base64url that is not the one spelling of
	// its bytes.
	ReasonTokenNonCanonical = wire.ReasonTokenNonCanonical

	// Binding reasons.
	ReasonSubjectMismatch   = wire.ReasonSubjectMismatch
	ReasonTenantMismatch    = wire.ReasonTenantMismatch
	ReasonClientMismatch    = wire.ReasonClientMismatch
	ReasonMethodMismatch    = wire.ReasonMethodMismatch
	ReasonNameMismatch      = wire.ReasonNameMismatch
	ReasonArgumentsMismatch = wire.ReasonArgumentsMismatch
	ReasonArgumentsInvalid  = wire.ReasonArgumentsInvalid
	ReasonInputKeysMismatch = wire.ReasonInputKeysMismatch
	ReasonSchemaChanged     = wire.ReasonSchemaChanged
	ReasonInputChanged      = wire.ReasonInputRequestChanged
	ReasonInputInvalid      = wire.ReasonInputRequestsInvalid
	ReasonResponseInvalid   = wire.ReasonResponseInvalid
	ReasonResponseAction    = wire.ReasonResponseActionInvalid
	ReasonResponseTooLarge  = wire.ReasonResponseTooLarge
	ReasonResponseSchema    = wire.ReasonResponseSchemaMismatch
	ReasonPolicyExpired     = wire.ReasonFormPolicyExpired
	ReasonURLNotCompleted   = wire.ReasonURLFlowNotCompleted
	ReasonURLIdentity       = wire.ReasonURLFlowIdentityMismatch

	// Dependency reasons.
	ReasonStoreFailed = wire.ReasonStoreFailed
	ReasonNoActiveKey = wire.ReasonNoActiveKey
	ReasonRandFailed  = wire.ReasonRandomFailed

	// Seal request reasons.
	ReasonIdentityInvalid  = wire.ReasonIdentityInvalid
	ReasonMethodNotAllowed = wire.ReasonMethodNotAllowed
	ReasonNameInvalid      = wire.ReasonNameInvalid
	ReasonTTLInvalid       = wire.ReasonTTLInvalid
	ReasonAppStateTooLarge = wire.ReasonAppStateTooLarge
	// ReasonRequestMalformed is for a request envelope (for example a NATS
	// message) that does not decode.
	ReasonRequestMalformed = wire.ReasonRequestMalformed
	// Envelope reasons of DecodeEnvelope, beside ReasonRequestMalformed.
	ReasonRequestInvalidUTF8 = wire.ReasonRequestInvalidUTF8
	ReasonRequestDuplicate   = wire.ReasonRequestDuplicateMember
	ReasonRequestUnknown     = wire.ReasonRequestUnknownMember

	// Form elicitation reasons.
	ReasonFormNoPolicy       = wire.ReasonFormNoPolicy
	ReasonFormPolicyInvalid  = wire.ReasonFormPolicyInvalid
	ReasonFormPolicyForged   = wire.ReasonFormPolicySignatureInvalid
	ReasonFormNotCovered     = wire.ReasonFormNotCovered
	ReasonFormSchemaInvalid  = wire.ReasonFormSchemaInvalid
	ReasonFormFieldUnlisted  = wire.ReasonFormFieldNotInPolicy
	ReasonFormProhibitedData = wire.ReasonFormProhibitedDataClass
	ReasonFormDisguised      = wire.ReasonFormDisguisedSensitiveField
	ReasonFormMessage        = wire.ReasonFormMessageInvalid
	ReasonFormPolicyKeys     = wire.ReasonFormPolicyKeysInvalid

	// URL elicitation reasons.
	ReasonURLInvalid     = wire.ReasonURLInvalid
	ReasonURLNotHTTPS    = wire.ReasonURLNotHTTPS
	ReasonURLCredentials = wire.ReasonURLCredentials
	ReasonURLSecret      = wire.ReasonURLSecret
	ReasonURLNoID        = wire.ReasonURLElicitationIDInvalid

	// Key ring reasons.
	ReasonRingMalformed = wire.ReasonRingMalformed
	ReasonRingKey       = wire.ReasonRingKeyInvalid
	ReasonRingActive    = wire.ReasonRingActiveCount
	ReasonRingDuplicate = wire.ReasonRingDuplicateID
	ReasonRingStaged    = wire.ReasonRingStagedCount
	ReasonRingFile      = wire.ReasonRingFileUnreadable
)

// Error is the one error type of this package. Error() returns a fixed public
// message chosen by Code alone; Reason, InputKey and Field are for evidence
// and never appear in the message.
type Error struct {
	Code   Code
	Reason Reason
	// InputKey is the inputRequests key concerned, if any (a server-chosen
	// identifier, validated before it is stored here).
	InputKey string
	// Field is the form field concerned, if any (validated field name).
	Field string
}

// Error returns the public message for e.Code.
func (e *Error) Error() string {
	if m, ok := wire.LookupPublicMessage(e.Code); ok {
		return m
	}
	return "request state error"
}

// Is makes errors.Is(err, ErrRejected) and friends match on Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == ReasonNone && t.Code == e.Code
}

// Sentinel errors, one per code, for errors.Is.
var (
	ErrRejected        = &Error{Code: CodeRejected}
	ErrUnavailable     = &Error{Code: CodeUnavailable}
	ErrInvalidRequest  = &Error{Code: CodeInvalidRequest}
	ErrFormRefused     = &Error{Code: CodeFormRefused}
	ErrURLRefused      = &Error{Code: CodeURLRefused}
	ErrResponseRefused = &Error{Code: CodeResponseRefused}
	ErrKeyring         = &Error{Code: CodeKeyring}
)

// PublicMessage returns the fixed public message for a code.
func PublicMessage(c Code) string { return (&Error{Code: c}).Error() }

// ReasonOf returns the Reason carried by err, or ReasonNone.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonNone
}

// CodeOf returns the Code carried by err; errors of other types map to
// CodeUnavailable so that nothing unexpected is ever reported as success.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeUnavailable
}

func rejected(r Reason) *Error { return &Error{Code: CodeRejected, Reason: r} }

func unavailable(r Reason) *Error { return &Error{Code: CodeUnavailable, Reason: r} }

func invalidRequest(r Reason) *Error { return &Error{Code: CodeInvalidRequest, Reason: r} }

func formRefused(r Reason, inputKey, field string) *Error {
	return &Error{Code: CodeFormRefused, Reason: r, InputKey: inputKey, Field: field}
}

func urlRefused(r Reason, inputKey string) *Error {
	return &Error{Code: CodeURLRefused, Reason: r, InputKey: inputKey}
}

func ringError(r Reason) *Error { return &Error{Code: CodeKeyring, Reason: r} }
