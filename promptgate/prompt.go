package promptgate

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/resultdoc"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// Input is the request context of one result.
type Input struct {
	Principal string
	Tenant    string
	Scopes    []string
	// Request is the JSON of the request's params.
	Request []byte
	// ResourceURI, when not nil, checks a completion of a resource
	// template's argument: the template expanded with the completed
	// argument set to the value (and the context's other arguments) must
	// be a URI the resources policy accepts. A value for which it returns
	// false is dropped; a template it refuses outright (ok false for every
	// value) yields no values.
	ResourceURI func(template string, vars map[string]any) bool
}

// PromptGuard is a compiled PromptsPolicy; immutable, safe for concurrent
// use.
type PromptGuard struct {
	prompts  map[string]*prompt
	roles    map[string]bool
	markers  markerSet
	maxChars int
	maxBytes int64
}

type prompt struct {
	scopes []string
	args   map[string]*argument
}

type argument struct {
	ArgumentRule
	re   *regexp.Regexp
	enum map[string]bool
}

// CompilePrompts checks p and builds its guard.
func CompilePrompts(p *PromptsPolicy) (*PromptGuard, error) {
	g := &PromptGuard{prompts: map[string]*prompt{}, roles: map[string]bool{}, maxChars: p.MaxArgumentChars, maxBytes: p.MaxResultBytes}
	if g.maxChars == 0 {
		g.maxChars = DefaultMaxArgumentChars
	}
	if g.maxBytes == 0 {
		g.maxBytes = DefaultMaxPromptResultBytes
	}
	if g.maxChars < 0 || g.maxBytes < 0 {
		return nil, fmt.Errorf("%w: negative limit", ErrPolicy)
	}
	roles := p.AllowedRoles
	if len(roles) == 0 {
		roles = []string{"user", "assistant"}
	}
	for _, r := range roles {
		g.roles[r] = true
	}
	g.markers = compileMarkers(p.ForbiddenMarkers, !p.AllowRoleHeaders)
	for name, rule := range p.Prompts {
		if name == "" || len(name) > 256 || !utf8.ValidString(name) {
			return nil, fmt.Errorf("%w: prompt name %q", ErrPolicy, name)
		}
		pr := &prompt{scopes: rule.RequiredScopes, args: map[string]*argument{}}
		for an, ar := range rule.Arguments {
			if an == "" || len(an) > 256 {
				return nil, fmt.Errorf("%w: prompt %q: argument name %q", ErrPolicy, name, an)
			}
			if ar.MinLength < 0 || ar.MaxLength < 0 || ar.MaxLength > 0 && ar.MinLength > ar.MaxLength {
				return nil, fmt.Errorf("%w: prompt %q argument %q: lengths", ErrPolicy, name, an)
			}
			a := &argument{ArgumentRule: ar}
			var err error
			if a.re, err = compilePattern(ar.Pattern); err != nil {
				return nil, fmt.Errorf("prompt %q argument %q: %w", name, an, err)
			}
			if len(ar.Enum) > 0 {
				a.enum = map[string]bool{}
				for _, v := range ar.Enum {
					a.enum[v] = true
				}
			}
			pr.args[an] = a
		}
		g.prompts[name] = pr
	}
	return g, nil
}

func compileMarkers(list []string, roleHeaders bool) markerSet {
	if len(list) == 0 {
		list = DefaultForbiddenMarkers
	}
	m := markerSet{roleHeaders: roleHeaders}
	for _, s := range list {
		if f := fold(s); f != "" {
			m.folded = append(m.folded, f)
		}
	}
	return m
}

// MaxResultBytes is the largest result the guard reads.
func (g *PromptGuard) MaxResultBytes() int64 { return g.maxBytes }

// Check guards one prompts/get result against the request it answers. The
// result is returned unchanged when it passes (the normal pass then
// sanitizes its strings).
func (g *PromptGuard) Check(in Input, body []byte) ([]byte, *Denial) {
	if int64(len(body)) > g.maxBytes {
		return nil, deny(ReasonTooLarge)
	}
	if d := g.checkRequest(in); d != nil {
		return nil, d
	}
	doc, err := resultdoc.Decode(body)
	if err != nil {
		return nil, deny(ReasonMalformed)
	}
	if doc.IsError() {
		return body, nil
	}
	if d := g.checkResult(doc.Result); d != nil {
		return nil, d
	}
	return body, nil
}

