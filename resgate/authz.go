package resgate

import (
	"context"

	"github.com/mcp-sanitize/mcp-sanitize/receipt"
)

// Authorizer is the deployment's authorization service. Authorize is
// asked twice for a local file (phase PhaseRequested before, PhaseOpened
// after the receipt is verified) and once for any other resource. Only a
// nil error and a Decision with Outcome exactly OutcomeAllow allow; any
// other answer, an error or a timeout of ctx is a denial. Implementations
// must be safe for concurrent use.
type Authorizer interface {
	Authorize(ctx context.Context, req AuthzRequest) (Decision, error)
}

// Phases of an authorization request.
const (
	PhaseRequested = "requested_resource"
	PhaseOpened    = "opened_resource"
)

// OutcomeAllow is the one answer that allows.
const OutcomeAllow = "ALLOW"

// AuthzRequest is what the hook is asked (its JSON is the NATS request of
// worker.NATSAuthorizer; docs/resources.md).
type AuthzRequest struct {
	// Principal, Tenant and Scopes are the caller's identity as the
	// producer gave it (headers Mcp-Principal, Mcp-Tenant, Mcp-Scopes).
	Principal string   `json:"principal"`
	Tenant    string   `json:"tenant,omitempty"`
	Scopes    []string `json:"scopes,omitempty"`
	// Action is "read".
	Action       string `json:"action"`
	CanonicalURI string `json:"canonicalUri"`
	// RootID and RelativePath are set for local files.
	RootID        string `json:"rootId,omitempty"`
	RelativePath  string `json:"relativePath,omitempty"`
	PolicyVersion string `json:"policyVersion"`
	Phase         string `json:"phase"`
	// OpenedObject and PathBrokerReceiptSha256 are set in PhaseOpened.
	OpenedObject            *receipt.ObjectIdentity `json:"openedObject,omitempty"`
	PathBrokerReceiptSha256 string                  `json:"pathBrokerReceiptSha256,omitempty"`
}

// Decision is the hook's answer.
type Decision struct {
	Outcome string `json:"outcome"`
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, req AuthzRequest) (Decision, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, req AuthzRequest) (Decision, error) {
	return f(ctx, req)
}
