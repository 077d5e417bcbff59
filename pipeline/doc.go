// Package pipeline sanitizes one MCP message in a single streaming pass.
//
// The pass reads JSON as a stream of bytes, never building the document in
// memory. It is three parts, each a type of its own, driven by one loop
// (tokens.go) without an interface call per byte or per token:
//
//   - the lexer, internal/jsonlex: JSON only, resumable at any byte, zero
//     value ready; it returns tokens and string segments with their offsets;
//   - the shape layer, shaper (shape.go, structured.go, toolerror.go): the
//     MCP role of each value, how a message is classified (a result or a
//     JSON-RPC envelope), _meta, labels, tool errors, the outputSchema hold,
//     and the container bounds; the outputSchema hold's state is its own
//     type, schemaPass (structured.go);
//   - the string chain, chain (decode.go, strings.go, shadow.go): per string
//     value and object key, escape decoding, invalid UTF-8 replacement,
//     scanners.Normalizer, scanners.Redactor, character bounds, and the
//     emitter (emit.go) that re-escapes and writes at once.
//
// Methods on shaper, schemaPass and chain use their own state and their
// arguments only, and return what they decide (a role, a _meta slot, a
// tool error's code, a base64 fault, the text of a batch). The methods on
// pass are the coordinator: they act on those decisions where an action
// touches more than one part — writing output, recording evidence,
// checking bounds, failing the pass (docs/pipeline.md, "Who does what").
//
// Numbers and literals pass through verbatim. Memory per message depends on
// the read chunk and the configured bounds (package bounds: the one table of
// limits, defaults and what a crossing does), not on the size of the message
// or of any one string.
//
// A text block of a result with an outputSchema that may mirror its
// structuredContent is held as it was decoded and scanned only when the
// result closes and it is not the mirror; a mirror is regenerated from the
// sanitized structuredContent without a scan, so its findings are
// structuredContent's (structured_defer.go). Whether sanitizing changed any
// key or string of structuredContent the pass tells as it writes them
// (structured_same.go), so an unchanged value is not compared again.
//
// Text that the normalizer and the redactor leave as it was is written from
// its escaped shadow (shadow.go), a copy of its input escapes kept while it
// is decoded, instead of being escaped again. On amd64 with AVX2 the
// chain's decoding fast path and the rune and escape counts run as assembly
// kernels (decoderun_amd64.s), each beside the Go function that specifies it
// and a test that compares the two (docs/kernels.md).
//
// The pipeline knows MCP shapes (a CallToolResult's content blocks, its
// structuredContent, its _meta, the JSON-RPC envelope) and the policy; it does
// not know NATS. Each message yields the sanitized message and an Evidence
// record. A message that cannot be sanitized safely — invalid JSON, a bound
// whose action is reject, a deadline, an internal fault — yields a sanitized
// error result with a stable Code instead, never the raw input.
//
// The binary data of a content block (binary.go) is checked against its
// mimeType: a text type is decoded, sanitized and re-encoded; a type
// outside the allow-list, or bytes that are not the declared type, get the
// block replaced by a text note (policy binary.disallowed), the rest of
// the result delivered. The block is held until that is decided, bounded
// by binary-hold-bytes, so the mimeType may come before or after the data.
package pipeline
