package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The kind-specific guards of seeds G003 and G004: before the pass, a
// resources/read result goes through the resource gate (package resgate),
// and a prompts/get or completion/complete result through the prompt and
// completion guards (package promptgate), when the policy configures them.
// A guard reads the whole result, under a cap of its own policy, checks
// it against the request it answers (MessageInfo.Guard) and either
// refuses it, with one non-enumerating code per kind and the detailed
// reason in evidence, or hands a rewritten result to the normal pass.

// GuardInput is the request context the guards need. Every field but the
// hooks comes from the producer and is untrusted.
type GuardInput struct {
	// Principal, Tenant and Scopes identify the caller.
	Principal string
	Tenant    string
	Scopes    []string
	// Request is the JSON of the params of the request the result
	// answers.
	Request []byte
	// Authorizer is the deployment's resource authorization hook; nil
	// refuses every resource.
	Authorizer resgate.Authorizer
}

// guards are the compiled guards of a policy; nil members are off.
type guards struct {
	res *resgate.Gate
}

func compileGuards(p *Policy) (*guards, error) {
	g := &guards{}
	if p.Resources != nil {
		var err error
		if g.res, err = resgate.Compile(p.Resources, p.Version); err != nil {
			return nil, fmt.Errorf("%w: resources: %v", ErrPolicy, err)
		}
	}
	return g, nil
}

// on reports whether a guard runs for kind.
func (g *guards) on(kind Kind) bool {
	return g != nil && kind == KindResourceResult && g.res != nil
}

// sanitizeGuarded runs the guard of info.Kind and then the pass on what
// it returns.
func (e *Engine) sanitizeGuarded(ctx context.Context, in io.Reader, out Output, info MessageInfo) (ev *Evidence, err error) {
	max := e.guards.res.MaxResultBytes()
	body, rerr := io.ReadAll(io.LimitReader(in, max+1))
	if rerr != nil {
		return e.Reject(nil, out, info, CodeInternal, string(wire.ReasonReadError))
	}
	if int64(len(body)) > max {
		return e.Reject(io.MultiReader(bytes.NewReader(body), in), out, info, wire.CodeResourceUnavailable, string(wire.ReasonResourceTooLarge))
	}
	defer func() {
		if r := recover(); r != nil {
			// A fault of the guard: fail closed.
			ev, err = e.Reject(bytes.NewReader(body), out, info, CodeInternal, string(wire.ReasonInternalFault))
		}
	}()
	var gi GuardInput
	if info.Guard != nil {
		gi = *info.Guard
	}
	clean, d := e.guards.res.Check(ctx, resgate.Input{Principal: gi.Principal, Tenant: gi.Tenant, Scopes: gi.Scopes,
		Request: gi.Request, Authorizer: gi.Authorizer}, body)
	p := e.getPass()
	defer p.release()
	if d != nil {
		return p.runForced(ctx, body, out, info, &Error{Code: wire.CodeResourceUnavailable, Reason: d.Reason})
	}
	return p.run(ctx, bytes.NewReader(clean), out, info)
}

// runForced reads body through the pass, so that the error result keeps a
// JSON-RPC envelope's id, and writes the refusal f in place of it.
func (p *pass) runForced(ctx context.Context, body []byte, out Output, info MessageInfo, f *Error) (*Evidence, error) {
	return p.runWith(ctx, bytes.NewReader(body), out, info, f)
}

// privateReason reports the codes whose reason stays in evidence: the
// guards' non-enumerating errors.
func privateReason(c Code) bool {
	return c == wire.CodeResourceUnavailable || c == wire.CodePromptRefused || c == wire.CodeCompletionRefused
}
