package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzDecode compares Decode with encoding/json (UseNumber): whatever Decode
// accepts, encoding/json accepts with the same value; whatever Decode refuses
// as a syntax error, encoding/json refuses too.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0],"b":"\u00e9\ud83d\ude00"}`, `[]`, `"x"`, `{"a":1,"a":2}`, `[1,]`, "\"\xff\"", `"\ud800"`, `1e400`, `{"a":{"b":[null,true,false]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data, 32)
		var want any
		var jerr error
		if !json.Valid(data) {
			jerr = errors.New("not valid JSON")
		} else {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			jerr = dec.Decode(&want)
		}
		if err == nil {
			if jerr != nil {
				t.Fatalf("Decode accepted what encoding/json refuses (%v): %q", jerr, data)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("values differ for %q:\n%#v\n%#v", data, got, want)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("untyped error %T", err)
		}
		if e.Reason == ReasonSyntax && jerr == nil {
			t.Fatalf("Decode calls valid JSON a syntax error: %q", data)
		}
	})
}

// libraryCompile compiles doc directly with the library: default draft
// 2020-12, every non-meta reference refused. It is the oracle of
// FuzzValidate.
func libraryCompile(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(&denyLoader{})
	if err := c.AddResource("urn:oracle", doc); err != nil {
		return nil, err
	}
	return c.Compile("urn:oracle")
}

// resolve reports whether the JSON pointer ptr names a location in v.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
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

// subsetOf reports whether p is v with object members removed (and nothing
// added or changed).
func subsetOf(p, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		pm, ok := p.(map[string]any)
		if !ok {
			return false
		}
		for k, pv := range pm {
			vv, ok := x[k]
			if !ok || !subsetOf(pv, vv) {
				return false
			}
		}
		return true
	case []any:
		pa, ok := p.([]any)
		if !ok || len(pa) != len(x) {
			return false
		}
		for i := range pa {
			if !subsetOf(pa[i], x[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(p, v)
}

var fuzzSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"array","items":{"type":"integer"}}},"required":["a"],"additionalProperties":false}`,
	`{"anyOf":[{"type":"string"},{"properties":{"x":{"minimum":2}}}]}`,
	`{"$defs":{"n":{"properties":{"v":{},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
	`{"prefixItems":[{"const":1}],"items":{"enum":["a","b",null]},"uniqueItems":true}`,
	`{"if":{"required":["t"]},"then":{"properties":{"t":{"type":"number"}}},"else":{"maxProperties":1}}`,
	`{"patternProperties":{"^x":{"type":"boolean"}},"unevaluatedProperties":false}`,
	`{"$ref":"http://example.com/x"}`,
	`{"not":{"multipleOf":0.5}}`,
}

// FuzzValidate compiles fuzzed schemas with Compile and with the library
// directly (the oracle) and checks that they agree on compiling and on
// validity, that a Violation points into the value, and that Project only
// removes members, reports exactly what it removed, and never changes the
// outcome for a valid value under the schema class of projectionSafe.
func FuzzValidate(f *testing.F) {
	values := []string{`{"a":"xy","b":[1,2]}`, `{"a":"toolong","c":1}`, `"s"`, `{"x":1,"v":1,"next":{"v":2,"w":3}}`, `[1,"a",null]`, `{"t":1,"u":2}`, `{"xa":true,"y":1}`, `7`}
	for i, s := range fuzzSchemas {
		f.Add([]byte(s), []byte(values[i%len(values)]))
	}
	f.Fuzz(func(t *testing.T, rawSchema, rawValue []byte) {
		if len(rawSchema) > 4096 || len(rawValue) > 4096 {
			return
		}
		doc, derr := decodeWith(rawSchema, DefaultMaxDepth, CodeInvalid, CodeTooDeep)
		if derr != nil {
			return
		}
		if _, err := digestOf(rawSchema); err != nil {
			return
		}
		s, err := Compile(rawSchema, Limits{})
		oracle, oerr := libraryCompile(doc)
		if err != nil && oerr == nil && (CodeOf(err) == CodeRefDenied || CodeOf(err) == CodeRefUnresolved) {
			// Stricter than the oracle about references, never more lenient:
			// a relative $ref such as "0" resolves against the base URI, which
			// the oracle's urn: base may turn into itself; ours refuses every
			// reference that leaves the document.
			return
		}
		if (err == nil) != (oerr == nil) {
			t.Fatalf("compile disagrees: ours %v, library %v, schema %q", err, oerr, rawSchema)
		}
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatal("error without code")
			}
			return
		}
		v, err := Decode(rawValue, 32)
		if err != nil {
			return
		}
		if decided, agrees := fastAgrees(s, v); decided && !agrees {
			t.Fatalf("fast path disagrees with the library: schema %q value %q", rawSchema, rawValue)
		}
		viol := s.Validate(v)
		if (viol == nil) != (oracle.Validate(v) == nil) {
			t.Fatalf("validity disagrees with the library: schema %q value %q", rawSchema, rawValue)
		}
		if viol != nil {
			if viol.Keyword == "" || !strings.HasPrefix(viol.SchemaPointer, "#") && !strings.Contains(viol.SchemaPointer, "#") {
				t.Fatalf("malformed violation %+v", *viol)
			}
			if _, ok := resolve(v, viol.InstancePointer); !ok {
				t.Fatalf("violation points outside the value: %+v", *viol)
			}
		}
		p, dropped := s.Project(v)
		if !subsetOf(p, v) {
			t.Fatalf("projection added or changed data: schema %q value %q", rawSchema, rawValue)
		}
		for _, d := range dropped {
			if _, ok := resolve(v, d); !ok {
				t.Fatalf("dropped pointer %q not in the value", d)
			}
		}
		if len(dropped) == 0 && !reflect.DeepEqual(p, v) {
			t.Fatal("projection changed the value without reporting a drop")
		}
	})
}

// projectionSafe builds, from fuzz bytes, a schema of the class whose
// valid values stay valid after projection: type, properties,
// patternProperties, additionalProperties (schema or true), required,
// items, prefixItems, allOf, anyOf, $ref, bounds and lengths.
type schemaGen struct {
	b []byte
	i int
}

func (g *schemaGen) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return c
}

