package worker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The NATS side of the resource, prompt and completion guards: the
// request context read from the headers, and the adapters of the hooks
// (the authorization hook as a NATS request, the completion budget as a
// KV counter, budget_kv.go).

// guardConfig holds the hooks of the guards.
type guardConfig struct {
	authorizer resgate.Authorizer
	budget     promptgate.Budget
}

// WithCompletionBudget sets the completion budget (see KVBudget). Without
// one, every completion a policy's completions guard sees is refused.
func WithCompletionBudget(b promptgate.Budget) ServeOption {
	return func(c *serveConfig) error {
		if b == nil {
			return optErr("nil completion budget")
		}
		c.guards.budget = b
		return nil
	}
}

// WithAuthorizer sets the resource authorization hook (see
// NATSAuthorizer). Without one, every resource a policy's resources guard
// sees is refused.
func WithAuthorizer(a resgate.Authorizer) ServeOption {
	return func(c *serveConfig) error {
		if a == nil {
			return optErr("nil authorizer")
		}
		c.guards.authorizer = a
		return nil
	}
}

// Bounds of the guard headers.
const (
	maxPrincipalBytes = 256
	maxScopes         = 64
	maxScopeBytes     = 128
	// MaxRequestParamsBytes is the largest Mcp-Request-Params header read;
	// a larger one is dropped (the guards then refuse the result).
	MaxRequestParamsBytes = 64 << 10
)

// guardInput reads the guards' request context from the headers, with
// the service's hooks.
func (s *Service) guardInput(mc *msgContext, hdr nats.Header) *pipeline.GuardInput {
	g := RequestContext(hdr, mc.info.Tenant)
	g.Authorizer, g.Budget = s.cfg.guards.authorizer, s.cfg.guards.budget
	return g
}

// RequestContext reads the guards' request context from the headers
// (Mcp-Principal, Mcp-Scopes, Mcp-Request-Params), without hooks: the
// worker's on a message, and a re-scan's on an archived input, which
// keeps the headers. A value out of bounds or shape is dropped, so that
// the guard refuses (no principal, no request) rather than acts on part
// of it.
func RequestContext(hdr nats.Header, tenant string) *pipeline.GuardInput {
	g := &pipeline.GuardInput{Tenant: tenant}
	if p := hdr.Get(wire.HeaderPrincipal); printableToken(p, maxPrincipalBytes) {
		g.Principal = p
	}
	if sc := hdr.Get(wire.HeaderScopes); sc != "" {
		f := strings.Fields(sc)
		ok := len(f) <= maxScopes
		for _, x := range f {
			ok = ok && printableToken(x, maxScopeBytes)
		}
		if ok {
			g.Scopes = f
		}
	}
	if rp := hdr.Get(wire.HeaderRequestParams); rp != "" && len(rp) <= MaxRequestParamsBytes {
		g.Request = []byte(rp)
	}
	return g
}

// printableToken reports 1..max bytes of printable ASCII without space.
func printableToken(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// NATSAuthorizer asks the deployment's authorization service over NATS
// request/reply: the request is the JSON of resgate.AuthzRequest, the
// reply must be exactly {"outcome":"ALLOW"} to allow (docs/resources.md).
// Any other reply is a denial; no responder, a timeout or a reply that is
// not strict JSON is an outage, which the gate also treats as a denial.
type NATSAuthorizer struct {
	nc      *nats.Conn
	subject string
	timeout time.Duration
}

// DefaultAuthzTimeout bounds one authorization request.
const DefaultAuthzTimeout = 2 * time.Second

// maxAuthzReply is the largest reply read.
const maxAuthzReply = 4 << 10

// ErrAuthzUnavailable is what an outage of the authorization service
// wraps; it carries no backend text.
var ErrAuthzUnavailable = errors.New("worker: authorization service unavailable")

// NewNATSAuthorizer asks on subject (wire.SubjectResourceAuthz when "")
// with a timeout per request (DefaultAuthzTimeout when 0).
func NewNATSAuthorizer(nc *nats.Conn, subject string, timeout time.Duration) (*NATSAuthorizer, error) {
	if nc == nil {
		return nil, optErr("nil connection for the authorizer")
	}
	if subject == "" {
		subject = wire.SubjectResourceAuthz
	}
	if err := validSubject(subject); err != nil {
		return nil, optErr("authorization subject: " + err.Error())
	}
	if timeout == 0 {
		timeout = DefaultAuthzTimeout
	}
	if timeout < 0 {
		return nil, optErr("negative authorization timeout")
	}
	return &NATSAuthorizer{nc: nc, subject: subject, timeout: timeout}, nil
}

// Authorize implements resgate.Authorizer.
func (a *NATSAuthorizer) Authorize(ctx context.Context, req resgate.AuthzRequest) (resgate.Decision, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return resgate.Decision{}, ErrAuthzUnavailable
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	msg, err := a.nc.RequestWithContext(ctx, a.subject, data)
	if err != nil || len(msg.Data) > maxAuthzReply {
		return resgate.Decision{}, ErrAuthzUnavailable
	}
	var d resgate.Decision
	if err := strictjson.Unmarshal(msg.Data, 2, &d); err != nil {
		// Not an answer: an outage, not a decision.
		return resgate.Decision{}, ErrAuthzUnavailable
	}
	return d, nil
}

// validSubject checks a literal subject of tokens (no wildcard).
func validSubject(s string) error {
	for _, tok := range strings.Split(s, ".") {
		if err := wire.CheckToken(tok); err != nil {
			return err
		}
	}
	return nil
}
