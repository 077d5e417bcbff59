// Package schema compiles and applies JSON Schemas that MCP tools declare
// (inputSchema, outputSchema) without ever reaching the network or the file
// system.
//
// What it owns:
//
//   - Compile: JSON Schema 2020-12 is the dialect when "$schema" is absent
//     (draft-04, -06, -07 and 2019-09 are honoured when named). The only
//     documents a schema may reference outside itself are the official
//     meta-schemas bundled by github.com/santhosh-tekuri/jsonschema/v6; every
//     other reference (http, https, file, urn, relative to a remote $id) is
//     a compile error with code SCHEMA_REF_DENIED, and a reference to a part
//     of the schema that does not exist is SCHEMA_REF_UNRESOLVED — never
//     "valid". Size and depth limits (Limits) fail closed.
//   - Digest: "sha256:" + hex SHA-256 of the RFC 8785 canonical form of the
//     schema (jcs.Canonicalize), the key of Cache and the value recorded
//     in results and evidence.
//   - Decode: strict JSON bytes to the value representation the validator
//     uses (map[string]any, []any, json.Number, string, bool, nil), refusing
//     duplicate member names, invalid UTF-8, lone surrogates and over-deep
//     values.
//   - SameValue: whether a second JSON text holds the same tokens as a
//     first (strings equal once unescaped, numbers written alike), told
//     without decoding either, so a caller that decoded and validated the
//     first need not decode the second.
//   - Validate: a *Violation (keyword, instance JSON pointer, schema JSON
//     pointer of the most specific failing keyword) or nil; a Violation
//     never holds the value.
//   - Project: drops object members the schema does not declare (see
//     project.go for the exact, conservative rules) and reports the JSON
//     pointers of what it dropped.
//
// What it does not own: reading structured content from a stream, redaction,
// or building error results (package pipeline and package argsgate do).
//
// Validation is done by santhosh-tekuri/jsonschema/v6, which passes every
// required case of the official JSON-Schema-Test-Suite for draft 2020-12 (see
// suite_test.go and docs/schema.md). Patterns are Go RE2 regular expressions
// (linear time; ECMA-262 constructs RE2 lacks, such as look-around and
// back-references, make a schema fail to compile).
package schema
