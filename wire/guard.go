package wire

// Request headers of the resource, prompt and completion guards
// (docs/resources.md). Like every header they come from the producer,
// which a NATS account authenticates; the guards restrict their size and
// shape before use.
const (
	// HeaderPrincipal: the principal (user or agent identity) the request
	// was made for; the completion budget is charged to it and the
	// authorization hook is asked for it.
	HeaderPrincipal = "Mcp-Principal"
	// HeaderScopes: the principal's scopes, separated by spaces (OAuth
	// style).
	HeaderScopes = "Mcp-Scopes"
	// HeaderRequestParams: the JSON of the params of the request the
	// result answers (resources/read: {"uri"}, prompts/get: {"name",
	// "arguments"}, completion/complete: {"ref", "argument", "context"}).
	HeaderRequestParams = "Mcp-Request-Params"
)

// Subjects of the guards' services.
const (
	// SubjectResourceAuthz is the default subject of the deployment's
	// resource authorization hook (request/reply; docs/resources.md).
	SubjectResourceAuthz = "mcp.authz.resource"
	// BucketBudgets is the KV bucket of the fleet-wide completion budgets.
	BucketBudgets = "mcp-budgets"
)