func (g *schemaGen) schema(depth int) string {
	if depth > 3 {
		return `{}`
	}
	var parts []string
	n := int(g.next() % 4)
	for k := 0; k < n; k++ {
		switch g.next() % 11 {
		case 0:
			parts = append(parts, `"type":"`+[]string{"object", "array", "string", "integer", "number", "boolean", "null"}[g.next()%7]+`"`)
		case 1:
			parts = append(parts, `"properties":{"a":`+g.schema(depth+1)+`,"b":`+g.schema(depth+1)+`}`)
		case 2:
			parts = append(parts, `"patternProperties":{"^x":`+g.schema(depth+1)+`}`)
		case 3:
			if g.next()%2 == 0 {
				parts = append(parts, `"additionalProperties":true`)
			} else {
				parts = append(parts, `"additionalProperties":`+g.schema(depth+1))
			}
		case 4:
			parts = append(parts, `"required":["`+string(rune('a'+g.next()%3))+`"]`)
		case 5:
			parts = append(parts, `"items":`+g.schema(depth+1))
		case 6:
			parts = append(parts, `"prefixItems":[`+g.schema(depth+1)+`]`)
		case 7:
			parts = append(parts, `"allOf":[`+g.schema(depth+1)+`,`+g.schema(depth+1)+`]`)
		case 8:
			parts = append(parts, `"anyOf":[`+g.schema(depth+1)+`,`+g.schema(depth+1)+`]`)
		case 9:
			parts = append(parts, `"maxLength":`+strconv.Itoa(int(g.next()%4)))
		case 10:
			parts = append(parts, `"minimum":`+strconv.Itoa(int(g.next()%4)))
		}
	}
	seen := map[string]bool{}
	var uniq []string
	for _, p := range parts {
		key := p[:strings.Index(p, ":")]
		if !seen[key] {
			seen[key] = true
			uniq = append(uniq, p)
		}
	}
	return "{" + strings.Join(uniq, ",") + "}"
}

