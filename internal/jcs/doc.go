// Package jcs implements the JSON Canonicalization Scheme of RFC 8785 over a
// strict I-JSON (RFC 7493) parser (package strictjson): UTF-8 only, no
// duplicate member names, no lone surrogates, numbers that fit an IEEE-754
// double. Object members are sorted by their UTF-16 code units; numbers are
// written as ECMAScript 6 Number.prototype.toString writes them; strings use
// the minimal escapes.
//
// Canonical bytes are what the digests of packages statekeys (request state
// bindings), elicit (form schemas and policies) and schema (the cache key of
// a compiled schema) are taken over, so two JSON texts that differ only in
// whitespace, member order, escapes or number spelling give the same digest,
// and anything else does not.
//
// It owns Canonicalize, Parse (one strict value into map[string]any, []any,
// json.Number, string, bool and nil) and Append (the canonical form of such a
// value). It does not own the limits of its callers beyond DefaultMaxDepth,
// and its one error, ErrInvalid, carries no input.
package jcs
