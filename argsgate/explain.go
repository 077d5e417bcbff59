package argsgate

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// explain fills r for a violation: code, pointer and the message text.
func (g *Gate) explain(r *Result, tool string, rawSchema []byte, s *schema.Schema, args any, v *schema.Violation) {
	code, ptr := classify(v)
	r.Code, r.Keyword, r.SchemaPointer = code, v.Keyword, v.SchemaPointer
	r.Pointer = g.clean(ptr, 4*g.maxEcho())
	doc, _ := schema.Decode(rawSchema, 0)
	d := describer{g: g, root: doc}

	var b strings.Builder
	b.WriteString("Invalid arguments for tool ")
	b.WriteString(g.quoteName(tool))
	b.WriteString(" [" + string(code) + "]: ")
	param := "parameter " + g.quoteName(ptr)
	if ptr == "" {
		param = "the arguments object"
	}
	kwValue, _ := d.at(v.SchemaPointer)
	value, haveValue := lookup(args, v.InstancePointer)
	switch code {
	case CodeMissing:
		b.WriteString("required " + param + " is missing.")
	case CodeType:
		b.WriteString(param + " must be " + d.typeWords(kwValue) + ", but it is " + jsonTypeWithArticle(value) + g.echoSuffix(value, haveValue) + ".")
	case CodeUnknownProperty:
		topLevel := strings.Count(ptr, "/") == 1
		if topLevel {
			b.WriteString(g.quoteName(ptr) + " is not a parameter of this tool; remove it.")
		} else {
			b.WriteString(g.quoteName(ptr) + " is not a member the tool's inputSchema declares; remove it.")
		}
		if names := d.declared(parentPointer(v.SchemaPointer, v.Keyword)); names != "" && (v.Keyword != "unknown" || topLevel) {
			b.WriteString(" Declared here: " + names + ".")
		}
	default:
		b.WriteString(param + " " + d.constraint(v.Keyword, kwValue) + g.echoSuffix(value, haveValue) + ".")
	}

	shapePtr := parentPointer(v.SchemaPointer, v.Keyword)
	if code == CodeMissing && v.Property != "" {
		if sub, ok := d.at(shapePtr + "/properties/" + escape(v.Property)); ok {
			b.WriteString("\nExpected shape of " + g.quoteName(ptr) + ": " + d.describe(sub, 0) + ".")
		}
	} else if sub, ok := d.at(shapePtr); ok && code != CodeUnknownProperty {
		b.WriteString("\nExpected shape of " + g.quoteNameOrArgs(ptr) + ": " + d.describe(sub, 0) + ".")
	}
	if doc != nil {
		b.WriteString("\nExpected arguments: " + d.describe(doc, 0) + ".")
	}
	ex := d.exampleArgs(firstToken(ptr), code != CodeUnknownProperty)
	call := marshal(struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}{tool, ex})
	if s.Valid(ex) && len(s.Undeclared(ex)) == 0 {
		b.WriteString("\nCorrected example call: " + string(call))
	} else {
		b.WriteString("\nExample call (replace the values to meet the constraints above): " + string(call))
	}
	r.Text = g.finish(b.String())
}

func (g *Gate) maxEcho() int {
	if g.o.MaxEcho < 0 {
		return DefaultMaxEcho
	}
	return g.o.MaxEcho
}

// echoSuffix returns ` (got: <value>)` with the value sanitized and
// bounded, or "" when echoing is off or there is no value.
func (g *Gate) echoSuffix(v any, ok bool) string {
	if !ok || g.o.MaxEcho < 0 {
		return ""
	}
	var text string
	if s, isStr := v.(string); isStr {
		text = strconv.Quote(g.clean(s, g.o.MaxEcho))
	} else {
		text = g.clean(string(marshal(v)), g.o.MaxEcho)
	}
	return " (got: " + text + ")"
}

// quoteName quotes a tool name, member name or pointer after cleaning it.
func (g *Gate) quoteName(s string) string {
	return strconv.Quote(g.clean(s, g.maxEcho()))
}

func (g *Gate) quoteNameOrArgs(ptr string) string {
	if ptr == "" {
		return "the arguments"
	}
	return g.quoteName(ptr)
}

// clean normalizes s (invisible and control characters removed, NFKC),
// redacts secrets and pseudo-instruction tags, turns the remaining line
// breaks and tabs into spaces, and bounds it to max characters ("..." marks a
// cut). Redaction runs before the cut, so a secret is never
// shortened out of recognition.
func (g *Gate) clean(s string, max int) string {
	t := g.sanitize(s)
	t = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, t)
	if max > 0 && utf8.RuneCountInString(t) > max {
		n := 0
		for i := range t {
			if n == max {
				return t[:i] + "..."
			}
			n++
		}
	}
	return t
}

// sanitize normalizes and redacts, keeping line breaks.
func (g *Gate) sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var n scanners.Normalizer
	norm := n.Append(nil, []byte(s), true)
	red := g.redactor()
	out, _ := red.Append(nil, norm, true, nil) // final: the redactor is reset
	g.release(red)
	return string(out)
}

// finish sanitizes the whole message once more.
func (g *Gate) finish(text string) string { return g.sanitize(text) }

// lookup resolves a JSON pointer in a value.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// firstToken returns the first member name of a pointer ("" for the root).
func firstToken(ptr string) string {
	if ptr == "" {
		return ""
	}
	tok, _, _ := strings.Cut(ptr[1:], "/")
	return unescape(tok)
}

// parentPointer returns the schema pointer of the schema holding the
// failing keyword: sp without its last token when that token is the keyword
// (or without the last two for dependentRequired/<member>).
func parentPointer(sp, keyword string) string {
	if !strings.HasPrefix(sp, "#") {
		return sp
	}
	i := strings.LastIndex(sp, "/")
	if i < 0 {
		return sp
	}
	if unescape(sp[i+1:]) == keyword {
		return sp[:i]
	}
	if j := strings.LastIndex(sp[:i], "/"); j >= 0 && unescape(sp[j+1:i]) == keyword {
		return sp[:j]
	}
	return sp
}

func jsonTypeWithArticle(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "an integer"
		}
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}
