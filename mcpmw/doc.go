// Package mcpmw installs the sanitization pipeline in an MCP server built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp): one
// call, Install, adds middleware that runs everything the server sends
// towards the client through a pass before the SDK writes it.
//
//   - Results and JSON-RPC errors of the client's requests (receiving
//     middleware): each is sanitized by the kind of its method
//     (wire.KindForMethod; the generic kind for methods without a
//     dedicated one), then decoded back into the SDK's result type. A
//     handler's plain Go error is sanitized as an internal JSON-RPC error
//     whose message is its text, so paths, stack frames and secrets in it
//     do not reach the client.
//   - The server's own requests and notifications (sending middleware):
//     sampling/createMessage, elicitation/create, roots/list, logging and
//     progress notifications; their params are sanitized and replaced.
//
// It fails closed: a result or request that cannot be sanitized becomes a
// JSON-RPC error (-32603, a public message, the stable code in data), a
// notification that cannot be is dropped.
//
// The pass runs in the server's process (proxy.Engine) or in the
// sanitize-worker fleet over NATS (proxy.Fleet). The package does not
// check tools/call arguments: the SDK validates them against the tool's
// inputSchema itself. It does not log content.
package mcpmw
