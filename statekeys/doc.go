// Package statekeys seals and verifies the requestState of MCP multi-round-trip
// requests (MRTR, revision 2026-07-28) and guards the elicitations they carry.
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
//   - The elicitation guards: form mode needs an Ed25519-signed form policy
//     covering the schema digest, refuses prohibited data classes and
//     disguised sensitive fields, and validates responses without coercion
//     or extra properties under a byte cap; URL mode needs https, no secrets
//     in the URL, and an elicitationId bound to the same identity.
//   - Canonicalize: RFC 8785 JSON canonicalization over a strict I-JSON
//     parser.
//
// What it does not own: NATS, subjects, metrics, or where evidence goes (the
// worker package adapts this package to NATS); authenticating users and
// clients (the MCP server vouches for the Identity it passes); the browser
// callback of URL mode (the server reports completions in VerifyRequest).
//
// Key material never appears in an error, a String method, or Evidence. It
// leaves a Ring only through Ring.MarshalFile and Ring.WriteFile.
package statekeys
