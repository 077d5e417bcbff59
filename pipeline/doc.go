// Package pipeline sanitizes one MCP message in a single streaming pass.
//
// The pass reads JSON as a stream of bytes, never building the document in
// memory: a resumable lexer validates the syntax and hands each string value
// (and each object key) to a per-string chain — escape decoding, invalid UTF-8
// replacement, scanners.Normalizer, scanners.Redactor, character bounds — whose
// output is re-escaped and written at once. Numbers and literals pass through
// verbatim. Memory per message depends on the read chunk and the configured
// bounds, not on the size of the message or of any one string.
//
// Text that the normalizer and the redactor leave as it was is written from
// its escaped shadow (shadow.go), a copy of its input escapes kept by the
// lexer, instead of being escaped again. On amd64 with AVX2 the lexer's fast
// path and the rune and escape counts run as assembly kernels
// (decoderun_amd64.s), each beside the Go function that specifies it and a
// test that compares the two (docs/kernels.md).
//
// The pipeline knows MCP shapes (a CallToolResult's content blocks, its
// structuredContent, its _meta, the JSON-RPC envelope) and the policy; it does
// not know NATS. Each message yields the sanitized message and an Evidence
// record. A message that cannot be sanitized safely — invalid JSON, a bound
// whose action is reject, a deadline, an internal fault — yields a sanitized
// error result with a stable Code instead, never the raw input.
package pipeline
