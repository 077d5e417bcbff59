package wire

// Reasons of a JSON-RPC error envelope whose id is null. When a pass fails
// inside an envelope before it has read the envelope's top-level id, it
// reads the rest of the input with the lexer only to find the id; these say
// why the error envelope's id is null all the same (evidence field
// idNullReason). None is a failure of the message: the message's own code
// and reason say why it was rejected.
const (
	// ReasonRPCIDNotRead: the rest of the input was not read: the failure
	// was a read error, a deadline or an internal fault, or reading the rest
	// failed.
	ReasonRPCIDNotRead Reason = "rpcid-not-read"
	// ReasonRPCIDInputEnded: the input ended before the envelope's object
	// closed.
	ReasonRPCIDInputEnded Reason = "rpcid-input-ended"
	// ReasonRPCIDMalformed: the rest of the input is not well-formed JSON.
	ReasonRPCIDMalformed Reason = "rpcid-malformed"
	// ReasonRPCIDDepth: the rest of the input nests deeper than the depth
	// bound.
	ReasonRPCIDDepth Reason = "rpcid-depth"
	// ReasonRPCIDBytes: the rest of the input is longer than the pass reads
	// after a failure (1 GiB).
	ReasonRPCIDBytes Reason = "rpcid-bytes"
	// ReasonRPCIDDeadline: the caller's context ended while the rest of the
	// input was read.
	ReasonRPCIDDeadline Reason = "rpcid-deadline"
	// ReasonRPCIDMissing: the envelope has no top-level id.
	ReasonRPCIDMissing Reason = "rpcid-missing"
	// ReasonRPCIDDuplicate: the envelope has more than one top-level id
	// (keys compared after sanitizing, as for duplicate-key).
	ReasonRPCIDDuplicate Reason = "rpcid-duplicate"
	// ReasonRPCIDUnusable: the id is not a string or a number, is longer
	// than 128 bytes sanitized, or cannot be kept: the failure is inside
	// it, a bound dropped it, or it holds invalid UTF-8 under the reject
	// policy.
	ReasonRPCIDUnusable Reason = "rpcid-unusable"
)

// rpcIDReasons lists the reasons above, in declaration order.
var rpcIDReasons = []Reason{
	ReasonRPCIDNotRead,
	ReasonRPCIDInputEnded,
	ReasonRPCIDMalformed,
	ReasonRPCIDDepth,
	ReasonRPCIDBytes,
	ReasonRPCIDDeadline,
	ReasonRPCIDMissing,
	ReasonRPCIDDuplicate,
	ReasonRPCIDUnusable,
}
