package pipeline

import (
	"strconv"

	"github.com/valyala/fastjson"
)

// The guards of the list results: tools/list, prompts/list,
// resources/list, resources/templates/list. Every string of a list went
// through the string chain in the pass (names, titles, descriptions,
// annotations, every string inside inputSchema and outputSchema): a hidden
// instruction is neutralized where it is and the list is forwarded. The
// guard checks the members a client reads, names the item and member of
// each change in evidence, and pins tool definitions (guard_pins.go).

// guardToolsList checks a ListToolsResult.
func guardToolsList(g *guardRun) {
	tools := g.listItems("tools")
	if g.fail != nil {
		return
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		ptr := "/tools/" + strconv.Itoa(i)
		names[i], _ = g.str(t, ptr, "name", true)
		g.str(t, ptr, "title", false)
		g.str(t, ptr, "description", false)
		if in, ok := g.obj(t, ptr, "inputSchema", true); ok {
			g.oneOf(in, ptr+"/inputSchema", "type", true, "object")
		}
		if out, ok := g.obj(t, ptr, "outputSchema", false); ok {
			g.oneOf(out, ptr+"/outputSchema", "type", true, "object")
		}
		if a, ok := g.obj(t, ptr, "annotations", false); ok {
			ap := ptr + "/annotations"
			g.str(a, ap, "title", false)
			for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				g.boolean(a, ap, h)
			}
		}
		if x, ok := g.obj(t, ptr, "execution", false); ok {
			g.oneOf(x, ptr+"/execution", "taskSupport", false, "forbidden", "optional", "required")
		}
		g.icons(t, ptr)
		if g.fail != nil {
			return
		}
	}
	if !g.uniqueNames("tools", names) {
		return
	}
	g.attribute("tools", names)
	g.pinTools(names)
}

// guardPromptsList checks a ListPromptsResult.
func guardPromptsList(g *guardRun) {
	prompts := g.listItems("prompts")
	if g.fail != nil {
		return
	}
	names := make([]string, len(prompts))
	for i, pr := range prompts {
		ptr := "/prompts/" + strconv.Itoa(i)
		names[i], _ = g.str(pr, ptr, "name", true)
		g.str(pr, ptr, "title", false)
		g.str(pr, ptr, "description", false)
		if args, ok := g.arr(pr, ptr, "arguments", false); ok {
			for j, a := range g.objItems(args, ptr+"/arguments") {
				ap := ptr + "/arguments/" + strconv.Itoa(j)
				g.str(a, ap, "name", true)
				g.str(a, ap, "title", false)
				g.str(a, ap, "description", false)
				g.boolean(a, ap, "required")
			}
		}
		g.icons(pr, ptr)
		if g.fail != nil {
			return
		}
	}
	if !g.uniqueNames("prompts", names) {
		return
	}
	g.attribute("prompts", names)
	g.pinPrompts(names)
}

// guardResourcesList checks a ListResourcesResult.
func guardResourcesList(g *guardRun) {
	res := g.listItems("resources")
	if g.fail != nil {
		return
	}
	names := make([]string, len(res))
	for i, r := range res {
		ptr := "/resources/" + strconv.Itoa(i)
		g.str(r, ptr, "uri", true)
		names[i], _ = g.str(r, ptr, "name", true)
		g.resourceCommon(r, ptr)
		g.num(r, ptr, "size", false)
		if g.fail != nil {
			return
		}
	}
	g.attribute("resources", names)
}

// guardTemplatesList checks a ListResourceTemplatesResult.
func guardTemplatesList(g *guardRun) {
	res := g.listItems("resourceTemplates")
	if g.fail != nil {
		return
	}
	names := make([]string, len(res))
	for i, r := range res {
		ptr := "/resourceTemplates/" + strconv.Itoa(i)
		g.str(r, ptr, "uriTemplate", true)
		names[i], _ = g.str(r, ptr, "name", true)
		g.resourceCommon(r, ptr)
		if g.fail != nil {
			return
		}
	}
	g.attribute("resourceTemplates", names)
	g.checkTemplates(res, names) // guard_templates.go
}

// uniqueNames fails the message when two items of a list share a name (as
// the pass sanitized it): a client could not tell which one a call names,
// and the second would take the first's pin.
func (g *guardRun) uniqueNames(list string, names []string) bool {
	seen := make(map[string]struct{}, len(names))
	for i, n := range names {
		if _, dup := seen[n]; dup {
			g.failShape("/" + list + "/" + strconv.Itoa(i) + "/name")
			return false
		}
		seen[n] = struct{}{}
	}
	return true
}

// resourceCommon checks the members a resource and a template share.
func (g *guardRun) resourceCommon(r *fastjson.Value, ptr string) {
	g.str(r, ptr, "title", false)
	g.str(r, ptr, "description", false)
	g.str(r, ptr, "mimeType", false)
	g.annotations(r, ptr)
	g.icons(r, ptr)
}

// annotations checks an Annotations member (audience, priority,
// lastModified).
func (g *guardRun) annotations(m *fastjson.Value, ptr string) {
	a, ok := g.obj(m, ptr, "annotations", false)
	if !ok {
		return
	}
	ap := ptr + "/annotations"
	if aud, ok := g.arr(a, ap, "audience", false); ok {
		for j, x := range aud {
			if s := string(x.GetStringBytes()); x.Type() != fastjson.TypeString || s != "user" && s != "assistant" {
				g.failShape(ap + "/audience/" + strconv.Itoa(j))
				return
			}
		}
	}
	g.num(a, ap, "priority", false)
	g.str(a, ap, "lastModified", false)
}

// listItems checks the result's list member (required, an array of
// objects) and nextCursor.
func (g *guardRun) listItems(list string) []*fastjson.Value {
	if g.body == nil {
		g.failShape("")
		return nil
	}
	a, ok := g.arr(g.body, "", list, true)
	if !ok {
		return nil
	}
	g.str(g.body, "", "nextCursor", false)
	items := g.objItems(a, "/"+list)
	g.rec.Items = len(items)
	return items
}
