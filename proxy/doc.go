// Package proxy puts the sanitization pipeline between an MCP client and
// an MCP server it does not control: `sanitize-worker proxy -- <server
// command>` (stdio) and `sanitize-worker proxy --upstream URL` (Streamable
// HTTP).
//
// Every server-to-client message goes through a pass before the client
// sees it (docs/proxy.md, "Routing"): a response by the method of the
// request it answers, which the proxy remembers per Session (the id →
// method map, bounded by Options.MaxPending); a server request or a
// notification by its own method; the kind is wire.KindForMethod's, so a
// method without a dedicated kind, or an unknown one, is sanitized as
// wire.KindGeneric and never passed raw. The ids the client and the server
// wrote are restored in what is delivered, so a pass that normalizes a
// string id does not break the pairing of requests and responses.
//
// Client-to-server messages pass unchanged, except a tools/call whose
// tool's inputSchema a tools/list result has shown: its arguments go
// through the argument gate (package argsgate), and a refused call is
// answered to the client with the seed's actionable tool error without
// reaching the server.
//
// The proxy fails closed and narrow: a response that cannot be sanitized
// becomes a JSON-RPC error for its id (-32603, a public message, never the
// server's text); a server request that cannot be is answered to the
// server with such an error; a notification that cannot be, and a line
// that is not one JSON-RPC message, are dropped with evidence. Messages
// over Options.MaxMessageBytes are refused without being buffered whole.
//
// The pass runs in this process (Engine) or in the fleet (Fleet, over
// NATS). Evidence goes to Options.Evidence (EvidenceWriter: JSON lines).
// The package does not log message content: its diagnostics are counts,
// codes and reasons.
package proxy
