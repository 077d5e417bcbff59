package pipeline

import "github.com/mcp-sanitize/mcp-sanitize/wire"

// The server-message kinds (wire/kind_server.go), under their pipeline
// names. Each has a guard (guard.go) that reads its members after the pass.
const (
	KindInitializeResult      = wire.KindInitializeResult
	KindToolsList             = wire.KindToolsList
	KindPromptsList           = wire.KindPromptsList
	KindResourcesList         = wire.KindResourcesList
	KindResourceTemplatesList = wire.KindResourceTemplatesList
	KindTaskResult            = wire.KindTaskResult
	KindSamplingRequest       = wire.KindSamplingRequest
	KindRootsRequest          = wire.KindRootsRequest
	KindNotification          = wire.KindNotification
	KindRPCError              = wire.KindRPCError
)
