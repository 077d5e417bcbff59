package argsgate

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// maxRefHops bounds $ref following while describing a schema.
const maxRefHops = 8

// describer renders parts of the raw inputSchema as short text. Everything
// taken from the schema (names, enum values, patterns) is cleaned and
// bounded like an echoed value: the schema is the tool's text, untrusted.
type describer struct {
	g    *Gate
	root any
}

// at resolves a "#/..." schema pointer in the raw schema.
func (d *describer) at(ptr string) (any, bool) {
	if d.root == nil || !strings.HasPrefix(ptr, "#") {
		return nil, false
	}
	return lookup(d.root, ptr[1:])
}

// deref follows local $ref chains ("#/..."), at most maxRefHops.
func (d *describer) deref(node any) any {
	for i := 0; i < maxRefHops; i++ {
		m, ok := node.(map[string]any)
		if !ok {
			return node
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return node
		}
		target, ok := d.at(ref)
		if !ok {
			return node
		}
		node = target
	}
	return node
}

func (d *describer) value(v any) string {
	return d.g.clean(string(marshal(v)), d.g.maxEcho())
}

func (d *describer) listed() int { return d.g.o.MaxListed }

// typeWords renders a "type" keyword value: "a string", "an integer or null".
func (d *describer) typeWords(t any) string {
	var names []string
	switch x := t.(type) {
	case string:
		names = []string{x}
	case []any:
		for _, n := range x {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
	}
	if len(names) == 0 {
		return "of another type"
	}
	words := make([]string, 0, len(names))
	for _, n := range names {
		words = append(words, article(d.g.clean(n, 16)))
	}
	return strings.Join(words, " or ")
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

// constraint renders what a failing keyword requires, as a verb phrase.
func (d *describer) constraint(keyword string, kv any) string {
	num := func() string { return d.value(kv) }
	switch keyword {
	case "enum":
		if arr, ok := kv.([]any); ok {
			return "must be one of " + d.values(arr)
		}
	case "const":
		return "must be exactly " + d.value(kv)
	case "minLength":
		return "must have at least " + num() + " characters"
	case "maxLength":
		return "must have at most " + num() + " characters"
	case "pattern":
		return "must match the pattern " + d.value(kv)
	case "format":
		return "must be a valid " + d.value(kv)
	case "minimum":
		return "must be >= " + num()
	case "maximum":
		return "must be <= " + num()
	case "exclusiveMinimum":
		return "must be > " + num()
	case "exclusiveMaximum":
		return "must be < " + num()
	case "multipleOf":
		return "must be a multiple of " + num()
	case "minItems":
		return "must have at least " + num() + " items"
	case "maxItems":
		return "must have at most " + num() + " items"
	case "uniqueItems":
		return "must not contain duplicate items"
	case "minProperties":
		return "must have at least " + num() + " members"
	case "maxProperties":
		return "must have at most " + num() + " members"
	case "anyOf":
		return "must match at least one of the allowed shapes"
	case "oneOf":
		return "must match exactly one of the allowed shapes"
	case "not":
		return "must not match the forbidden shape"
	case "false":
		return "is not allowed"
	case schema.KeywordEvaluationLimit:
		return "could not be checked within the evaluation limit, so it is refused"
	case "propertyNames":
		return "has a member name that is not allowed"
	case "contains", "minContains", "maxContains":
		return "does not contain the required items"
	}
	return "does not satisfy the schema keyword " + strconv.Quote(d.g.clean(keyword, 32))
}

func (d *describer) values(arr []any) string {
	parts := make([]string, 0, len(arr))
	for i, v := range arr {
		if i == d.listed() {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, d.value(v))
	}
	return strings.Join(parts, ", ")
}

// declared lists the property names of the object schema at ptr.
func (d *describer) declared(ptr string) string {
	node, ok := d.at(ptr)
	if !ok {
		return ""
	}
	m, ok := d.deref(node).(map[string]any)
	if !ok {
		return ""
	}
	props, _ := m["properties"].(map[string]any)
	names := sortedKeys(props)
	if len(names) == 0 {
		return "none"
	}
	quoted := make([]string, 0, len(names))
	for i, n := range names {
		if i == d.listed() {
			quoted = append(quoted, "...")
			break
		}
		quoted = append(quoted, d.g.quoteName(n))
	}
	return strings.Join(quoted, ", ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describe renders a schema as a short shape:
// {"query": string (required), "limit": integer >= 1}.
func (d *describer) describe(node any, depth int) string {
	node = d.deref(node)
	switch x := node.(type) {
	case bool:
		if x {
			return "any value"
		}
		return "nothing (not allowed)"
	case map[string]any:
		return d.describeObject(x, depth)
	}
	return "any value"
}

func (d *describer) describeObject(m map[string]any, depth int) string {
	if c, ok := m["const"]; ok {
		return "exactly " + d.value(c)
	}
	if e, ok := m["enum"].([]any); ok {
		return "one of " + d.values(e)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && depth < 2 {
			parts := make([]string, 0, len(alts))
			for i, a := range alts {
				if i == d.listed() {
					parts = append(parts, "...")
					break
				}
				parts = append(parts, d.describe(a, depth+1))
			}
			return strings.Join(parts, " | ")
		}
	}
	t := d.typeName(m)
	switch t {
	case "object":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 || depth >= 2 {
			return "object"
		}
		req := map[string]bool{}
		if r, ok := m["required"].([]any); ok {
			for _, n := range r {
				if s, ok := n.(string); ok {
					req[s] = true
				}
			}
		}
		var parts []string
		for i, k := range sortedKeys(props) {
			if i == d.listed() {
				parts = append(parts, "...")
				break
			}
			p := d.g.quoteName(k) + ": " + d.describe(props[k], depth+1)
			if req[k] {
				p += " (required)"
			}
			parts = append(parts, p)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case "array":
		if items, ok := m["items"]; ok && depth < 2 {
			return "array of " + d.describe(items, depth+1)
		}
		return "array"
	case "":
		return "any value"
	}
	out := d.g.clean(t, 32)
	for _, c := range []struct{ kw, op string }{{"minimum", " >= "}, {"exclusiveMinimum", " > "}, {"maximum", " <= "}, {"exclusiveMaximum", " < "}} {
		if v, ok := m[c.kw].(json.Number); ok {
			out += c.op + d.value(v)
		}
	}
	if f, ok := m["format"].(string); ok {
		out += " (format " + d.g.clean(f, 32) + ")"
	}
	if v, ok := m["maxLength"].(json.Number); ok {
		out += " (at most " + d.value(v) + " characters)"
	}
	return out
}

// typeName returns the first non-null type of a schema, "object" or
// "array" when implied by its keywords, or "".
func (d *describer) typeName(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, n := range t {
			if s, ok := n.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	if _, ok := m["items"]; ok {
		return "array"
	}
	return ""
}

// exampleArgs builds example arguments: every required parameter, plus
// the parameter extra when asked and declared.
func (d *describer) exampleArgs(extra string, withExtra bool) map[string]any {
	out := map[string]any{}
	m, ok := d.deref(d.root).(map[string]any)
	if !ok {
		return out
	}
	props, _ := m["properties"].(map[string]any)
	if r, ok := m["required"].([]any); ok {
		for _, n := range r {
			if s, ok := n.(string); ok {
				out[s] = d.example(props[s], 0)
			}
		}
	}
	if withExtra && extra != "" {
		if p, ok := props[extra]; ok {
			out[extra] = d.example(p, 0)
		}
	}
	return out
}

// example returns a value of the schema's declared shape.
func (d *describer) example(node any, depth int) any {
	node = d.deref(node)
	m, ok := node.(map[string]any)
	if !ok || depth > 4 {
		return "example"
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if def, ok := m["default"]; ok {
		return def
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return d.example(alts[0], depth+1)
		}
	}
	switch d.typeName(m) {
	case "string":
		return exampleString(m)
	case "integer", "number":
		return exampleNumber(m)
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		n, _ := m["minItems"].(json.Number)
		if k, err := strconv.Atoi(string(n)); err == nil && k > 0 {
			items := make([]any, 0, min(k, 4))
			for i := 0; i < k && i < 4; i++ {
				items = append(items, d.example(m["items"], depth+1))
			}
			return items
		}
		return []any{}
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		if r, ok := m["required"].([]any); ok {
			for _, n := range r {
				if s, ok := n.(string); ok {
					obj[s] = d.example(props[s], depth+1)
				}
			}
		}
		return obj
	}
	return "example"
}

func exampleString(m map[string]any) any {
	switch m["format"] {
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	case "email":
		return "user@example.com"
	case "uri", "url":
		return "https://example.com/"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	}
	s := "example"
	if n, ok := m["minLength"].(json.Number); ok {
		if k, err := strconv.Atoi(string(n)); err == nil && k > len(s) && k <= 256 {
			s += strings.Repeat("x", k-len(s))
		}
	}
	if n, ok := m["maxLength"].(json.Number); ok {
		if k, err := strconv.Atoi(string(n)); err == nil && k < len(s) && k >= 0 {
			s = s[:k]
		}
	}
	return s
}

func exampleNumber(m map[string]any) any {
	if v, ok := m["minimum"].(json.Number); ok {
		return v
	}
	if v, ok := m["exclusiveMinimum"].(json.Number); ok {
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i+1, 10))
		}
	}
	if v, ok := m["maximum"].(json.Number); ok {
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil && i < 1 {
			return v
		}
	}
	return json.Number("1")
}
