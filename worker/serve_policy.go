package worker

import (
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// PolicySource gives the service policies that change while it runs (a
// PolicyWatcher over the policy bucket). The service asks it once per
// message, so a message runs under one policy from start to end.
type PolicySource interface {
	// Active returns the policy of messages without a pin (nil: the
	// engine given to NewService).
	Active() *PolicyEngine
	// Version returns the policy of a pinned version (nil: unknown).
	Version(name string) *PolicyEngine
}

// WithPolicySource sets where the active policy and pinned versions come
// from. A message's policy is, in order: its Mcp-Policy header (a name of
// WithPolicy, else a version of the source), else its tenant's pin
// (WithTenantPolicy), else the source's active policy, else the default
// engine. A header or pin that names nothing known fails the message
// (INTERNAL, unknown-policy; the durable path retries it), never a silent
// fallback to another policy.
func WithPolicySource(src PolicySource) ServeOption {
	return func(c *serveConfig) error {
		if src == nil {
			return optErr("nil policy source")
		}
		c.policySrc = src
		return nil
	}
}

// WithTenantPolicy pins a tenant's messages without an Mcp-Policy header
// to a policy name (WithPolicy) or version (the policy source's).
func WithTenantPolicy(tenant, policy string) ServeOption {
	return func(c *serveConfig) error {
		if tenant == "" || len(tenant) > 128 || policy == "" || len(policy) > 128 {
			return optErr("a tenant pin needs a tenant and a policy of 1..128 bytes")
		}
		if c.tenantPins == nil {
			c.tenantPins = map[string]string{}
		}
		c.tenantPins[tenant] = policy
		return nil
	}
}

// engineForMsg returns the engine of a message (see WithPolicySource), or
// nil when its pin names no known policy.
func (s *Service) engineForMsg(mc *msgContext) *pipeline.Engine {
	name := mc.policy
	if name == "" && s.cfg.tenantPins != nil {
		name = s.cfg.tenantPins[mc.info.Tenant]
	}
	if name == "" {
		if s.cfg.policySrc != nil {
			if pe := s.cfg.policySrc.Active(); pe != nil {
				return pe.Engine
			}
		}
		return s.def
	}
	if e := s.cfg.policies[name]; e != nil {
		return e
	}
	if s.cfg.policySrc != nil {
		if pe := s.cfg.policySrc.Version(name); pe != nil {
			return pe.Engine
		}
	}
	return nil
}
