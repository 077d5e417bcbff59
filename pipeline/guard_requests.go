package pipeline

import (
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/valyala/fastjson"
)

// The guards of the server's requests: sampling/createMessage,
// elicitation/create, roots/list. Their strings are server-written text
// and went through the string chain like a tool's; the images and audio
// of a sampling request had the binary checks of a tool result's content
// in the pass (binary_kinds.go, rkSampling).

// checkMethod fails the message when its method is known and is not one
// of want.
func (g *guardRun) checkMethod(want ...string) {
	if g.method == "" {
		return
	}
	for _, w := range want {
		if g.method == w {
			return
		}
	}
	g.failReason(string(wire.ReasonKindMethod), "")
}

// guardSampling checks CreateMessageRequestParams: messages (role, content
// blocks), systemPrompt, maxTokens, modelPreferences hints, stop
// sequences, includeContext.
func guardSampling(g *guardRun) {
	g.checkMethod(wire.MethodSamplingCreateMessage)
	if g.body == nil {
		g.failShape("")
		return
	}
	msgs, ok := g.arr(g.body, "", "messages", true)
	if !ok {
		return
	}
	for i, m := range g.objItems(msgs, "/messages") {
		ptr := "/messages/" + strconv.Itoa(i)
		g.oneOf(m, ptr, "role", true, "user", "assistant")
		switch c := m.Get("content"); {
		case c != nil && c.Type() == fastjson.TypeObject:
			g.block(c, ptr+"/content")
		case c != nil && c.Type() == fastjson.TypeArray:
			for j, b := range g.objItems(c.GetArray(), ptr+"/content") {
				g.block(b, ptr+"/content/"+strconv.Itoa(j))
			}
		default:
			g.failShape(ptr + "/content")
		}
		if g.fail != nil {
			return
		}
	}
	g.str(g.body, "", "systemPrompt", false)
	g.num(g.body, "", "maxTokens", true)
	g.num(g.body, "", "temperature", false)
	g.strArray(g.body, "", "stopSequences")
	g.oneOf(g.body, "", "includeContext", false, "none", "thisServer", "allServers")
	if mp, ok := g.obj(g.body, "", "modelPreferences", false); ok {
		if hints, ok := g.arr(mp, "/modelPreferences", "hints", false); ok {
			for j, h := range g.objItems(hints, "/modelPreferences/hints") {
				g.str(h, "/modelPreferences/hints/"+strconv.Itoa(j), "name", false)
			}
		}
		for _, k := range []string{"costPriority", "speedPriority", "intelligencePriority"} {
			g.num(mp, "/modelPreferences", k, false)
		}
	}
}

// block checks a content block of a sampling message: its type and the
// member that type needs.
func (g *guardRun) block(b *fastjson.Value, ptr string) {
	t, ok := g.str(b, ptr, "type", true)
	if !ok {
		return
	}
	switch t {
	case "text":
		g.str(b, ptr, "text", true)
	case "image", "audio":
		g.str(b, ptr, "data", true)
		g.str(b, ptr, "mimeType", true)
	case "tool_use":
		g.str(b, ptr, "id", true)
		g.str(b, ptr, "name", true)
		g.obj(b, ptr, "input", true)
	case "tool_result":
		g.str(b, ptr, "toolUseId", true)
		g.arr(b, ptr, "content", true)
	default:
		g.failShape(ptr + "/type")
	}
}

// guardElicitation checks ElicitRequestParams in form mode (message, a
// flat requestedSchema whose titles and descriptions went through the
// string chain, and which asks for nothing sensitive: elicit.CheckFormSchema) and URL mode (message, url checked like the URL
// elicitation guard, elicitationId).
func guardElicitation(g *guardRun) {
	g.checkMethod(wire.MethodElicitationCreate)
	if g.body == nil {
		g.failShape("")
		return
	}
	mode, _ := g.oneOf(g.body, "", "mode", false, "form", "url")
	g.str(g.body, "", "message", true)
	if g.fail != nil {
		return
	}
	if mode == "url" {
		u, ok := g.str(g.body, "", "url", true)
		id, _ := g.str(g.body, "", "elicitationId", false)
		if ok {
			g.checkURL(u, id, "/url")
		}
		return
	}
	rs, ok := g.obj(g.body, "", "requestedSchema", true)
	if !ok {
		return
	}
	g.oneOf(rs, "/requestedSchema", "type", true, "object")
	props, ok := g.obj(rs, "/requestedSchema", "properties", true)
	if !ok {
		return
	}
	props.GetObject().Visit(func(name []byte, p *fastjson.Value) {
		if g.fail != nil {
			return
		}
		pp := "/requestedSchema/properties/" + pointerToken(string(name))
		if p.Type() != fastjson.TypeObject {
			g.failShape(pp)
			return
		}
		g.oneOf(p, pp, "type", true, "string", "number", "integer", "boolean", "array")
		g.str(p, pp, "title", false)
		g.str(p, pp, "description", false)
	})
	g.strArray(rs, "/requestedSchema", "required")
	if g.fail != nil || props.GetObject().Len() == 0 {
		// A form without fields (a confirmation) asks for nothing; the
		// MRTR guard's rule that a form has fields is about what a policy
		// can cover.
		return
	}
	// The form rules of the elicitation guard: a flat schema, nothing that
	// asks for sensitive data (that is URL mode's).
	schema, _ := g.strictBody()["requestedSchema"].(map[string]any)
	if r, field := elicit.CheckFormSchema(schema); r != statekeys.ReasonNone {
		ptr := "/requestedSchema"
		if field != "" {
			ptr += "/properties/" + pointerToken(field)
		}
		g.fail = &Error{Code: CodeInvalidContent, Reason: string(r), Pointer: g.base + ptr}
	}
}

// checkURL applies the URL elicitation rules (elicit.CheckURL) to the
// sanitized URL; a secret the pass redacted in it refuses it too.
func (g *guardRun) checkURL(u, id, ptr string) {
	g.rec.URLs++
	r := elicit.CheckURL(u, id)
	if r == statekeys.ReasonNone {
		for _, f := range g.ev.Findings {
			if f.Kind != "tag" && strings.HasPrefix(f.Pointer, g.base+ptr) {
				r = statekeys.ReasonURLSecret
				break
			}
		}
	}
	if r != statekeys.ReasonNone {
		g.fail = &Error{Code: CodeInvalidContent, Reason: string(r), Pointer: g.base + ptr}
	}
}

// guardRoots checks a roots/list request: no params, or params with only
// _meta (strings went through the chain).
func guardRoots(g *guardRun) {
	g.checkMethod(wire.MethodRootsList)
}

// pointerToken escapes a member name for a JSON pointer.
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