// checkRequest validates the prompts/get params: name, arguments, _meta.
func (g *PromptGuard) checkRequest(in Input) *Denial {
	if len(in.Request) == 0 {
		return deny(ReasonNoRequest)
	}
	v, err := strictjson.Decode(in.Request, 8)
	if err != nil {
		return deny(ReasonNoRequest)
	}
	params, ok := v.(map[string]any)
	if !ok {
		return deny(ReasonNoRequest)
	}
	for k := range params {
		if k != "name" && k != "arguments" && k != "_meta" {
			return deny(ReasonNoRequest)
		}
	}
	name, ok := params["name"].(string)
	if !ok {
		return deny(ReasonNoRequest)
	}
	p, ok := g.prompts[name]
	if !ok {
		return deny(ReasonUnknownName)
	}
	if !hasScopes(in.Scopes, p.scopes) {
		return deny(ReasonScope)
	}
	args := map[string]any{}
	if raw, present := params["arguments"]; present && raw != nil {
		if args, ok = raw.(map[string]any); !ok {
			return deny(ReasonInvalidArgument)
		}
	}
	for an := range args {
		if _, ok := p.args[an]; !ok {
			return deny(ReasonUnknownArgument)
		}
	}
	for an, a := range p.args {
		raw, present := args[an]
		if !present {
			if a.Required {
				return deny(ReasonMissingArgument)
			}
			continue
		}
		s, ok := raw.(string)
		if !ok {
			return deny(ReasonInvalidArgument)
		}
		if d := g.checkArgument(a, s, in.Scopes); d != nil {
			return d
		}
	}
	return nil
}

func (g *PromptGuard) checkArgument(a *argument, s string, scopes []string) *Denial {
	if !hasScopes(scopes, a.RequiredScopes) {
		return deny(ReasonScope)
	}
	n := utf8.RuneCountInString(s)
	if n > g.maxChars || a.MaxLength > 0 && n > a.MaxLength || n < a.MinLength {
		return deny(ReasonInvalidArgument)
	}
	if badChar(s, a.AllowNewlines) || g.markers.find(s) {
		return deny(ReasonArgumentInjection)
	}
	if a.enum != nil && !a.enum[s] || a.re != nil && !a.re.MatchString(s) {
		return deny(ReasonInvalidArgument)
	}
	return nil
}

// checkResult checks the generated messages: allowed roles, no forbidden
// marker in any text (description, text contents, embedded resource text).
func (g *PromptGuard) checkResult(r map[string]any) *Denial {
	if d, present := r["description"]; present {
		s, ok := d.(string)
		if !ok {
			return deny(ReasonMalformed)
		}
		if g.markers.find(s) {
			return deny(ReasonMarker)
		}
	}
	msgs, ok := r["messages"].([]any)
	if !ok {
		return deny(ReasonMalformed)
	}
	for _, m := range msgs {
		msg, ok := m.(map[string]any)
		if !ok {
			return deny(ReasonMalformed)
		}
		role, ok := msg["role"].(string)
		if !ok {
			return deny(ReasonMalformed)
		}
		if !g.roles[role] {
			return deny(ReasonRole)
		}
		c, ok := msg["content"].(map[string]any)
		if !ok {
			return deny(ReasonMalformed)
		}
		for _, text := range contentTexts(c) {
			if g.markers.find(text) {
				return deny(ReasonMarker)
			}
		}
	}
	return nil
}

// contentTexts returns the texts of a content block: a text block's text,
// an embedded resource's text, and the names and titles a client shows.
func contentTexts(c map[string]any) []string {
	var out []string
	add := func(m map[string]any, keys ...string) {
		for _, k := range keys {
			if s, ok := m[k].(string); ok {
				out = append(out, s)
			}
		}
	}
	add(c, "text", "name", "title", "description")
	if r, ok := c["resource"].(map[string]any); ok {
		add(r, "text", "name", "title", "description")
	}
	return out
}
