package promptgate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/resultdoc"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// Budget charges completion requests to a principal. Charge takes one
// unit from the budget of key and reports whether the budget had it: at
// most limit units in any interval of the window's length (a sliding
// window, Window; MemoryBudget in one process). It must hold across every
// worker that shares the budget (worker.KVBudget: a NATS KV window updated
// by compare-and-set). An error means the store
// is unavailable; the guard then refuses. Safe for concurrent use.
type Budget interface {
	Charge(ctx context.Context, key string, limit int64, window time.Duration) (bool, error)
}

// CompletionGuard is a compiled CompletionsPolicy; immutable, safe for
// concurrent use.
type CompletionGuard struct {
	rules     map[string]*completionRule
	maxValues int
	maxChars  int
	limit     int64
	window    time.Duration
	maxBytes  int64
}

type completionRule struct {
	scopes  []string
	re      *regexp.Regexp
	visible []visible
}

type visible struct {
	scope string
	re    *regexp.Regexp
}

// CompileCompletions checks p and builds its guard.
func CompileCompletions(p *CompletionsPolicy) (*CompletionGuard, error) {
	g := &CompletionGuard{rules: map[string]*completionRule{}, maxValues: p.MaxValues, maxChars: p.MaxValueChars,
		limit: p.Budget.Limit, window: DefaultBudgetWindow, maxBytes: p.MaxResultBytes}
	if g.maxValues == 0 {
		g.maxValues = MaxCompletionValues
	}
	if g.maxChars == 0 {
		g.maxChars = DefaultMaxValueChars
	}
	if g.maxBytes == 0 {
		g.maxBytes = DefaultMaxCompletionResultBytes
	}
	if g.maxValues < 0 || g.maxValues > MaxCompletionValues || g.maxChars < 0 || g.maxBytes < 0 {
		return nil, fmt.Errorf("%w: completions: maxValues is 1..100, limits are positive", ErrPolicy)
	}
	if g.limit <= 0 {
		return nil, fmt.Errorf("%w: completions: budget.limit must be positive", ErrPolicy)
	}
	if p.Budget.Window != "" {
		d, err := time.ParseDuration(p.Budget.Window)
		if err != nil || d < time.Second || d > 24*time.Hour {
			return nil, fmt.Errorf("%w: completions: budget.window must be a Go duration from 1s to 24h", ErrPolicy)
		}
		g.window = d
	}
	for key, r := range p.Arguments {
		if !strings.HasPrefix(key, "prompt:") && !strings.HasPrefix(key, "resource:") || !strings.Contains(key, "/") {
			return nil, fmt.Errorf("%w: completions: argument key %q is not prompt:<name>/<arg> or resource:<uri>/<arg>", ErrPolicy, key)
		}
		cr := &completionRule{scopes: r.RequiredScopes}
		var err error
		if cr.re, err = compilePattern(r.Pattern); err != nil {
			return nil, fmt.Errorf("completions %q: %w", key, err)
		}
		for _, v := range r.Visible {
			re, err := compilePattern(v.Pattern)
			if err != nil || re == nil || v.Scope == "" {
				return nil, fmt.Errorf("%w: completions %q: a visible rule needs a scope and a pattern", ErrPolicy, key)
			}
			cr.visible = append(cr.visible, visible{scope: v.Scope, re: re})
		}
		g.rules[key] = cr
	}
	return g, nil
}

// MaxResultBytes is the largest result the guard reads.
func (g *CompletionGuard) MaxResultBytes() int64 { return g.maxBytes }

// BudgetKey is the key a principal's completions are charged to: a digest
// of tenant and principal, so that no identity is stored in clear.
func BudgetKey(tenant, principal string) string {
	h := sha256.Sum256([]byte(tenant + "\x00" + principal))
	return hex.EncodeToString(h[:16])
}

// Check charges the request to the principal's budget and guards one
// completion/complete result: values cut to the cap, each a clean string
// visible to the principal, total and hasMore recomputed from what is
// kept. budget nil refuses every request.
func (g *CompletionGuard) Check(ctx context.Context, in Input, budget Budget, body []byte) ([]byte, *Denial) {
	if in.Principal == "" {
		return nil, deny(ReasonCompletionNoPrincipal)
	}
	// Every request is charged, refused ones too, before anything is
	// looked at: a refusal costs as much as an answer.
	if budget == nil {
		return nil, deny(ReasonBudgetUnavailable)
	}
	ok, err := budget.Charge(ctx, BudgetKey(in.Tenant, in.Principal), g.limit, g.window)
	if err != nil {
		return nil, deny(ReasonBudgetUnavailable)
	}
	if !ok {
		return nil, deny(ReasonBudgetSpent)
	}
	if int64(len(body)) > g.maxBytes {
		return nil, deny(ReasonCompletionTooLarge)
	}
	rule, req, d := g.checkRequest(in)
	if d != nil {
		return nil, d
	}
	doc, err := resultdoc.Decode(body)
	if err != nil {
		return nil, deny(ReasonCompletionMalformed)
	}
	if doc.IsError() {
		return body, nil
	}
	var expands func(string) bool
	if req.template != "" && in.ResourceURI != nil {
		expands = func(v string) bool {
			vars := map[string]any{}
			for k, x := range req.context {
				vars[k] = x
			}
			vars[req.argument] = v
			return in.ResourceURI(req.template, vars)
		}
	}
	if d := g.filter(doc.Result, rule, in.Scopes, expands); d != nil {
		return nil, d
	}
	out, err := doc.Encode()
	if err != nil {
		return nil, deny(ReasonCompletionMalformed)
	}
	return out, nil
}

