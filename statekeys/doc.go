// Package statekeys seals and verifies the requestState of MCP multi-round-trip
// requests (MRTR, revision 2026-07-28) and binds the input requests they
// carry.
//
// A server that needs input returns an InputRequiredResult: inputRequests and
// a requestState the client must send back, unchanged, when it retries the
// original request with inputResponses. The spec says to treat requestState as
// attacker-controlled. Here it is an XChaCha20-Poly1305 token (see
// docs/statekeys.md for the format and the choice of AEAD) whose sealed
// payload binds a hash of the subject, the tenant, a hash of the client id,
// the method (tools/call, prompts/get or resources/read), a hash of the name,
// the SHA-256 of the RFC 8785 canonical arguments, a digest of each input
// request (and of each form schema), an expiry, a flow id and a nonce. The
// token names its key id; the associated data fixes purpose and version.
//
// What it owns:
//
//   - Keyring and Ring: keys with states active, staged, verify and retired, loaded
//     from a file, the environment or any Source (the worker adds a NATS KV
//     source), swapped atomically so rotation needs no restart.
//   - Keeper.Seal and Keeper.Verify. Verify checks every binding, the
//     expiry, each input response against what was requested, and then
//     consumes the flow id once through a Store (MemoryStore here; the
//     worker provides a JetStream KV store). Every verification failure is
//     the same public error (CodeRejected); the reason goes to Evidence.
//   - One spelling per state (seal.go): a token holds only bytes of its
//     alphabet and canonical base64url, so it has one stateDigest; and
//     DecodeEnvelope (envelope.go), the strict I-JSON reading with exact
//     member names of the seal and verify envelopes a transport carries.
//   - The bindings (bindings.go) and the Guard seam (guard.go): the Keeper
//     parses inputRequests, seals a digest of each and what the Guard
//     approved for it, and on Verify hands each response to the Guard and
//     checks a completed URL flow against the sealed identity. Without a
//     Guard (WithGuard) every elicitation is refused.
//
// What it does not own: the elicitation guards (package elicit: form
// policies, the flat form schema, disguised fields, secrets in URLs,
// response validation), RFC 8785 canonicalization (internal/jcs), NATS, subjects, metrics, or where evidence goes (the
// worker package adapts this package to NATS); authenticating users and
// clients (the MCP server vouches for the Identity it passes); the browser
// callback of URL mode (the server reports completions in VerifyRequest).
//
// Imports: of this module only the vocabulary (wire: its codes, public
// messages and reasons are declared there with every other) and internal
// leaves (internal/jcs, internal/strictjson); package elicit imports statekeys, never the other
// way, so statekeys stays free of the scanners.
//
// Key material never appears in an error, a String method, or Evidence. It
// leaves a Ring only through Ring.MarshalFile and Ring.WriteFile.
package statekeys
