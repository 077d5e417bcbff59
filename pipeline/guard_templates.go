package pipeline

import (
	"errors"

	"github.com/valyala/fastjson"

	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

// The templates of a resources/templates/list result, when the policy has
// a resources section (seed G003: "RFC 6570 templates are checked the same
// way after expansion"). Each uriTemplate is parsed (RFC 6570 level 4, the
// scheme and authority literal; resuri.ParseTemplate) and expanded with a
// neutral value ("a") for every variable, and the expansion must be a URI
// the policy accepts (resuri.Parse: scheme, root alias or host, file root,
// no dot segment, no encoded separator, ... in the literal parts). A
// template that fails is dropped from the list, narrowly: the others go
// on, and evidence records its index, name and reason (guard.dropped). So
// a template whose literal text names a root the policy does not list, or
// whose variable would pick the root itself (file:///{path}: a simple
// expansion encodes "/", so it can only name a file at the top of the
// file system), is never offered to a client. Each URI a client expands
// from a kept template is checked again when it is read.

// templateProbe is the value every variable takes in the check.
const templateProbe = "a"

// checkTemplates drops the templates the resources policy refuses.
func (g *guardRun) checkTemplates(items []*fastjson.Value, names []string) {
	if g.e.guards == nil || g.e.guards.res == nil {
		return
	}
	uris := g.e.guards.res.URIs()
	var drop []int
	for i, it := range items {
		tpl := string(it.GetStringBytes("uriTemplate"))
		reason := templateRefusal(uris, tpl)
		if reason == "" {
			continue
		}
		drop = append(drop, i)
		if len(g.rec.Dropped) < maxGuardMembers {
			g.rec.Dropped = append(g.rec.Dropped, DroppedRecord{Index: i, Item: safeLabel(names[i]), Reason: reason})
		}
	}
	if len(drop) == 0 {
		return
	}
	// Spliced out of the bytes the pass wrote (guard.go encode), like held
	// tools: the kept templates and the members go on as they were.
	g.held, g.heldIn = drop, "resourceTemplates"
	g.changed = true
}

// templateRefusal is the reason the policy refuses template, or "".
func templateRefusal(uris *resuri.Parser, template string) string {
	t, err := uris.ParseTemplate(template)
	if err == nil {
		vars := map[string]any{}
		for _, n := range t.Names() {
			vars[n] = templateProbe
		}
		_, err = uris.Expand(t, vars)
	}
	if err == nil {
		return ""
	}
	var re *resuri.Error
	if errors.As(err, &re) {
		return string(re.Reason)
	}
	return string(resuri.ReasonTemplate)
}
