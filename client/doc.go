// Package client is the Go side of a producer: an MCP server written in Go
// hands each tool output to the sanitize-worker fleet over NATS and gets
// back the sanitized message.
//
// Two paths, as in docs/nats.md:
//
//   - Sanitize: request/reply on mcp.sanitize.<kind>, for a server that
//     waits for the clean result. Each call has a timeout chosen by tool
//     name (WithToolTimeouts, a default for the others); expiry is a
//     *TimeoutError with code TIMEOUT, as in the seed's per-tool
//     ToolTimeoutError.
//   - Publish: JetStream publish to mcp.raw.<tenant>.<server>.<kind>, for
//     asynchronous and batch work; the sanitized message appears on
//     mcp.clean.<tenant>.<server>.<kind>. Nats-Msg-Id comes from
//     Metadata.RequestID, or else from a SHA-256 digest of tenant, server,
//     kind and body, so a retried publish is deduplicated by the stream.
//
// Bodies travel as package payload writes them: compressed above a
// threshold (Content-Encoding), and by reference through the Object Store
// bucket mcp-payloads (Mcp-Claim) when they would not fit in the server's
// max payload. Replies are decoded the same way, transparently and with a
// bound on their decoded size.
//
// The package does not sanitize anything itself, start workers, or create
// streams and buckets: those belong to sanitize-worker serve.
package client
