package wire

// Kind names the MCP message a pass sanitizes. It is the last token of the
// mcp.sanitize.<kind> and mcp.raw.<tenant>.<server>.<kind> subjects and the
// value of HeaderKind. Only KindToolResult has a specific shape in the
// pipeline today; the other kinds are sanitized as generic JSON.
type Kind string

// Kinds of message.
const (
	KindToolResult          Kind = "tool-result"
	KindResourceResult      Kind = "resource-result"
	KindPromptResult        Kind = "prompt-result"
	KindCompletionResult    Kind = "completion-result"
	KindElicitationRequest  Kind = "elicitation-request"
	KindElicitationResponse Kind = "elicitation-response"
	KindInputRequired       Kind = "input-required"
)

// Kinds lists every kind in a stable order.
func Kinds() []Kind {
	return []Kind{KindToolResult, KindResourceResult, KindPromptResult, KindCompletionResult,
		KindElicitationRequest, KindElicitationResponse, KindInputRequired, KindGeneric}
}

// ParseKind checks a kind name.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}
