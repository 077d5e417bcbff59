package argsgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Defaults of Options.
const (
	// DefaultMaxArgsBytes caps the arguments (or tools/call request) text.
	DefaultMaxArgsBytes = 1 << 20
	// DefaultMaxDepth caps the nesting of the arguments.
	DefaultMaxDepth = 64
	// DefaultMaxEcho caps, in characters, each value or name echoed back.
	DefaultMaxEcho = 64
	// DefaultMaxListed caps the parameters, enum values or alternatives
	// listed in an expected shape.
	DefaultMaxListed = 16
	// DefaultCacheEntries is the size of the schema cache New makes when
	// Options.Schemas is nil.
	DefaultCacheEntries = 256
)

// Options configure a Gate. The zero value means the defaults.
type Options struct {
	// MaxArgsBytes caps the arguments text (default 1 MiB).
	MaxArgsBytes int
	// MaxDepth caps the nesting of the arguments (default 64).
	MaxDepth int
	// MaxEcho caps each echoed value or name, in characters (default 64);
	// a negative value turns echoing of argument values off.
	MaxEcho int
	// MaxListed caps the items listed in an expected shape (default 16).
	MaxListed int
	// Catalog is the secret and tag catalog used to redact echoed text
	// (default: every built-in rule).
	Catalog *scanners.Catalog
	// Schemas compiles and caches input schemas (default: a cache of
	// DefaultCacheEntries with the default schema limits).
	Schemas *schema.Cache
}

// Gate checks tool arguments. It is safe for concurrent use.
type Gate struct {
	o Options
	// reds is a small free list of redactors for the rejection path (a
	// Redactor holds at most scanners.MaxHold bytes between strings).
	reds chan *scanners.Redactor
}

// freeRedactors is the size of a Gate's free list of redactors.
const freeRedactors = 8

func (g *Gate) redactor() *scanners.Redactor {
	select {
	case r := <-g.reds:
		return r
	default:
		return g.o.Catalog.NewRedactor(nil)
	}
}

func (g *Gate) release(r *scanners.Redactor) {
	select {
	case g.reds <- r:
	default:
	}
}

