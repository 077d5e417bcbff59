package wire

// Reasons of the error sanitizer (tool execution errors, code TOOL_ERROR,
// and JSON-RPC error objects).
const (
	// ReasonErrorSanitized: a tool execution error whose code the policy
	// does not map, delivered as its own text with the internals removed
	// (errors.mode keep-actionable). ReasonUnmapped is what an unmapped
	// error says when the generic message is delivered instead.
	ReasonErrorSanitized Reason = "sanitized"
)

// errorReasons lists the reasons above for Reasons.
var errorReasons = []Reason{ReasonErrorSanitized, ReasonRPCErrorBytes}

// ReasonRPCErrorBytes: a JSON-RPC error object larger than the pass holds
// to rewrite it (BOUND_EXCEEDED).
const ReasonRPCErrorBytes Reason = "rpc-error-bytes"