// FuzzProjectKeepsValid: for the projection-safe class, a valid value stays
// valid after projection, and projecting again drops nothing more.
func FuzzProjectKeepsValid(f *testing.F) {
	f.Add([]byte{3, 1, 3, 1, 0, 0, 0, 4, 0}, []byte(`{"a":{"a":1,"z":2},"b":"s","x1":[1,{"q":1}]}`))
	f.Add([]byte{2, 8, 1, 1, 1, 1, 2, 0, 0}, []byte(`{"a":1,"c":{"a":[]}}`))
	f.Add([]byte{2, 5, 1, 1, 0, 6, 2, 0, 0}, []byte(`[{"a":1,"b":2,"c":3},{"b":1}]`))
	f.Fuzz(func(t *testing.T, gen, rawValue []byte) {
		g := &schemaGen{b: gen}
		raw := g.schema(0)
		s, err := Compile([]byte(raw), Limits{})
		if err != nil {
			t.Fatalf("generated schema does not compile (%v): %s", err, raw)
		}
		v, err := Decode(rawValue, 32)
		if err != nil {
			return
		}
		p, dropped := s.Project(v)
		if !subsetOf(p, v) {
			t.Fatalf("projection added data: %s", raw)
		}
		if s.Valid(v) && !s.Valid(p) {
			pb, _ := json.Marshal(p)
			t.Fatalf("valid value became invalid: schema %s value %s projected %s dropped %q", raw, rawValue, pb, dropped)
		}
		if s.Valid(v) {
			if _, again := s.Project(p); len(again) != 0 {
				t.Fatalf("projection not idempotent on a valid value: schema %s value %s, dropped again %q", raw, rawValue, again)
			}
		}
	})
}

// fastGen builds schemas over every keyword the fast path handles.
func (g *schemaGen) fastSchema(depth int) string {
	if depth > 3 {
		return []string{`true`, `false`, `{}`, `{"type":"integer"}`}[g.next()%4]
	}
	if g.next()%8 == 0 {
		return []string{`true`, `false`}[g.next()%2]
	}
	nums := []string{"0", "1", "2", "-1", "0.5", "1.5", "1e1", "3", "100", "-2.25"}
	vals := []string{`0`, `1`, `1.0`, `"a"`, `""`, `null`, `true`, `[]`, `{}`, `[1,"a"]`, `{"a":1}`, `-0`, `1e0`, `0.5`}
	var parts []string
	n := 1 + int(g.next()%4)
	for k := 0; k < n; k++ {
		switch g.next() % 30 {
		case 0:
			parts = append(parts, `"type":"`+[]string{"object", "array", "string", "integer", "number", "boolean", "null"}[g.next()%7]+`"`)
		case 1:
			parts = append(parts, `"type":["integer","string"]`)
		case 2:
			parts = append(parts, `"const":`+vals[int(g.next())%len(vals)])
		case 3:
			parts = append(parts, `"enum":[`+vals[int(g.next())%len(vals)]+`,`+vals[int(g.next())%len(vals)]+`]`)
		case 4:
			parts = append(parts, `"properties":{"a":`+g.fastSchema(depth+1)+`,"b":`+g.fastSchema(depth+1)+`}`)
		case 5:
			parts = append(parts, `"patternProperties":{"^[ab]":`+g.fastSchema(depth+1)+`}`)
		case 6:
			parts = append(parts, `"additionalProperties":`+g.fastSchema(depth+1))
		case 7:
			parts = append(parts, `"required":["`+string(rune('a'+g.next()%3))+`"]`)
		case 8:
			parts = append(parts, `"minProperties":`+strconv.Itoa(int(g.next()%3)))
		case 9:
			parts = append(parts, `"maxProperties":`+strconv.Itoa(int(g.next()%3)))
		case 10:
			parts = append(parts, `"propertyNames":{"maxLength":1}`)
		case 11:
			parts = append(parts, `"dependentRequired":{"a":["b"]}`)
		case 12:
			parts = append(parts, `"dependentSchemas":{"a":`+g.fastSchema(depth+1)+`}`)
		case 13:
			parts = append(parts, `"items":`+g.fastSchema(depth+1))
		case 14:
			parts = append(parts, `"prefixItems":[`+g.fastSchema(depth+1)+`]`)
		case 15:
			parts = append(parts, `"minItems":`+strconv.Itoa(int(g.next()%3)), `"maxItems":`+strconv.Itoa(int(g.next()%4)))
		case 16:
			parts = append(parts, `"uniqueItems":true`)
		case 17:
			parts = append(parts, `"contains":`+g.fastSchema(depth+1))
		case 18:
			parts = append(parts, `"minContains":`+strconv.Itoa(int(g.next()%3)), `"maxContains":`+strconv.Itoa(int(g.next()%3)))
		case 19:
			parts = append(parts, `"minLength":`+strconv.Itoa(int(g.next()%3)), `"maxLength":`+strconv.Itoa(int(g.next()%4)))
		case 20:
			parts = append(parts, `"pattern":"^a"`)
		case 21:
			parts = append(parts, `"minimum":`+nums[int(g.next())%len(nums)])
		case 22:
			parts = append(parts, `"maximum":`+nums[int(g.next())%len(nums)])
		case 23:
			parts = append(parts, `"exclusiveMinimum":`+nums[int(g.next())%len(nums)])
		case 24:
			parts = append(parts, `"exclusiveMaximum":`+nums[int(g.next())%len(nums)])
		case 25:
			parts = append(parts, `"multipleOf":`+[]string{"1", "2", "0.5", "0.01", "3", "1e-1"}[g.next()%6])
		case 26:
			parts = append(parts, `"not":`+g.fastSchema(depth+1))
		case 27:
			parts = append(parts, `"`+[]string{"allOf", "anyOf", "oneOf"}[g.next()%3]+`":[`+g.fastSchema(depth+1)+`,`+g.fastSchema(depth+1)+`]`)
		case 28:
			parts = append(parts, `"if":`+g.fastSchema(depth+1), `"then":`+g.fastSchema(depth+1), `"else":`+g.fastSchema(depth+1))
		case 29:
			parts = append(parts, `"$ref":"#"`)
		}
	}
	seen := map[string]bool{}
	var uniq []string
	for _, p := range parts {
		key := p[:strings.Index(p, ":")]
		if !seen[key] {
			seen[key] = true
			uniq = append(uniq, p)
		}
	}
	return "{" + strings.Join(uniq, ",") + "}"
}

