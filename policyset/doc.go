// Package policyset is the signed form of a sanitization policy: the
// envelope a fleet rolls out (docs/policy.md, "Signed policies and the
// fleet").
//
// What it owns: the envelope (format, version, digest of the policy,
// signing time, key id, the policy document in its RFC 8785 form, an
// Ed25519 signature over all of that), signing it (Sign), checking it
// against a set of trusted public keys (Verify: an unsigned, wrongly signed,
// altered or malformed envelope is refused with a typed *Error whose Reason
// is stable and which carries no part of the document), the trusted keys
// file and the signing key file (ParseTrust, ParseSigningKey), and the
// difference of two policies with their defaults filled (Diff).
//
// What it does not own: the policy's fields and their meaning (package
// pipeline), where envelopes are kept and how a fleet watches them (the KV
// adapter in package worker: policy_kv.go, policy_watch.go), and the
// command line (cmd/sanitize-worker policy.go). It does not import NATS.
package policyset
