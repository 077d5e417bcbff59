package statekeys

import (
	"encoding/json"
	"errors"
	"time"
)

// This file is the seam between the Keeper and the elicitation guards. The
// Keeper parses inputRequests, binds what it finds and enforces single use;
// whether a form or a URL may be asked for at all, and whether a response
// fits the form, is decided by a Guard (package elicit provides the one the
// worker uses). Without a Guard every elicitation is refused.

// Elicitation is one elicitation/create entry of inputRequests as the
// Keeper parsed it.
type Elicitation struct {
	// Key is the inputRequests key (validated).
	Key string
	// Params is the params object of the request.
	Params map[string]any
	// Schema is the requestedSchema of a form-mode request.
	Schema map[string]any
	// SchemaDigest is the lower-case hex SHA-256 of the RFC 8785 form of
	// Schema.
	SchemaDigest string
	// ElicitationID is the elicitationId of a URL-mode request, as sent.
	ElicitationID string
}

// SignedFormPolicy is a form policy as it travels: the policy document and
// an Ed25519 signature over its RFC 8785 canonical bytes. Package elicit
// signs and verifies it.
type SignedFormPolicy struct {
	Policy json.RawMessage `json:"policy"`
	// KeyID names the reviewer key in the trusted set.
	KeyID string `json:"keyId"`
	// Signature is base64url (no padding) Ed25519 over canonical(Policy).
	Signature string `json:"signature"`
}

// FormApproval is what a covered form request yields: everything needed to
// validate its response later. The Keeper seals SchemaDigest,
// MaxResponseBytes, ExpiresAt and PolicyID/FormID with the state.
type FormApproval struct {
	PolicyID         string
	FormID           string
	SchemaDigest     string
	MaxResponseBytes int
	ExpiresAt        time.Time
}

// Elicitation actions (ElicitResult.action).
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Guard decides the elicitations of inputRequests. Seal calls SealForm or
// SealURL for each elicitation before anything is sealed; Verify calls
// VerifyForm or VerifyURL for each response after the bindings matched.
// A refusal at seal time is an *Error with CodeFormRefused or CodeURLRefused
// (any other error is taken as such a refusal); at verify time it is a
// Reason, reported under CodeRejected. A Guard must be safe for concurrent
// use.
type Guard interface {
	// SealForm checks a form-mode elicitation at time now against the
	// guard's policies and extra (the seal request's own policy, or nil).
	SealForm(e Elicitation, extra *SignedFormPolicy, now time.Time) (FormApproval, error)
	// SealURL checks a URL-mode elicitation.
	SealURL(e Elicitation) error
	// VerifyForm validates the parsed ElicitResult v for the form e that
	// was approved as a. It returns the action and, for an accepted form,
	// the RFC 8785 form of the content.
	VerifyForm(v any, e Elicitation, a FormApproval, now time.Time) (action string, content json.RawMessage, r Reason)
	// VerifyURL validates the parsed ElicitResult v of a URL-mode
	// elicitation (no content) and returns its action.
	VerifyURL(v any) (action string, r Reason)
}

// guardError turns what a Guard returned at seal time into an *Error for
// input key; anything but an *Error with the expected code becomes a
// refusal with the fallback reason, so a Guard cannot fail open.
func guardError(err error, code Code, fallback Reason, key string) *Error {
	var e *Error
	if errors.As(err, &e) && e.Code == code && e.Reason != ReasonNone {
		out := *e
		out.InputKey = key
		return &out
	}
	return &Error{Code: code, Reason: fallback, InputKey: key}
}
