// Package argsgate checks the arguments of a tools/call request against the
// tool's inputSchema before the tool runs (seed 001: input validation with
// actionable errors).
//
// The answer is either valid or an MCP tool execution error — a
// CallToolResult with isError true, never a JSON-RPC protocol error — whose
// text names the tool, the parameter (JSON pointer), what was expected, and
// an example call the model can retry with. Any value echoed back is
// normalized and stripped of invisible and control characters
// (scanners.Normalizer), redacted with the secret catalog
// (scanners.Redactor), and bounded (Options.MaxEcho, 64 characters by
// default); the finished text goes through the same normalization and
// redaction once more. Unknown arguments are rejected even where the schema
// does not say additionalProperties:false (schema.Schema.Undeclared).
//
// The stable codes (Code) are in the result's _meta under
// "dev.mcp-sanitize/code" and in Result. The package does not log and keeps
// no argument: Result carries codes, keywords and sanitized pointers only.
//
// It is used by the worker's mcp.args.validate service and by the
// `sanitize-worker args` command.
package argsgate
