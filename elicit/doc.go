// Package elicit guards the elicitations that MCP multi-round-trip requests
// carry (inputRequests of an InputRequiredResult, seeds G005 and G006). Its
// Guard plugs into a statekeys.Keeper (statekeys.WithGuard): the Keeper
// parses and binds the input requests, the Guard decides whether each
// elicitation may be asked for and whether its response fits.
//
// What it owns:
//
//   - Form mode (form.go): a form is accepted only when an Ed25519-signed
//     form policy covers the SHA-256 of its canonical schema; the schema must
//     be the flat form schema of the MCP spec; no field may belong to a
//     prohibited data class or ask for sensitive data in disguise
//     (sensitive.go); responses are validated without coercion or extra
//     properties under the policy's byte cap (JSON Schema 2020-12, external
//     references refused). SignFormPolicy and VerifyFormPolicy are for
//     reviewer tooling; CheckFormRequest and ValidateFormResponse run the
//     same checks outside MRTR.
//   - URL mode (url.go): https only, no user info, no query or fragment
//     parameter named like a secret, no value in which the scanners' catalog
//     finds a secret (secrets.go) and no long opaque random value, and an
//     elicitationId the sealed state binds to the identity.
//   - Configuration documents (config.go): the trusted reviewer keys
//     (ParsePolicyKeys) and installed signed form policies
//     (ParseFormPolicies) that sanitize-worker state reads from
//     --policy-keys and --form-policies.
//
// It uses package scanners for what scanners own: the Normalizer and its
// look-alike table to read labels as a model would, and the rule catalog to
// find credentials. Of its own it keeps the rules of what a form may ask
// (sensitive.go), the parameter names a URL may not carry, the rule that a
// URL carries no long opaque random value, and eleven letters folded on top
// of the scanners' look-alike table (labelLookalikes, letters the scanners
// keep for text in general).
//
// What it does not own: sealing, keys, single use and the identity binding
// (package statekeys), canonical JSON (internal/jcs), and the browser flow
// of URL mode. Errors are *statekeys.Error with CodeFormRefused,
// CodeURLRefused or CodeResponseRefused; their messages never carry input.
package elicit
