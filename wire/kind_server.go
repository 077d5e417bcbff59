package wire

// Kinds of the server-to-client messages that have a guard of their own
// beyond the seven kinds of kind.go (docs/pipeline.md, "Kinds of every
// server message"). Each is the last token of mcp.sanitize.<kind>; the
// spelling never changes.
const (
	// KindInitializeResult: the result of initialize (2025-11-25) or of
	// server/discover (2026-07-28): instructions, serverInfo, capabilities.
	KindInitializeResult Kind = "initialize-result"
	// KindToolsList: a tools/list result (ListToolsResult). Its tool
	// definitions are attributed and pinned (docs/pinning.md).
	KindToolsList Kind = "tools-list"
	// KindPromptsList: a prompts/list result (ListPromptsResult).
	KindPromptsList Kind = "prompts-list"
	// KindResourcesList: a resources/list result (ListResourcesResult).
	KindResourcesList Kind = "resources-list"
	// KindResourceTemplatesList: a resources/templates/list result
	// (ListResourceTemplatesResult).
	KindResourceTemplatesList Kind = "resource-templates-list"
	// KindTaskResult: what a server says of a task: the result of
	// tasks/get and tasks/cancel (a Task), of tasks/list (ListTasksResult),
	// and the CreateTaskResult a task-augmented request answers at once.
	// The result of tasks/result is the task's own result (a tool result).
	KindTaskResult Kind = "task-result"
	// KindSamplingRequest: a sampling/createMessage request of the server.
	KindSamplingRequest Kind = "sampling-request"
	// KindRootsRequest: a roots/list request of the server.
	KindRootsRequest Kind = "roots-request"
	// KindNotification: a notification of the server (notifications/…):
	// message, progress, resources/updated, tasks/status, the list_changed
	// family, cancelled, elicitation/complete.
	KindNotification Kind = "notification"
	// KindRPCError: a JSON-RPC error response, whatever request it answers.
	KindRPCError Kind = "rpc-error"
)

// serverKinds lists the kinds of kind_server.go in a stable order.
func serverKinds() []Kind {
	return []Kind{KindInitializeResult, KindToolsList, KindPromptsList, KindResourcesList,
		KindResourceTemplatesList, KindTaskResult, KindSamplingRequest, KindRootsRequest,
		KindNotification, KindRPCError}
}

// IsRequestKind reports whether a message of kind k is a request or a
// notification of the server (a JSON-RPC envelope of it has a "method" and
// neither "result" nor "error"), not a response.
func IsRequestKind(k Kind) bool {
	switch k {
	case KindElicitationRequest, KindSamplingRequest, KindRootsRequest, KindNotification:
		return true
	}
	return false
}

// KindForResponse is KindForMethod for a response: a JSON-RPC error
// response is KindRPCError whatever its request was; a result is the kind
// of its request's method.
func KindForResponse(method string, isError bool) Kind {
	if isError {
		return KindRPCError
	}
	return KindForMethod(method)
}
