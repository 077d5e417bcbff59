package wire

// Kind names the MCP message a pass sanitizes. It is the last token of the
// mcp.sanitize.<kind> and mcp.raw.<tenant>.<server>.<kind> subjects and the
// value of HeaderKind. Each kind names the members the pipeline reads with a
// role of their own (docs/pipeline.md); every other string of a message is
// sanitized as generic JSON.
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

// Kinds lists every kind in a stable order; the server-message kinds of
// kind_server.go come last.
func Kinds() []Kind {
	return append([]Kind{KindToolResult, KindResourceResult, KindPromptResult, KindCompletionResult,
		KindElicitationRequest, KindElicitationResponse, KindInputRequired},
		append(serverKinds(), KindGeneric)...)
}

// kindList is Kinds built once: ParseKind runs for every message of the
// worker, and Kinds allocates a fresh slice (callers may keep or change it).
var kindList = Kinds()

// ParseKind checks a kind name.
func ParseKind(s string) (Kind, bool) {
	for _, k := range kindList {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}
