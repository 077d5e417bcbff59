package statekeys

import "errors"

// Code is a stable error code that may cross a process boundary. Codes are an
// API: they never change meaning once published. Match them with errors.Is
// against the sentinel errors below, never by the error string.
type Code string

// Stable codes. See docs/statekeys.md for the table.
const (
	// CodeRejected is the one code for every failed verification of request
	// state: malformed, tampered, unknown key, expired, replayed, bound to
	// another identity or operation, or carrying invalid input responses.
	// The specific reason is only in Evidence.
	CodeRejected Code = "STATE_REJECTED"
	// CodeUnavailable means a dependency (the single-use store or the key
	// ring) failed. The request fails closed; a later retry may succeed.
	CodeUnavailable Code = "STATE_UNAVAILABLE"
	// CodeInvalidRequest means a seal request was malformed: bad identity,
	// a method other than tools/call, prompts/get or resources/read, invalid
	// arguments or input requests, or a lifetime outside the limits.
	CodeInvalidRequest Code = "STATE_INVALID_REQUEST"
	// CodeFormRefused means a form-mode elicitation was refused: no valid
	// signed form policy covers it, the schema is not a flat form schema, or
	// it asks for sensitive data openly or in disguise.
	CodeFormRefused Code = "ELICITATION_FORM_REFUSED"
	// CodeURLRefused means a URL-mode elicitation was refused: not https,
	// credentials or secrets in the URL, or a missing elicitationId.
	CodeURLRefused Code = "ELICITATION_URL_REFUSED"
	// CodeResponseRefused means an elicitation response failed validation
	// when checked on its own (outside Verify, which reports CodeRejected).
	CodeResponseRefused Code = "ELICITATION_RESPONSE_REFUSED"
	// CodeKeyring means a key ring document is malformed or inconsistent.
	CodeKeyring Code = "KEYRING_INVALID"
)

// publicMessage is the only text an Error ever shows. It depends on the code
// alone, so no input, key material or reason can leak through Error().
var publicMessage = map[Code]string{
	CodeRejected:        "request state rejected",
	CodeUnavailable:     "request state service unavailable",
	CodeInvalidRequest:  "invalid request state seal request",
	CodeFormRefused:     "form elicitation refused",
	CodeURLRefused:      "url elicitation refused",
	CodeResponseRefused: "elicitation response refused",
	CodeKeyring:         "invalid key ring",
}

// Reason is the specific cause of a failure. Reasons go to evidence only;
// they are stable strings but never part of a public reply.
type Reason string

// Reasons. Every Reason maps to exactly one Code; see reasonCode.
const (
	ReasonNone Reason = ""

	// Token and key reasons.
	ReasonTokenMalformed Reason = "token_malformed"
	ReasonTokenTooLarge  Reason = "token_too_large"
	ReasonUnknownKey     Reason = "unknown_key"
	ReasonRetiredKey     Reason = "retired_key"
	ReasonAuthFailed     Reason = "authentication_failed"
	ReasonPayload        Reason = "payload_malformed"
	ReasonVersion        Reason = "version_unsupported"
	ReasonExpired        Reason = "expired"
	ReasonNotYetValid    Reason = "not_yet_valid"
	ReasonReplayed       Reason = "replayed"

	// Binding reasons.
	ReasonSubjectMismatch   Reason = "subject_mismatch"
	ReasonTenantMismatch    Reason = "tenant_mismatch"
	ReasonClientMismatch    Reason = "client_mismatch"
	ReasonMethodMismatch    Reason = "method_mismatch"
	ReasonNameMismatch      Reason = "name_mismatch"
	ReasonArgumentsMismatch Reason = "arguments_mismatch"
	ReasonArgumentsInvalid  Reason = "arguments_invalid"
	ReasonInputKeysMismatch Reason = "input_keys_mismatch"
	ReasonSchemaChanged     Reason = "schema_changed"
	ReasonInputChanged      Reason = "input_request_changed"
	ReasonInputInvalid      Reason = "input_requests_invalid"
	ReasonResponseInvalid   Reason = "response_invalid"
	ReasonResponseAction    Reason = "response_action_invalid"
	ReasonResponseTooLarge  Reason = "response_too_large"
	ReasonResponseSchema    Reason = "response_schema_mismatch"
	ReasonPolicyExpired     Reason = "form_policy_expired"
	ReasonURLNotCompleted   Reason = "url_flow_not_completed"
	ReasonURLIdentity       Reason = "url_flow_identity_mismatch"

	// Dependency reasons.
	ReasonStoreFailed Reason = "store_failed"
	ReasonNoActiveKey Reason = "no_active_key"
	ReasonRandFailed  Reason = "random_failed"

	// Seal request reasons.
	ReasonIdentityInvalid  Reason = "identity_invalid"
	ReasonMethodNotAllowed Reason = "method_not_allowed"
	ReasonNameInvalid      Reason = "name_invalid"
	ReasonTTLInvalid       Reason = "ttl_invalid"
	ReasonAppStateTooLarge Reason = "app_state_too_large"
	// ReasonRequestMalformed is for a request envelope (for example a NATS
	// message) that does not decode.
	ReasonRequestMalformed Reason = "request_malformed"

	// Form elicitation reasons.
	ReasonFormNoPolicy       Reason = "form_no_policy"
	ReasonFormPolicyInvalid  Reason = "form_policy_invalid"
	ReasonFormPolicyForged   Reason = "form_policy_signature_invalid"
	ReasonFormNotCovered     Reason = "form_not_covered"
	ReasonFormSchemaInvalid  Reason = "form_schema_invalid"
	ReasonFormFieldUnlisted  Reason = "form_field_not_in_policy"
	ReasonFormProhibitedData Reason = "form_prohibited_data_class"
	ReasonFormDisguised      Reason = "form_disguised_sensitive_field"
	ReasonFormMessage        Reason = "form_message_invalid"

	// URL elicitation reasons.
	ReasonURLInvalid     Reason = "url_invalid"
	ReasonURLNotHTTPS    Reason = "url_not_https"
	ReasonURLCredentials Reason = "url_credentials"
	ReasonURLSecret      Reason = "url_secret"
	ReasonURLNoID        Reason = "url_elicitation_id_invalid"

	// Key ring reasons.
	ReasonRingMalformed Reason = "ring_malformed"
	ReasonRingKey       Reason = "ring_key_invalid"
	ReasonRingActive    Reason = "ring_active_count"
	ReasonRingDuplicate Reason = "ring_duplicate_id"
	ReasonRingStaged    Reason = "ring_staged_count"
	ReasonRingFile      Reason = "ring_file_unreadable"
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
	if m, ok := publicMessage[e.Code]; ok {
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
