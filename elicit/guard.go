package elicit

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// Guard decides the elicitations of MRTR request state for a
// statekeys.Keeper (statekeys.WithGuard): it holds the trusted reviewer
// keys and the installed form policies. The zero value is not usable; New
// returns a Guard. It is safe for concurrent use.
type Guard struct {
	policyKeys map[string]ed25519.PublicKey
	signed     []SignedFormPolicy
	policies   []*FormPolicy
	schemas    *schemaCache
}

var _ statekeys.Guard = (*Guard)(nil)

// Option configures a Guard. Options validate their value when New runs.
type Option func(*Guard) error

var errOption = &statekeys.Error{Code: statekeys.CodeInvalidRequest, Reason: "option_invalid"}

// WithPolicyKeys sets the trusted reviewer keys that sign form policies,
// by key id. Without it no form-mode elicitation can be sealed.
func WithPolicyKeys(keys map[string]ed25519.PublicKey) Option {
	return func(g *Guard) error {
		m := make(map[string]ed25519.PublicKey, len(keys))
		for id, k := range keys {
			if !policyIDPattern.MatchString(id) || len(k) != ed25519.PublicKeySize {
				return errOption
			}
			m[id] = k
		}
		g.policyKeys = m
		return nil
	}
}

// WithFormPolicies installs signed form policies that cover every seal
// request (a request may also bring its own). They are verified against
// the policy keys when New runs.
func WithFormPolicies(p ...SignedFormPolicy) Option {
	return func(g *Guard) error {
		g.signed = append(g.signed, p...)
		return nil
	}
}

// New returns a Guard. With no options it refuses every form-mode
// elicitation (no trusted reviewer) and applies the URL guard.
func New(opts ...Option) (*Guard, error) {
	g := &Guard{schemas: defaultSchemaCache}
	for _, opt := range opts {
		if err := opt(g); err != nil {
			return nil, err
		}
	}
	for _, sp := range g.signed {
		p, err := VerifyFormPolicy(sp, g.policyKeys)
		if err != nil {
			return nil, err
		}
		g.policies = append(g.policies, p)
	}
	g.signed = nil
	return g, nil
}

// SealForm checks a form-mode elicitation against the installed policies
// and extra, and compiles its validation schema.
func (g *Guard) SealForm(e statekeys.Elicitation, extra *SignedFormPolicy, now time.Time) (FormApproval, error) {
	policies := g.policies
	if extra != nil {
		p, err := VerifyFormPolicy(*extra, g.policyKeys)
		if err != nil {
			var se *statekeys.Error
			if errors.As(err, &se) {
				out := *se
				out.InputKey = e.Key
				return FormApproval{}, &out
			}
			return FormApproval{}, formRefused(statekeys.ReasonFormPolicyInvalid, e.Key, "")
		}
		policies = append(slices.Clip(g.policies), p)
	}
	a, ferr := checkForm(e, policies, now)
	if ferr != nil {
		return FormApproval{}, ferr
	}
	if _, err := g.schemas.compile(e.SchemaDigest, e.Schema); err != nil {
		return FormApproval{}, formRefused(statekeys.ReasonFormSchemaInvalid, e.Key, "")
	}
	return *a, nil
}

// SealURL checks a URL-mode elicitation.
func (g *Guard) SealURL(e statekeys.Elicitation) error {
	if _, err := checkURL(e); err != nil {
		return err
	}
	return nil
}

// VerifyForm validates the response to a form approved as a.
func (g *Guard) VerifyForm(v any, e statekeys.Elicitation, a FormApproval, now time.Time) (string, json.RawMessage, statekeys.Reason) {
	sch, err := g.schemas.compile(a.SchemaDigest, e.Schema)
	if err != nil {
		return "", nil, statekeys.ReasonSchemaChanged
	}
	er, r := validateFormResponse(v, sch, a.MaxResponseBytes, a.ExpiresAt, now)
	if r != statekeys.ReasonNone {
		return "", nil, r
	}
	return er.Action, er.Content, statekeys.ReasonNone
}

// VerifyURL validates the response to a URL-mode elicitation: an
// ElicitResult without content.
func (g *Guard) VerifyURL(v any) (string, statekeys.Reason) {
	action, content, r := parseElicitResult(v)
	if r != statekeys.ReasonNone {
		return "", r
	}
	if content != nil {
		return "", statekeys.ReasonResponseInvalid
	}
	return action, statekeys.ReasonNone
}