// New returns a Gate. It fails when an option is out of range or the
// default catalog cannot be built.
func New(o Options) (*Gate, error) {
	if o.MaxArgsBytes < 0 || o.MaxDepth < 0 || o.MaxListed < 0 {
		return nil, errors.New("argsgate: negative limit")
	}
	if o.MaxArgsBytes == 0 {
		o.MaxArgsBytes = DefaultMaxArgsBytes
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxEcho == 0 {
		o.MaxEcho = DefaultMaxEcho
	}
	if o.MaxListed == 0 {
		o.MaxListed = DefaultMaxListed
	}
	if o.Catalog == nil {
		c, err := scanners.NewCatalog(scanners.CatalogOptions{})
		if err != nil {
			return nil, err
		}
		o.Catalog = c
	}
	if o.Schemas == nil {
		o.Schemas = schema.NewCache(DefaultCacheEntries, schema.Limits{})
	}
	return &Gate{o: o, reds: make(chan *scanners.Redactor, freeRedactors)}, nil
}

// Schemas returns the schema cache of the gate.
func (g *Gate) Schemas() *schema.Cache { return g.o.Schemas }

// Result is the answer of a check. Nothing in it is an argument value:
// Pointer is a sanitized, bounded JSON pointer, Text the sanitized message.
type Result struct {
	Valid bool
	Code  Code
	// Keyword is the failing schema keyword ("" when valid).
	Keyword string
	// Pointer is the parameter concerned, as a JSON pointer into the
	// arguments ("" for the arguments object itself).
	Pointer string
	// SchemaPointer is the failing keyword's location in the inputSchema.
	SchemaPointer string
	// SchemaDigest is the digest of the inputSchema ("" when it did not
	// compile).
	SchemaDigest string
	// Text is the message of the tool execution error ("" when valid).
	Text string
}

// MetaPrefix is the prefix of the _meta keys of error results
// (wire.MetaPrefix, the same as the pipeline's).
const MetaPrefix = wire.MetaPrefix

// ToolResult returns the CallToolResult of a rejected call (isError true),
// or nil for a valid one.
func (r *Result) ToolResult() []byte {
	if r.Valid {
		return nil
	}
	meta := map[string]any{
		MetaPrefix + wire.MetaCode:    string(r.Code),
		MetaPrefix + wire.MetaGuard:   wire.GuardVersion,
		MetaPrefix + wire.MetaKeyword: r.Keyword,
		MetaPrefix + wire.MetaPointer: r.Pointer,
	}
	if r.SchemaDigest != "" {
		meta[MetaPrefix+wire.MetaInputSchema] = r.SchemaDigest
	}
	res := struct {
		ResultType string           `json:"resultType"`
		Content    []map[string]any `json:"content"`
		IsError    bool             `json:"isError"`
		Meta       map[string]any   `json:"_meta"`
	}{"complete", []map[string]any{{"type": "text", "text": r.Text}}, true, meta}
	return marshal(res)
}

// Reply returns {"valid":true} for a valid call and the tool execution error
// (ToolResult) otherwise: the reply of mcp.args.validate.
func (r *Result) Reply() []byte {
	if r.Valid {
		return []byte(`{"valid":true}`)
	}
	return r.ToolResult()
}

// marshal encodes without HTML escaping; the values are plain data.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`null`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Check checks the arguments text args (a JSON object; empty means {})
// against inputSchema.
func (g *Gate) Check(tool string, inputSchema, args []byte) *Result {
	if len(bytes.TrimSpace(args)) == 0 {
		return g.CheckValue(tool, inputSchema, map[string]any{})
	}
	if len(args) > g.o.MaxArgsBytes {
		return g.malformed(tool, "the arguments are larger than the limit")
	}
	v, err := schema.Decode(args, g.o.MaxDepth)
	if err != nil {
		return g.malformed(tool, "the arguments are not a valid JSON object ("+string(schema.CodeOf(err))+")")
	}
	return g.CheckValue(tool, inputSchema, v)
}

// Unavailable returns the rejection of a call whose inputSchema could not be
// looked up: fail closed.
func (g *Gate) Unavailable(tool string) *Result {
	r := &Result{Code: CodeUnavailable}
	r.Text = g.finish("The arguments of tool " + g.quoteName(tool) + " could not be checked because the tool catalog is unavailable, so the call was not run [" + string(r.Code) + "]. Retry later.")
	return r
}

// CheckCall checks a request body that is either the arguments object or a
// whole tools/call request ({"jsonrpc":"2.0","method":"tools/call",
// "params":{"name":…,"arguments":…}}). tool is the tool named by the
// caller (a header); when the body is a request, its params.name must agree
// with a non-empty tool, and names the tool otherwise. lookup returns the
// tool's raw inputSchema; nil or ErrUnknownTool means an unknown tool
// (CodeUnknownTool), another error an unavailable catalog
// (CodeUnavailable). It returns the tool name used.
func (g *Gate) CheckCall(tool string, body []byte, lookup func(tool string) ([]byte, error)) (*Result, string) {
	return g.CheckCallSchema(tool, body, func(name string) (*Schema, error) {
		raw, err := lookup(name)
		if err != nil || raw == nil {
			return nil, err
		}
		return &Schema{Raw: raw}, nil
	})
}

// Schema is a tool's inputSchema for CheckCallSchema: the raw text (for the
// messages) and, when the caller has it, the compiled schema (a
// toolcat.Entry has both), which saves decoding and digesting the text on
// every call.
type Schema struct {
	Raw      []byte
	Compiled *schema.Schema
}

// CheckCallSchema is CheckCall with a lookup that may return the compiled
// schema. A nil *Schema or ErrUnknownTool means an unknown tool; another
// error an unavailable catalog.
func (g *Gate) CheckCallSchema(tool string, body []byte, lookup func(tool string) (*Schema, error)) (*Result, string) {
	if len(body) > g.o.MaxArgsBytes {
		return g.malformed(tool, "the request is larger than the limit"), tool
	}
	name, args, err := SplitCall(body, g.o.MaxDepth)
	if err != nil {
		return g.malformed(tool, "the request is not a valid tools/call request or arguments object"), tool
	}
	switch {
	case name != "" && tool != "" && name != tool:
		return g.malformed(tool, "the tool named in the request differs from the tool header"), tool
	case tool == "":
		tool = name
	}
	if tool == "" {
		return g.malformed(tool, "no tool is named"), tool
	}
	sch, err := lookup(tool)
	switch {
	case errors.Is(err, ErrUnknownTool) || err == nil && (sch == nil || sch.Raw == nil):
		return g.UnknownTool(tool), tool
	case err != nil:
		return g.Unavailable(tool), tool
	}
	if sch.Compiled != nil {
		return g.check(tool, sch.Raw, sch.Compiled, args), tool
	}
	return g.CheckValue(tool, sch.Raw, args), tool
}

// SplitCall parses body. A JSON object with "jsonrpc" and "method" members
// is a tools/call request: it returns params.name and params.arguments ({}
// when absent). Any other body is the arguments themselves (name "").
func SplitCall(body []byte, maxDepth int) (name string, args any, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", map[string]any{}, nil
	}
	v, err := schema.Decode(body, maxDepth)
	if err != nil {
		return "", nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", v, nil
	}
	_, hasRPC := obj["jsonrpc"]
	method, hasMethod := obj["method"]
	if !hasRPC || !hasMethod {
		return "", v, nil
	}
	if method != "tools/call" {
		return "", nil, errors.New("argsgate: not a tools/call request")
	}
	params, ok := obj["params"].(map[string]any)
	if !ok {
		return "", nil, errors.New("argsgate: tools/call without params")
	}
	name, ok = params["name"].(string)
	if !ok || name == "" {
		return "", nil, errors.New("argsgate: tools/call without a tool name")
	}
	a, present := params["arguments"]
	if !present {
		a = map[string]any{}
	}
	return name, a, nil
}