// FuzzFastPath compares the fast path with the library on generated
// schemas over every keyword it handles: it may decline (unknown), never
// answer the opposite of the library.
func FuzzFastPath(f *testing.F) {
	f.Add([]byte{3, 4, 0, 0, 21, 5, 16}, []byte(`{"a":1,"b":[1,1]}`))
	f.Add([]byte{2, 27, 1, 2, 0, 3, 25, 2}, []byte(`[0.5,1.0,2]`))
	f.Add([]byte{2, 29, 0, 4}, []byte(`{"a":{"a":{}}}`))
	f.Add([]byte{4, 17, 0, 3, 18, 1, 2, 16}, []byte(`[1,"a",1.0,{"a":1}]`))
	f.Add([]byte{3, 21, 4, 24, 9, 1}, []byte(`-2.250`))
	f.Fuzz(func(t *testing.T, gen, rawValue []byte) {
		g := &schemaGen{b: gen}
		raw := g.fastSchema(0)
		s, err := Compile([]byte(raw), Limits{})
		if err != nil {
			return // e.g. minContains without contains is still valid; a
			// generated combination the meta-schema refuses is skipped
		}
		// Shallow values: some generated schemas apply a subschema along
		// several paths, which is exponential in the depth of the value
		// for the library as for the fast path (TestEvaluationLimit).
		v, err := Decode(rawValue, 6)
		if err != nil {
			return
		}
		lib := s.s.Validate(v) == nil
		if s.fast == nil {
			if !strings.Contains(raw, `"$ref":"#"`) {
				t.Fatalf("no fast path for %s", raw)
			}
			return
		}
		switch s.fast.validate(v, DefaultMaxEvaluations) {
		case fastValid:
			if !lib {
				t.Fatalf("fast path says valid, library invalid: schema %s value %s", raw, rawValue)
			}
		case fastInvalid:
			if lib {
				t.Fatalf("fast path says invalid, library valid: schema %s value %s", raw, rawValue)
			}
		}
		if s.Valid(v) != lib {
			t.Fatal("Valid differs from the library")
		}
	})
}
