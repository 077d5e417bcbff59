package peertest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// A check returns what is wrong with one exchange, one line each.
type check func(c *collection, x *exchange) []string

// envelope is a JSON-RPC response decoded loosely.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool           `json:"isError"`
		Meta    map[string]any `json:"_meta"`
	} `json:"result"`
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
}

func parse(b []byte) (envelope, error) {
	var e envelope
	err := json.Unmarshal(b, &e)
	return e, err
}

// isError: a JSON-RPC error response or a tool execution error.
func (e envelope) isError() bool { return e.Error != nil || (e.Result != nil && e.Result.IsError) }

// errorText is what an error response tells its reader.
func (e envelope) errorText() string {
	if e.Error != nil {
		return e.Error.Message
	}
	var b strings.Builder
	if e.Result != nil {
		for _, c := range e.Result.Content {
			b.WriteString(c.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// resultDefs names the schema definition of each method's result.
var resultDefs = map[string]string{
	"tools/call":          "CallToolResult",
	"resources/read":      "ReadResourceResult",
	"prompts/get":         "GetPromptResult",
	"completion/complete": "CompleteResult",
}

// mcpSchemas compiles, through package schema, definitions of the
// official schema of a revision, or skips without ../shared.
type mcpSchemas struct {
	defs json.RawMessage
	memo map[string]*schema.Schema
}

func loadMCPSchemas(t *testing.T, rev string) *mcpSchemas {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "corpora", "mcp-schema", rev, "schema.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s is absent: the official MCP schema of the negotiated revision is not available here", path)
	}
	var doc struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Defs) == 0 {
		t.Fatalf("%s: no $defs (%v)", path, err)
	}
	return &mcpSchemas{defs: doc.Defs, memo: map[string]*schema.Schema{}}
}

func (m *mcpSchemas) def(t *testing.T, name string) *schema.Schema {
	t.Helper()
	if s := m.memo[name]; s != nil {
		return s
	}
	doc := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/` + name + `","$defs":`)
	doc = append(append(doc, m.defs...), '}')
	s, err := schema.Compile(doc, schema.Limits{})
	if err != nil {
		t.Fatalf("compiling %s: %v", name, err)
	}
	m.memo[name] = s
	return s
}

// checkSchema: the sanitized response is a valid JSON-RPC response of the
// negotiated revision, and its result a valid result of the method.
func checkSchema(sc *mcpSchemas, t *testing.T) check {
	return func(c *collection, x *exchange) []string {
		v, err := schema.Decode(x.san, 128)
		if err != nil {
			return []string{"the sanitized response is not strict JSON: " + err.Error()}
		}
		m, _ := v.(map[string]any)
		if _, ok := m["error"]; ok {
			if viol := sc.def(t, "JSONRPCErrorResponse").Validate(v); viol != nil {
				return []string{fmt.Sprintf("not a valid JSONRPCErrorResponse: %s at %q (%s)", viol.Keyword, viol.InstancePointer, viol.SchemaPointer)}
			}
			return nil
		}
		if viol := sc.def(t, "JSONRPCResultResponse").Validate(v); viol != nil {
			return []string{fmt.Sprintf("not a valid JSONRPCResultResponse: %s at %q (%s)", viol.Keyword, viol.InstancePointer, viol.SchemaPointer)}
		}
		def := resultDefs[x.method]
		if viol := sc.def(t, def).Validate(m["result"]); viol != nil {
			return []string{fmt.Sprintf("the result is not a valid %s: %s at %q (%s) %s", def, viol.Keyword, viol.InstancePointer, viol.SchemaPointer, viol.Property)}
		}
		return nil
	}
}

// strs calls f with every key and string value of v, and with the bytes
// of every base64 data or blob member (binary, decoded).
func strs(v any, f func(s string, binary bool)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			f(k, false)
			if s, ok := e.(string); ok && (k == "data" || k == "blob") {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					f(string(b), true)
				}
			}
			strs(e, f)
		}
	case []any:
		for _, e := range v {
			strs(e, f)
		}
	case string:
		f(v, false)
	}
}

func decodeAny(b []byte) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// found lists the planted items in a message.
func (p planted) found(msg []byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	strs(decodeAny(msg), func(s string, binary bool) {
		for name, v := range p.secrets {
			if strings.Contains(s, v) {
				add("secret " + name)
			}
		}
		if binary {
			return
		}
		lower := strings.ToLower(s)
		for _, tag := range p.tags {
			if strings.Contains(lower, strings.ToLower(tag)) {
				add("tag " + tag)
			}
		}
		for _, r := range p.invisible {
			if strings.ContainsRune(s, r) {
				add(fmt.Sprintf("character U+%04X", r))
			}
		}
	})
	slices.Sort(out)
	return out
}