// completionRequest is what the guard keeps of the request.
type completionRequest struct {
	// template is the resource template of a ref/resource ("" for a
	// prompt), argument the completed argument, context the other
	// arguments already given.
	template, argument string
	context            map[string]string
}

// checkRequest reads the completion/complete params and finds the rule of
// the argument.
func (g *CompletionGuard) checkRequest(in Input) (*completionRule, completionRequest, *Denial) {
	var req completionRequest
	v, err := strictjson.Decode(in.Request, 8)
	if len(in.Request) == 0 || err != nil {
		return nil, req, deny(ReasonCompletionNoRequest)
	}
	params, ok := v.(map[string]any)
	if !ok {
		return nil, req, deny(ReasonCompletionNoRequest)
	}
	for k := range params {
		if k != "ref" && k != "argument" && k != "context" && k != "_meta" {
			return nil, req, deny(ReasonCompletionNoRequest)
		}
	}
	ref, ok1 := params["ref"].(map[string]any)
	arg, ok2 := params["argument"].(map[string]any)
	if !ok1 || !ok2 {
		return nil, req, deny(ReasonCompletionNoRequest)
	}
	argName, ok1 := arg["name"].(string)
	value, ok2 := arg["value"].(string)
	if !ok1 || !ok2 || len(arg) != 2 {
		return nil, req, deny(ReasonCompletionNoRequest)
	}
	var key string
	switch t, _ := ref["type"].(string); t {
	case "ref/prompt":
		name, ok := ref["name"].(string)
		if !ok {
			return nil, req, deny(ReasonCompletionNoRequest)
		}
		key = "prompt:" + name + "/" + argName
	case "ref/resource":
		uri, ok := ref["uri"].(string)
		if !ok {
			return nil, req, deny(ReasonCompletionNoRequest)
		}
		key = "resource:" + uri + "/" + argName
		req.template = uri
	default:
		return nil, req, deny(ReasonCompletionNoRequest)
	}
	req.argument = argName
	rule, ok := g.rules[key]
	if !ok {
		return nil, req, deny(ReasonCompletionUnknown)
	}
	if !hasScopes(in.Scopes, rule.scopes) {
		return nil, req, deny(ReasonCompletionScope)
	}
	if !g.cleanValue(value) {
		return nil, req, deny(ReasonCompletionInput)
	}
	if c, present := params["context"]; present {
		cm, ok := c.(map[string]any)
		if !ok {
			return nil, req, deny(ReasonCompletionInput)
		}
		if a, present := cm["arguments"]; present {
			am, ok := a.(map[string]any)
			if !ok {
				return nil, req, deny(ReasonCompletionInput)
			}
			req.context = map[string]string{}
			for k, x := range am {
				s, ok := x.(string)
				if !ok || !g.cleanValue(s) {
					return nil, req, deny(ReasonCompletionInput)
				}
				req.context[k] = s
			}
		}
	}
	return rule, req, nil
}

func (g *CompletionGuard) cleanValue(s string) bool {
	return utf8.RuneCountInString(s) <= g.maxChars && !badChar(s, false)
}

// filter rewrites result.completion: the values the principal may see, at
// most maxValues of them, total the number of visible values among those
// returned, hasMore true when some were cut or, when nothing was filtered
// out, when the server said so. A server's own total counts values the
// principal may not see, so it is never passed on.
func (g *CompletionGuard) filter(r map[string]any, rule *completionRule, scopes []string, expands func(string) bool) *Denial {
	c, ok := r["completion"].(map[string]any)
	if !ok {
		return deny(ReasonCompletionMalformed)
	}
	for k := range c {
		if k != "values" && k != "total" && k != "hasMore" {
			return deny(ReasonCompletionMalformed)
		}
	}
	vals, ok := c["values"].([]any)
	if !ok {
		return deny(ReasonCompletionMalformed)
	}
	serverMore := false
	if h, present := c["hasMore"]; present {
		if serverMore, ok = h.(bool); !ok {
			return deny(ReasonCompletionMalformed)
		}
	}
	if t, present := c["total"]; present {
		if _, ok := t.(interface{ String() string }); !ok {
			return deny(ReasonCompletionMalformed)
		}
	}
	kept := make([]any, 0, min(len(vals), g.maxValues))
	visibleN := 0
	filtered := false
	for _, v := range vals {
		s, ok := v.(string)
		if !ok {
			return deny(ReasonCompletionMalformed)
		}
		if !g.cleanValue(s) || rule.re != nil && !rule.re.MatchString(s) || !rule.sees(s, scopes) || expands != nil && !expands(s) {
			filtered = true
			continue
		}
		visibleN++
		if len(kept) < g.maxValues {
			kept = append(kept, s)
		}
	}
	c["values"] = kept
	c["total"] = visibleN
	c["hasMore"] = visibleN > len(kept) || serverMore && !filtered
	return nil
}

// sees reports whether a principal with scopes may see value s.
func (r *completionRule) sees(s string, scopes []string) bool {
	if len(r.visible) == 0 {
		return true
	}
	for _, v := range r.visible {
		if (v.scope == "*" || hasScopes(scopes, []string{v.scope})) && v.re.MatchString(s) {
			return true
		}
	}
	return false
}
