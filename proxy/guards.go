package proxy

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The request context of the resource, prompt and completion guards
// (seeds G003, G004; docs/resources.md). A resources/read, prompts/get or
// completion/complete result is only checked against the request it
// answers, and the proxy is where that request is seen first-hand: the
// params of such a request are kept beside its method in the id → method
// map (bounded: MaxRequestParamsBytes each, MaxPendingParamsBytes per
// session) and handed to the pass with the principal, tenant and scopes
// the proxy was started with, and the hooks (GuardContext). Params over a
// bound are not kept; the guard then refuses the result (no request),
// fail closed.

// Bounds of the kept params.
const (
	// MaxRequestParamsBytes is the largest params kept for one request
	// (the worker reads no larger Mcp-Request-Params header either).
	MaxRequestParamsBytes = 64 << 10
	// MaxPendingParamsBytes bounds the params kept for the requests in
	// flight of one session.
	MaxPendingParamsBytes = 4 << 20
)

// GuardContext is who the proxy acts for and the guards' hooks. Principal
// and Scopes name the caller (the proxy fronts one client); Tenant is
// Options.Tenant. Authorizer nil refuses every resource, Budget nil every
// completion (fail closed). With the fleet (Fleet), only Principal and
// Scopes are used: the workers hold the hooks.
type GuardContext struct {
	Principal  string
	Scopes     []string
	Authorizer resgate.Authorizer
	Budget     promptgate.Budget
}

// guardedMethod reports the methods whose results a guard checks against
// the request.
func guardedMethod(method string) bool {
	switch method {
	case wire.MethodResourcesRead, wire.MethodPromptsGet, wire.MethodCompletionComplete:
		return true
	}
	return false
}

// keepParams returns a compact copy of the params of a guarded request
// (insignificant whitespace removed, so that it fits a header line), or
// nil: another method, params absent, not JSON, or over the bound.
func keepParams(method string, params []byte) []byte {
	if !guardedMethod(method) || len(params) == 0 || len(params) > 2*MaxRequestParamsBytes {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, params) != nil || b.Len() > MaxRequestParamsBytes {
		return nil
	}
	return bytes.Clone(b.Bytes())
}

// putPending remembers a request in flight (s.mu held), counting its
// params against MaxPendingParamsBytes; params over it are not kept.
func (s *Session) putPending(key string, pr pending) {
	if old, ok := s.pending[key]; ok {
		s.paramBytes -= len(old.params)
		s.dropToken(old.token)
	}
	if s.paramBytes+len(pr.params) > MaxPendingParamsBytes {
		pr.params = nil
	}
	s.paramBytes += len(pr.params)
	s.addToken(pr.token)
	s.pendingSeq++
	pr.seq = s.pendingSeq
	s.pending[key] = pr
}

// deletePending forgets a request in flight (s.mu held).
func (s *Session) deletePending(key string) {
	if old, ok := s.pending[key]; ok {
		s.paramBytes -= len(old.params)
		s.dropToken(old.token)
		delete(s.pending, key)
	}
}

// guardInput is the guards' context of one pass in this process.
func (e Engine) guardInput(kind wire.Kind, md Meta) *pipeline.GuardInput {
	switch kind {
	case wire.KindResourceResult, wire.KindPromptResult, wire.KindCompletionResult:
	default:
		return nil
	}
	gi := &pipeline.GuardInput{Tenant: md.Tenant, Request: md.Request}
	if g := e.Guard; g != nil {
		gi.Principal, gi.Scopes, gi.Authorizer, gi.Budget = g.Principal, g.Scopes, g.Authorizer, g.Budget
	}
	return gi
}

func (f Fleet) principal() string {
	if f.Guard == nil {
		return ""
	}
	return f.Guard.Principal
}

func (f Fleet) scopes() string {
	if f.Guard == nil {
		return ""
	}
	return strings.Join(f.Guard.Scopes, " ")
}
