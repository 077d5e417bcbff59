package wire

// Framing says how the body of a message is framed: whether it is the MCP
// result itself or a JSON-RPC message that carries it. The caller knows it
// from the transport (the JSON-RPC framing a proxy reads, a NATS header, a
// scan flag); the body, which the tool controls, never decides it where the
// caller said.
type Framing string

// Framings.
const (
	// FramingAuto: the caller does not say. The pass takes a top-level
	// object for a JSON-RPC envelope only when it carries a "jsonrpc"
	// member and none of the result's own members (a body that has both
	// is rejected in every framing, ReasonEnvelopeMixed); otherwise it is
	// a bare result.
	FramingAuto Framing = "auto"
	// FramingBare: the body is the result. Members named like an
	// envelope's are data of the result (and rejected beside the result's
	// own members).
	FramingBare Framing = "bare"
	// FramingJSONRPC: the body is a JSON-RPC message; a tool result is its
	// "result" member. The result's own members at the top level are
	// rejected (ReasonEnvelopeMixed).
	FramingJSONRPC Framing = "jsonrpc"
)

// HeaderFraming carries the Framing of a request body ("bare" or
// "jsonrpc"; absent or "auto": FramingAuto). Another value is refused
// (ReasonUnknownFraming).
const HeaderFraming = "Mcp-Framing"

// Framings lists the framings in a stable order.
func Framings() []Framing { return []Framing{FramingAuto, FramingBare, FramingJSONRPC} }

// ParseFraming checks a framing name; the empty string is FramingAuto.
func ParseFraming(s string) (Framing, bool) {
	if s == "" {
		return FramingAuto, true
	}
	for _, f := range Framings() {
		if string(f) == s {
			return f, true
		}
	}
	return "", false
}
