package statekeys

import (
	"context"
	"encoding/json"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"slices"
	"time"
	"unicode/utf8"
)

// VerifyRequest is a retry of the original request carrying requestState
// and inputResponses, as the MCP server received it, plus what the server
// knows: the authenticated identity, and the input requests it sent.
type VerifyRequest struct {
	// RequestState is the token exactly as the client returned it.
	RequestState string
	// Identity is the identity of the retry, authenticated by the server.
	Identity Identity
	// Operation is the retried request: method, name, arguments.
	Operation Operation
	// InputRequests is the inputRequests map the server sent with the
	// state. Its entries must match the sealed digests exactly; it supplies
	// the schemas that the responses are validated against.
	InputRequests json.RawMessage
	// InputResponses is the client's inputResponses map.
	InputResponses json.RawMessage
	// URLCompletions reports, by elicitationId, who completed each
	// URL-mode browser flow as the server's own callback authenticated
	// them. An accepted URL-mode response needs a completion with the
	// sealed identity.
	URLCompletions map[string]Identity
}

// Verified is the result of a successful Verify.
type Verified struct {
	FlowID    string
	KeyID     string
	ExpiresAt time.Time
	// Responses holds each validated input response by input key.
	Responses map[string]InputResponse
	// AppState is the opaque server state sealed with the request.
	AppState []byte
}

// InputResponse is one validated entry of inputResponses.
type InputResponse struct {
	Kind string `json:"kind"` // form, url, sampling or roots
	// Action is the elicitation action (form and url kinds).
	Action string `json:"action,omitempty"`
	// Content is the RFC 8785 form of the accepted form content, or of the
	// whole result for the sampling and roots kinds.
	Content json.RawMessage `json:"content,omitempty"`
}

// Verify checks a retry: the token authenticates under a key of the ring,
// has not expired, binds exactly this identity, method, name and arguments,
// the input requests match their sealed digests, every input response is
// valid for its request, and the flow has not been used before. Every
// failure returns an error with CodeRejected (or CodeUnavailable when the
// store fails) whose message is the same; the Evidence says why.
//
// Single use is consumed last, so a retry that fails any check does not
// burn the flow and the legitimate client can still retry correctly.
func (k *Keeper) Verify(ctx context.Context, req VerifyRequest) (Verified, Evidence, error) {
	now := k.o.now()
	ev := Evidence{Rule: RuleMRTR, Action: "verify", Time: now.UTC()}
	if tenantPattern.MatchString(req.Identity.Tenant) {
		ev.Tenant = req.Identity.Tenant
	}
	if methodAllowed(req.Operation.Method) {
		ev.Method = req.Operation.Method
	}
	if len(req.RequestState) <= k.o.maxTokenBytes {
		ev.StateDigest = sha256Hex([]byte(req.RequestState))
	}
	fail := func(e *Error) (Verified, Evidence, error) {
		ev.reject(e)
		return Verified{}, ev, e
	}

	p, kid, r := openToken(k.ring.Ring(), req.RequestState, k.o.maxTokenBytes)
	if kid != "" {
		ev.KeyID = kid
	}
	if r != ReasonNone {
		return fail(rejected(r))
	}
	ev.FlowID = p.Fid
	exp := time.UnixMilli(p.Exp).UTC()
	ev.ExpiresAt = &exp
	if !now.Before(exp) {
		return fail(rejected(ReasonExpired))
	}
	if time.UnixMilli(p.Iat).After(now.Add(k.o.clockSkew)) {
		return fail(rejected(ReasonNotYetValid))
	}

	// Identity and operation bindings. Text that is not UTF-8 is refused
	// rather than compared, as Seal refuses it.
	switch {
	case !utf8.ValidString(req.Identity.Subject) || !utf8.ValidString(req.Identity.ClientID):
		return fail(rejected(ReasonIdentityInvalid))
	case !utf8.ValidString(req.Operation.Name):
		return fail(rejected(ReasonNameInvalid))
	case !equalDigest(p.Sub, sha256Hex([]byte(req.Identity.Subject))):
		return fail(rejected(ReasonSubjectMismatch))
	case p.Ten != req.Identity.Tenant:
		ev.SealedTenant = p.Ten
		return fail(rejected(ReasonTenantMismatch))
	case !equalDigest(p.Cli, sha256Hex([]byte(req.Identity.ClientID))):
		return fail(rejected(ReasonClientMismatch))
	case p.Mth != req.Operation.Method:
		return fail(rejected(ReasonMethodMismatch))
	case !equalDigest(p.Nam, sha256Hex([]byte(req.Operation.Name))):
		return fail(rejected(ReasonNameMismatch))
	}
	argDigest, r := argumentsDigest(req.Operation.Arguments, k.o.maxArgumentsBytes)
	if r != ReasonNone {
		return fail(rejected(r))
	}
	ev.ArgumentsDigest = argDigest
	if !equalDigest(p.Arg, argDigest) {
		return fail(rejected(ReasonArgumentsMismatch))
	}

	// Input requests: same keys, same kinds, same digests.
	inputs, e := parseInputRequests(req.InputRequests, k.o.maxInputBytes, k.o.maxInputRequests)
	if e != nil {
		if e.Reason == ReasonFormSchemaInvalid {
			return fail(&Error{Code: CodeRejected, Reason: ReasonSchemaChanged, InputKey: e.InputKey})
		}
		return fail(&Error{Code: CodeRejected, Reason: ReasonInputInvalid, InputKey: e.InputKey})
	}
	if len(inputs) != len(p.Inp) {
		return fail(rejected(ReasonInputKeysMismatch))
	}
	byKey := make(map[string]*inputRequest, len(inputs))
	for i := range inputs {
		byKey[inputs[i].key] = &inputs[i]
	}
	for _, b := range p.Inp {
		ir, ok := byKey[b.Key]
		if !ok {
			return fail(rejected(ReasonInputKeysMismatch))
		}
		ev.Inputs = append(ev.Inputs, EvidenceInput{Key: b.Key, Kind: b.Kind, SchemaDigest: b.Sch})
		if b.Kind == kindForm {
			ev.Rule = RuleForm
		}
		switch {
		case ir.kind != b.Kind:
			return fail(&Error{Code: CodeRejected, Reason: ReasonInputChanged, InputKey: b.Key})
		case b.Kind == kindForm && !equalDigest(ir.schemaDigest, b.Sch):
			return fail(&Error{Code: CodeRejected, Reason: ReasonSchemaChanged, InputKey: b.Key})
		case !equalDigest(ir.reqDigest, b.Req):
			return fail(&Error{Code: CodeRejected, Reason: ReasonInputChanged, InputKey: b.Key})
		}
	}

	// Input responses: exactly one per input request, each valid.
	responses, e := k.checkResponses(req, p, byKey, now, &ev)
	if e != nil {
		return fail(e)
	}

	// Single use, last. The record lives as long as the token could still
	// verify, plus a margin for clock differences between workers.
	ttl := exp.Sub(now) + k.o.replayMargin
	first, err := k.store.Consume(ctx, p.Fid, ttl)
	if err != nil {
		return fail(unavailable(ReasonStoreFailed))
	}
	if !first {
		return fail(rejected(ReasonReplayed))
	}
	ev.Decision = DecisionAccept
	return Verified{FlowID: p.Fid, KeyID: kid, ExpiresAt: exp, Responses: responses, AppState: p.App}, ev, nil
}

