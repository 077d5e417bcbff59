package wire

import "slices"

// KindGeneric is the kind of a server-to-client message that has no
// dedicated kind: every string of it (member names included) goes through
// the string chain, bounds apply, the project's reserved _meta keys are
// refused from the server and JSON-RPC ids are preserved. Unknown methods
// get it too, so nothing reaches a client unsanitized.
const KindGeneric Kind = "generic"

// MCP methods whose messages travel from server to client: the results of
// the client's requests (keyed by the request's method), the server's own
// requests and its notifications. Revisions 2026-07-28 and 2025-11-25.
const (
	MethodInitialize            = "initialize"
	MethodServerDiscover        = "server/discover"
	MethodPing                  = "ping"
	MethodToolsList             = "tools/list"
	MethodToolsCall             = "tools/call"
	MethodPromptsList           = "prompts/list"
	MethodPromptsGet            = "prompts/get"
	MethodResourcesList         = "resources/list"
	MethodResourcesTemplates    = "resources/templates/list"
	MethodResourcesRead         = "resources/read"
	MethodResourcesSubscribe    = "resources/subscribe"
	MethodResourcesUnsubscribe  = "resources/unsubscribe"
	MethodSubscriptionsListen   = "subscriptions/listen"
	MethodCompletionComplete    = "completion/complete"
	MethodLoggingSetLevel       = "logging/setLevel"
	MethodTasksGet              = "tasks/get"
	MethodTasksList             = "tasks/list"
	MethodTasksResult           = "tasks/result"
	MethodTasksCancel           = "tasks/cancel"
	MethodSamplingCreateMessage = "sampling/createMessage"
	MethodElicitationCreate     = "elicitation/create"
	MethodRootsList             = "roots/list"

	MethodNotifyMessage              = "notifications/message"
	MethodNotifyProgress             = "notifications/progress"
	MethodNotifyCancelled            = "notifications/cancelled"
	MethodNotifyResourceUpdated      = "notifications/resources/updated"
	MethodNotifyResourcesListChanged = "notifications/resources/list_changed"
	MethodNotifyToolsListChanged     = "notifications/tools/list_changed"
	MethodNotifyPromptsListChanged   = "notifications/prompts/list_changed"
	MethodNotifyTasksStatus          = "notifications/tasks/status"
	MethodNotifyElicitationComplete  = "notifications/elicitation/complete"
	MethodNotifySubscriptionsAcked   = "notifications/subscriptions/acknowledged"
)

// methodKinds maps an MCP method to the kind of the server-to-client
// message it names: for a client request, the kind of its result; for a
// server request or a notification, the kind of the message itself. A
// method absent here is KindGeneric (KindForMethod).
var methodKinds = map[string]Kind{
	MethodToolsCall:          KindToolResult,
	MethodResourcesRead:      KindResourceResult,
	MethodPromptsGet:         KindPromptResult,
	MethodCompletionComplete: KindCompletionResult,
	MethodElicitationCreate:  KindElicitationRequest,

	// Kinds of kind_server.go.
	MethodInitialize:                 KindInitializeResult,
	MethodServerDiscover:             KindInitializeResult,
	MethodToolsList:                  KindToolsList,
	MethodPromptsList:                KindPromptsList,
	MethodResourcesList:              KindResourcesList,
	MethodResourcesTemplates:         KindResourceTemplatesList,
	MethodTasksGet:                   KindTaskResult,
	MethodTasksList:                  KindTaskResult,
	MethodTasksCancel:                KindTaskResult,
	MethodTasksResult:                KindToolResult, // the task's own result: tasks augment tools/call
	MethodSamplingCreateMessage:      KindSamplingRequest,
	MethodRootsList:                  KindRootsRequest,
	MethodNotifyMessage:              KindNotification,
	MethodNotifyProgress:             KindNotification,
	MethodNotifyCancelled:            KindNotification,
	MethodNotifyResourceUpdated:      KindNotification,
	MethodNotifyResourcesListChanged: KindNotification,
	MethodNotifyToolsListChanged:     KindNotification,
	MethodNotifyPromptsListChanged:   KindNotification,
	MethodNotifyTasksStatus:          KindNotification,
	MethodNotifyElicitationComplete:  KindNotification,
	MethodNotifySubscriptionsAcked:   KindNotification,
}

// KindForMethod returns the kind that sanitizes the server-to-client
// message of an MCP method (see methodKinds); an unknown or empty method is
// KindGeneric, never an error: a message the project does not know is
// sanitized as generic JSON, not passed raw.
func KindForMethod(method string) Kind {
	if k, ok := methodKinds[method]; ok {
		return k
	}
	return KindGeneric
}

// KnownMethods lists the methods methodKinds names, for usage texts.
func KnownMethods() []string {
	out := make([]string, 0, len(methodKinds))
	for m := range methodKinds {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}
