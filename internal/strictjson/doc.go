// Package strictjson decodes one strict I-JSON (RFC 7493) value: UTF-8
// only, no duplicate member names, no lone surrogate escapes, numbers that
// fit an IEEE-754 double, no trailing data, a bounded nesting depth. Package
// schema validates with it and package statekeys canonicalizes (RFC 8785)
// with it, so both refuse exactly the same texts. Unmarshal adds exact
// member names on top (no other letter case, no unknown member) for the
// envelopes and documents that decode into Go structs: the request-state
// envelopes of package worker (through statekeys.DecodeEnvelope), the
// sealed payload and the key ring of statekeys, the form policies of
// elicit.
package strictjson