func (k *Keeper) checkResponses(req VerifyRequest, p *payload, byKey map[string]*inputRequest, now time.Time, ev *Evidence) (map[string]InputResponse, *Error) {
	var raw map[string]any
	if len(req.InputResponses) > 0 && string(req.InputResponses) != "null" {
		if len(req.InputResponses) > k.o.maxInputBytes {
			return nil, rejected(ReasonResponseTooLarge)
		}
		v, err := jcs.Parse(req.InputResponses, jcs.DefaultMaxDepth)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return nil, rejected(ReasonResponseInvalid)
		}
		raw = m
	}
	if len(raw) != len(p.Inp) {
		return nil, rejected(ReasonInputKeysMismatch)
	}
	if len(p.Inp) == 0 {
		return nil, nil
	}
	out := make(map[string]InputResponse, len(p.Inp))
	for _, b := range p.Inp {
		v, ok := raw[b.Key]
		if !ok {
			return nil, rejected(ReasonInputKeysMismatch)
		}
		bad := func(r Reason) *Error { return &Error{Code: CodeRejected, Reason: r, InputKey: b.Key} }
		var resp InputResponse
		switch b.Kind {
		case kindForm:
			if k.o.guard == nil {
				return nil, bad(ReasonSchemaChanged)
			}
			ir := byKey[b.Key]
			a := FormApproval{SchemaDigest: b.Sch, MaxResponseBytes: b.Max, ExpiresAt: time.UnixMilli(b.Pex)}
			action, content, r := k.o.guard.VerifyForm(v, ir.elicitation(), a, now)
			if r != ReasonNone {
				return nil, bad(r)
			}
			resp = InputResponse{Kind: kindForm, Action: action, Content: content}
		case kindURL:
			if k.o.guard == nil {
				return nil, bad(ReasonResponseInvalid)
			}
			action, r := k.o.guard.VerifyURL(v)
			if r != ReasonNone {
				return nil, bad(r)
			}
			if action == ActionAccept {
				who, ok := req.URLCompletions[b.Eid]
				if !ok {
					return nil, bad(ReasonURLNotCompleted)
				}
				if !equalDigest(p.Sub, sha256Hex([]byte(who.Subject))) || p.Ten != who.Tenant ||
					!equalDigest(p.Cli, sha256Hex([]byte(who.ClientID))) {
					return nil, bad(ReasonURLIdentity)
				}
			}
			resp = InputResponse{Kind: kindURL, Action: action}
		case kindSampling, kindRoots:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, bad(ReasonResponseInvalid)
			}
			if b.Kind == kindSampling && (m["role"] == nil || m["content"] == nil) {
				return nil, bad(ReasonResponseInvalid)
			}
			if _, isArr := m["roots"].([]any); b.Kind == kindRoots && !isArr {
				return nil, bad(ReasonResponseInvalid)
			}
			c, err := jcs.Append(nil, m)
			if err != nil {
				return nil, bad(ReasonResponseInvalid)
			}
			resp = InputResponse{Kind: b.Kind, Content: c}
		default:
			return nil, bad(ReasonPayload)
		}
		out[b.Key] = resp
		if idx := slices.IndexFunc(ev.Inputs, func(x EvidenceInput) bool { return x.Key == b.Key }); idx >= 0 {
			ev.Inputs[idx].Action = resp.Action
		}
	}
	return out, nil
}
