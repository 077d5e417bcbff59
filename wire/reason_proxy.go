package wire

// Reasons of the proxy (package proxy, `sanitize-worker proxy`): why a
// message between an MCP client and server was refused or failed closed
// before or instead of a pass.
const (
	// ReasonMessageBytes: a message longer than the proxy's bound
	// (BOUND_EXCEEDED); it is refused without being buffered whole.
	ReasonMessageBytes Reason = "message-bytes"
	// ReasonNotJSONRPC: a server line that is not one JSON-RPC message
	// object (INVALID_CONTENT); it cannot be routed and is dropped.
	ReasonNotJSONRPC Reason = "not-jsonrpc"
	// ReasonPendingFull: more client requests in flight than the proxy
	// keeps (BOUND_EXCEEDED); the request is answered with an error and
	// not forwarded.
	ReasonPendingFull Reason = "pending-full"
	// ReasonNoWorkers: the proxy sanitizes through the fleet and no worker
	// answers on the inline subject (INTERNAL).
	ReasonNoWorkers Reason = "no-workers"
	// ReasonFleetError: the fleet's reply could not be had or decoded
	// (INTERNAL).
	ReasonFleetError Reason = "fleet-error"
	// ReasonUpstreamError: the HTTP upstream could not be reached or
	// answered with a body the proxy cannot relay (INTERNAL).
	ReasonUpstreamError Reason = "upstream-error"
	// ReasonPendingExpired: a client request that waited for its answer
	// longer than the proxy's pending timeout was evicted to make room
	// for a new one (TIMEOUT); the client is answered with this error and
	// the server told the request is cancelled.
	ReasonPendingExpired Reason = "pending-expired"
	// ReasonRequestGone: a server response to a request the client
	// cancelled or the proxy evicted (INVALID_CONTENT); no one awaits it,
	// and it is dropped.
	ReasonRequestGone Reason = "request-gone"
)

// proxyReasons lists the reasons above, in declaration order.
var proxyReasons = []Reason{
	ReasonMessageBytes, ReasonNotJSONRPC, ReasonPendingFull, ReasonNoWorkers, ReasonFleetError,
	ReasonUpstreamError, ReasonPendingExpired, ReasonRequestGone,
}
