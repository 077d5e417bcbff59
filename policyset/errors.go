package policyset

import "errors"

// Reason says why an envelope or a key file was refused. The values are
// stable: they go into logs and the policy_refused_total metric.
type Reason string

// The reasons of a refusal.
const (
	// ReasonMalformed: not an envelope (not strict JSON, unknown or missing
	// members, an unknown format, a member of the wrong form).
	ReasonMalformed Reason = "malformed"
	// ReasonTooLarge: larger than MaxEnvelopeBytes.
	ReasonTooLarge Reason = "too-large"
	// ReasonUnsigned: no signature or no key id.
	ReasonUnsigned Reason = "unsigned"
	// ReasonUntrustedKey: the key id names no trusted key.
	ReasonUntrustedKey Reason = "untrusted-key"
	// ReasonBadSignature: the signature does not verify with the named key
	// (a wrong key, or any byte of the signed members changed).
	ReasonBadSignature Reason = "bad-signature"
	// ReasonDigestMismatch: the policy does not hash to the digest.
	ReasonDigestMismatch Reason = "digest-mismatch"
	// ReasonInvalidPolicy: the signed policy does not validate (package
	// pipeline's rules) or its version differs from the envelope's.
	ReasonInvalidPolicy Reason = "invalid-policy"
	// ReasonBadKeyFile: a trusted keys or signing key file that does not
	// parse, holds a malformed key, or is readable by others.
	ReasonBadKeyFile Reason = "bad-key-file"
)

// ErrRefused is matched by every *Error (errors.Is).
var ErrRefused = errors.New("policyset: refused")

// Error is a refused envelope or key file. It carries the reason and, where
// known and checked to be a safe token, the version; never a part of the
// document or key material.
type Error struct {
	Reason  Reason
	Version string
}

func (e *Error) Error() string {
	if e.Version != "" {
		return "policyset: policy " + e.Version + " refused: " + string(e.Reason)
	}
	return "policyset: refused: " + string(e.Reason)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *Error) Is(target error) bool { return target == ErrRefused }

// ReasonOf returns the reason of a refusal, or "" for another error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func refused(r Reason, version string) *Error { return &Error{Reason: r, Version: version} }