// UnknownTool returns the rejection of a call to a tool whose inputSchema is
// not known: fail closed.
func (g *Gate) UnknownTool(tool string) *Result {
	r := &Result{Code: CodeUnknownTool}
	r.Text = g.finish("Tool " + g.quoteName(tool) + " is not known to the argument gate (no inputSchema has been published for it), so the call was not run [" + string(r.Code) + "]. Call tools/list to see the available tools.")
	return r
}

// TooLarge returns the rejection of a request larger than the caller's
// limit (CodeMalformed), for services that refuse a body before reading it.
func (g *Gate) TooLarge(tool string) *Result {
	return g.malformed(tool, "the request is larger than the limit")
}

func (g *Gate) malformed(tool, why string) *Result {
	r := &Result{Code: CodeMalformed}
	r.Text = g.finish("Invalid arguments for tool " + g.quoteName(tool) + " [" + string(r.Code) + "]: " + why + ". Send the arguments as one JSON object whose members are the tool's parameters.")
	return r
}

// CheckValue checks decoded arguments (a value of schema.Decode's
// representation) against inputSchema.
func (g *Gate) CheckValue(tool string, inputSchema []byte, args any) *Result {
	s, err := g.o.Schemas.Compile(inputSchema)
	if err != nil {
		r := &Result{Code: CodeSchemaUnusable}
		r.Text = g.finish("Tool " + g.quoteName(tool) + " cannot be called: its inputSchema is not usable (" + string(schema.CodeOf(err)) + "), so the arguments cannot be checked and the call was not run [" + string(r.Code) + "].")
		return r
	}
	return g.check(tool, inputSchema, s, args)
}

// check checks args against the compiled s (whose text is inputSchema).
func (g *Gate) check(tool string, inputSchema []byte, s *schema.Schema, args any) *Result {
	r := &Result{SchemaDigest: s.Digest()}
	if viol := s.Validate(args); viol != nil {
		g.explain(r, tool, inputSchema, s, args, viol)
		return r
	}
	if und := s.Undeclared(args); len(und) > 0 {
		sort.Strings(und)
		g.explain(r, tool, inputSchema, s, args, &schema.Violation{Keyword: "unknown", InstancePointer: und[0], SchemaPointer: "#"})
		return r
	}
	r.Valid, r.Code = true, CodeValid
	return r
}

// classify maps a violation to a code and the pointer of the parameter.
func classify(v *schema.Violation) (Code, string) {
	switch v.Keyword {
	case "required", "dependentRequired", "dependencies":
		return CodeMissing, joinPointer(v.InstancePointer, v.Property)
	case "type":
		return CodeType, v.InstancePointer
	case "additionalProperties":
		return CodeUnknownProperty, joinPointer(v.InstancePointer, v.Property)
	case "unknown":
		return CodeUnknownProperty, v.InstancePointer
	case "false":
		if strings.HasSuffix(v.SchemaPointer, "/additionalProperties") || strings.HasSuffix(v.SchemaPointer, "/unevaluatedProperties") {
			return CodeUnknownProperty, v.InstancePointer
		}
	case "unevaluatedProperties":
		return CodeUnknownProperty, v.InstancePointer
	}
	return CodeInvalid, v.InstancePointer
}

func joinPointer(ptr, prop string) string {
	if prop == "" {
		return ptr
	}
	return ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(prop, "~", "~0"), "/", "~1")
}
