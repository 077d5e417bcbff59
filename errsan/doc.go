// Package errsan sanitizes the text of an error that is about to reach a
// model: a tool execution error (a CallToolResult with isError: true) or
// the message of a JSON-RPC error object. It keeps what a model can act on
// (a validation error, "not found", "permission denied", two arguments that
// exclude each other) and removes the internals of the server that raised
// it:
//
//   - stack frames and traceback blocks of JavaScript, Python, Go, Java and
//     Kotlin, .NET, Ruby, PHP and Rust (whole lines are dropped);
//   - file system paths (POSIX, Windows drive, UNC, file: URLs, relative
//     source paths, file.ext:line), replaced by "[path]";
//   - URLs, host names, IP addresses and ports, replaced by "[url]",
//     "[host]" and "[address]";
//   - SQL statements, replaced by "[sql]", and the text of database and
//     network driver errors (pq:, SQLSTATE, ERROR 1045 (28000), ORA-,
//     ECONNREFUSED, dial tcp ...), replaced by "[backend error]";
//   - environment dumps (lines of KEY=value), dropped;
//   - secrets: the scanners' Redactor when one is given (Options.Redactor),
//     and credential assignments and bearer tokens of its own, replaced by
//     "[secret]".
//
// It recognizes the shapes of the official SDKs: the TypeScript SDK's
// "MCP error <code>: " prefix (kept once, the innermost code) and the Zod
// issue lists it writes as JSON into the text, pydantic's ValidationError
// text and JSON, and the Go SDK's "validating \"arguments\": ..." chains
// (whose JSON pointers such as /properties/a are schema locations, not
// paths). Zod and pydantic issue lists are rewritten as "message at path",
// without the echoed input.
//
// The result is bounded (Options.MaxBytes, Options.MaxLines) and never
// holds a line that still looks like a path or a frame: a final check drops
// any line the scrubbers left with one (Check is that test, exported for
// callers and fuzzers). What was removed is reported as counts per Kind,
// never as text.
//
// What it does not own: deciding whether an error is rewritten at all, the
// policy's code map and the framing of the rewritten result (package
// pipeline), and the secret rules themselves (package scanners).
package errsan
