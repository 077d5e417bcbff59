package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
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
	// Budget is the completion budget shared by the fleet; nil refuses
	// every completion.
	Budget promptgate.Budget
}

// guards are the compiled guards of a policy; nil members are off.
type guards struct {
	res     *resgate.Gate
	prompts *promptgate.PromptGuard
	comps   *promptgate.CompletionGuard
}

func compileGuards(p *Policy) (*guards, error) {
	g := &guards{}
	var err error
	if p.Resources != nil {
		if g.res, err = resgate.Compile(p.Resources, p.Version); err != nil {
			return nil, fmt.Errorf("%w: resources: %v", ErrPolicy, err)
		}
	}
	if p.Prompts != nil {
		if g.prompts, err = promptgate.CompilePrompts(p.Prompts); err != nil {
			return nil, fmt.Errorf("%w: prompts: %v", ErrPolicy, err)
		}
	}
	if p.Completions != nil {
		if g.comps, err = promptgate.CompileCompletions(p.Completions); err != nil {
			return nil, fmt.Errorf("%w: completions: %v", ErrPolicy, err)
		}
	}
	return g, nil
}

// on reports whether a guard runs for kind.
func (g *guards) on(kind Kind) bool {
	if g == nil {
		return false
	}
	switch kind {
	case KindResourceResult:
		return g.res != nil
	case KindPromptResult:
		return g.prompts != nil
	case KindCompletionResult:
		return g.comps != nil
	}
	return false
}

// limit is the largest result the guard of kind reads, and the code of
// its refusals.
func (g *guards) limit(kind Kind) (int64, Code) {
	switch kind {
	case KindResourceResult:
		return g.res.MaxResultBytes(), wire.CodeResourceUnavailable
	case KindPromptResult:
		return g.prompts.MaxResultBytes(), wire.CodePromptRefused
	}
	return g.comps.MaxResultBytes(), wire.CodeCompletionRefused
}

// check runs the guard of kind over body.
// acc is what the resources guard accepted (nil for the other kinds).
func (g *guards) check(ctx context.Context, kind Kind, gi GuardInput, body []byte) (out []byte, reason string, acc *resgate.Accepted) {
	in := promptgate.Input{Principal: gi.Principal, Tenant: gi.Tenant, Scopes: gi.Scopes, Request: gi.Request}
	if g.res != nil {
		// A completed resource-template argument must expand to a URI the
		// resources policy accepts (RFC 6570, checked after expansion).
		in.ResourceURI = g.res.TemplateAccepts
	}
	switch kind {
	case KindResourceResult:
		out, acc, d := g.res.CheckAccepted(ctx, resgate.Input{Principal: gi.Principal, Tenant: gi.Tenant, Scopes: gi.Scopes,
			Request: gi.Request, Authorizer: gi.Authorizer}, body)
		if d != nil {
			return nil, d.Reason, nil
		}
		return out, "", acc
	case KindPromptResult:
		out, d := g.prompts.Check(in, body)
		if d != nil {
			return nil, d.Reason, nil
		}
		return out, "", nil
	}
	out, d := g.comps.Check(ctx, in, gi.Budget, body)
	if d != nil {
		return nil, d.Reason, nil
	}
	return out, "", nil
}

// sanitizeSeedGuarded runs the G003/G004 guard of info.Kind and then the pass on what
// it returns.
func (e *Engine) sanitizeSeedGuarded(ctx context.Context, in io.Reader, out Output, info MessageInfo) (ev *Evidence, err error) {
	max, code := e.guards.limit(info.Kind)
	body, rerr := io.ReadAll(io.LimitReader(in, max+1))
	if rerr != nil {
		return e.Reject(nil, out, info, CodeInternal, string(wire.ReasonReadError))
	}
	if int64(len(body)) > max {
		// Refused whole, read through the pass for the envelope's id and
		// the input digest.
		p := e.getPass()
		defer p.release()
		return p.runWith(ctx, io.MultiReader(bytes.NewReader(body), in), out, info, &Error{Code: code, Reason: string(tooLarge[code])})
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
	clean, reason, acc := e.guards.check(ctx, info.Kind, gi, body)
	p := e.getPass()
	defer p.release()
	if reason != "" {
		return p.runForced(ctx, body, out, info, &Error{Code: code, Reason: reason})
	}
	p.inDigestOff = true
	ev, err = p.run(ctx, bytes.NewReader(clean), out, info)
	p.inDigestOff = false
	if ev != nil {
		// The evidence (and the worker's Mcp-Input-Digest) names the input
		// as the producer sent it, not the guard's rewrite: the pass did
		// not hash the rewrite, its digester hashes body now (nothing
		// under MessageInfo.NoDigests).
		p.inH.Reset()
		p.inH.off = info.NoDigests
		p.inH.Write(body)
		ev.Input = Digest{Bytes: int64(len(body)), Digest: p.inH.String()}
		if acc != nil && ev.Outcome != OutcomeRejected {
			ev.Guard = &GuardRecord{Method: wire.MethodResourcesRead, Resource: e.resourceRecord(acc)}
		}
	}
	return ev, err
}

// tooLarge is the reason of a result over its guard's cap.
var tooLarge = map[Code]wire.Reason{
	wire.CodeResourceUnavailable: wire.ReasonResourceTooLarge,
	wire.CodePromptRefused:       wire.ReasonPromptTooLarge,
	wire.CodeCompletionRefused:   wire.ReasonCompletionTooLarge,
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