// checkPlanted: no planted secret (in text or in decoded binary data), tag
// or invisible character is in the sanitized response.
func checkPlanted(c *collection, x *exchange) []string {
	var out []string
	for _, f := range c.planted.found(x.san) {
		out = append(out, f+" is still in the sanitized response")
	}
	return out
}

// label is what the policy puts before a text block of tool.
func label(eng *pipeline.Engine, tool string) string {
	return strings.ReplaceAll(eng.Policy().Label.Template, "{tool}", tool)
}

// checkFidelity: a result that is not an error is unchanged beyond the
// documented transforms (peertest.Compare), and only disallowed binary
// blocks are withheld.
func checkFidelity(c *collection, x *exchange) []string {
	raw, err := parse(x.raw)
	if err != nil || raw.isError() {
		return nil
	}
	o := peertest.Options{}
	if x.kind == pipeline.KindToolResult {
		o.ToolResult, o.Label = true, label(c.eng, x.name)
	}
	r, err := peertest.Compare(x.raw, x.san, o)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, d := range r.Diffs {
		out = append(out, d.String())
	}
	allowed := c.eng.Policy().AllowedMIME
	rv := decodeAny(x.raw)
	for _, p := range r.Withheld {
		mt := mimeAt(rv, p)
		if slices.Contains(allowed, mt) {
			out = append(out, fmt.Sprintf("%s: a block of the allowed type %q was withheld", p, mt))
		}
	}
	return out
}

// mimeAt is the mimeType of the block at pointer p (or of its resource).
func mimeAt(v any, p string) string {
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		switch n := v.(type) {
		case map[string]any:
			v = n[tok]
		case []any:
			var i int
			fmt.Sscan(tok, &i)
			if i < len(n) {
				v = n[i]
			}
		}
	}
	m, _ := v.(map[string]any)
	if mt, ok := m["mimeType"].(string); ok {
		return mt
	}
	res, _ := m["resource"].(map[string]any)
	mt, _ := res["mimeType"].(string)
	return mt
}

// checkNeedless: a response that was not an error is not one after.
func checkNeedless(c *collection, x *exchange) []string {
	raw, err1 := parse(x.raw)
	san, err2 := parse(x.san)
	if err1 != nil || err2 != nil {
		return []string{"not JSON"}
	}
	if raw.isError() {
		return nil
	}
	if san.isError() || x.ev.Outcome == pipeline.OutcomeRejected {
		return []string{fmt.Sprintf("needless error: %s / %s", x.ev.Code, x.ev.Reason)}
	}
	return nil
}

// frame matches a stack frame of node ("at f (/srv/a.js:1:2)"), Python
// (`File "a.py", line 3`) or Go ("goroutine 1 [", "/srv/a.go:12").
var frame = regexp.MustCompile(`\bat [^\n]*\.(?:[cm]?js|ts):\d+:\d+|File "[^"]*", line \d+|goroutine \d+ \[|\.go:\d+\b`)

// checkErrorText: an error stays an error of the same request, keeps the
// actionable text of the server's message, and holds no path of the
// machine, no stack frame and no secret.
func checkErrorText(c *collection, x *exchange) []string {
	raw, err1 := parse(x.raw)
	san, err2 := parse(x.san)
	if err1 != nil || err2 != nil {
		return []string{"not JSON"}
	}
	if !raw.isError() {
		if x.invalid || len(x.want) > 0 {
			return []string{"the server accepted arguments the plan calls invalid"}
		}
		return nil
	}
	var out []string
	if !san.isError() {
		out = append(out, "the error is no longer an error")
	}
	if !bytes.Equal(raw.ID, san.ID) {
		out = append(out, fmt.Sprintf("id %s became %s", raw.ID, san.ID))
	}
	if raw.Error != nil && (san.Error == nil || !bytes.Equal(raw.Error.Code, san.Error.Code)) {
		out = append(out, "the JSON-RPC error code changed")
	}
	text := san.errorText()
	for _, w := range x.want {
		if !strings.Contains(text, w) {
			out = append(out, fmt.Sprintf("lost the actionable %q", w))
		}
	}
	if strings.Contains(text, c.root) || strings.Contains(text, "/tmp/") || strings.Contains(text, "/etc/") {
		out = append(out, "keeps a file system path")
	}
	if frame.MatchString(text) {
		out = append(out, "keeps a stack frame")
	}
	return out
}

// run applies a check to every exchange and reports each failure with the
// exchange it belongs to.
func run(t *testing.T, c *collection, name string, ck check) {
	t.Helper()
	failed := 0
	for _, x := range c.exchanges {
		for _, f := range ck(c, x) {
			t.Errorf("%s: %s: %s", name, x, f)
			failed++
		}
	}
	t.Logf("%s: %d exchanges, %d failures", name, len(c.exchanges), failed)
}
