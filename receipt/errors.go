package receipt

import "bytes"

// Reason says why a receipt was refused. Reasons are stable kebab-case
// names for evidence; the public reply is one non-enumerating error.
type Reason string

// Reasons, in the order Verify checks.
const (
	ReasonMalformed     Reason = "receipt-malformed"      // not the envelope or receipt shape: missing, extra or mistyped fields
	ReasonUnknownKey    Reason = "receipt-unknown-key"    // keyId is not a trusted broker key
	ReasonSignature     Reason = "receipt-signature"      // the signature does not verify (forgery, any change)
	ReasonSchemaVersion Reason = "receipt-schema-version" // schemaVersion is not SchemaVersion
	ReasonControl       Reason = "receipt-control"        // control is not AID-H-018.009
	ReasonOutcome       Reason = "receipt-outcome"        // outcome is not PASS
	ReasonOperation     Reason = "receipt-operation"      // operation is not read
	ReasonRoot          Reason = "receipt-root"           // rootId is not the canonical URI's root
	ReasonPath          Reason = "receipt-path"           // relativePath is not the canonical URI's
	ReasonPolicyVersion Reason = "receipt-policy-version" // policyVersion is not the signed policy's
	ReasonAdapter       Reason = "receipt-adapter"        // adapterBuildSha256 is not the policy's
	ReasonPlatform      Reason = "receipt-platform"       // platformProfile empty or not accepted
	ReasonTooLarge      Reason = "receipt-too-large"      // the content passes the byte cap
	ReasonStale         Reason = "receipt-stale"          // issued in the future, expired, or lifetime too long
	ReasonContent       Reason = "receipt-content"        // bytesSha256 is not the content's SHA-256
	ReasonObject        Reason = "receipt-object"         // not a regular file, size differs, links, empty ids
	ReasonDigest        Reason = "receipt-digest"         // receiptSha256 is not the receipt's digest
)

// Reasons lists every reason.
func Reasons() []Reason {
	return []Reason{ReasonMalformed, ReasonUnknownKey, ReasonSignature, ReasonSchemaVersion, ReasonControl,
		ReasonOutcome, ReasonOperation, ReasonRoot, ReasonPath, ReasonPolicyVersion, ReasonAdapter,
		ReasonPlatform, ReasonTooLarge, ReasonStale, ReasonContent, ReasonObject, ReasonDigest}
}

// Error is a refused receipt.
type Error struct{ Reason Reason }

func (e *Error) Error() string { return "receipt: " + string(e.Reason) }

// Is matches an *Error of the same reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

func fail(r Reason) *Error { return &Error{Reason: r} }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
