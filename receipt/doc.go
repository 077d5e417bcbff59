// Package receipt verifies the signed opened-object receipts of the
// operator's path broker (seed G003, control AID-H-018.009).
//
// Local files are read by the broker, not by us. A resources/read result
// that carries local-file content must come with the broker's receipt, and
// Verify checks it before the content goes on: the Ed25519 signature of a
// trusted broker key over the receipt's canonical JSON (RFC 8785), the
// exact set of fields, schema version, control, outcome and operation,
// the bindings to what was asked (root id, relative path, policy version,
// adapter build digest), issue and expiry times, the byte length against
// the cap, the content's SHA-256, the object identity (a regular file of
// the content's size) and the receipt's own digest.
//
// What it does not own: path confinement (the broker's; no path checks of
// our own stand in for a receipt), the URI the path came from (package
// resuri) and authorization (package resgate). Errors are *Error with a
// stable Reason and never carry input.
//
// The format is in docs/resources.md.
package receipt
