package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustCompile(t testing.TB, raw string) *Schema {
	t.Helper()
	s, err := Compile([]byte(raw), Limits{})
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return s
}

func mustDecode(t testing.TB, raw string) any {
	t.Helper()
	v, err := Decode([]byte(raw), 0)
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

func TestCompileErrors(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40)
	cases := []struct {
		name   string
		raw    string
		lim    Limits
		code   Code
		reason Reason
	}{
		{"not-json", `{"type":`, Limits{}, CodeInvalid, ReasonSyntax},
		{"duplicate-key", `{"type":"string","type":"number"}`, Limits{}, CodeInvalid, ReasonDuplicateKey},
		{"metaschema", `{"type":"strin"}`, Limits{}, CodeInvalid, ReasonMetaSchema},
		{"minLength-negative", `{"minLength":-1}`, Limits{}, CodeInvalid, ReasonMetaSchema},
		{"regexp-lookahead", `{"pattern":"(?=a)"}`, Limits{}, CodeInvalid, ReasonMetaSchema},
		{"unknown-dialect", `{"$schema":"https://example.com/my-dialect"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"http-ref", `{"$ref":"http://example.com/s.json"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"https-ref", `{"$ref":"https://example.com/s.json#/a"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"file-ref", `{"$ref":"file:///etc/passwd"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"relative-ref", `{"$ref":"other.json"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"relative-to-id", `{"$id":"http://example.com/root.json","properties":{"a":{"$ref":"a.json"}}}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"urn-ref", `{"$ref":"urn:example:x"}`, Limits{}, CodeRefDenied, ReasonExternalRef},
		{"missing-pointer", `{"$ref":"#/$defs/missing"}`, Limits{}, CodeRefUnresolved, ReasonMissingTarget},
		{"missing-anchor", `{"$ref":"#nowhere"}`, Limits{}, CodeRefUnresolved, ReasonMissingTarget},
		{"too-large", `{"description":"` + strings.Repeat("x", 100) + `"}`, Limits{MaxSchemaBytes: 64}, CodeTooLarge, ReasonSize},
		{"too-deep", deep, Limits{MaxDepth: 16}, CodeTooDeep, ReasonDepth},
		{"number-overflow", `{"maximum":1e400}`, Limits{}, CodeInvalid, ReasonNumber},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile([]byte(tc.raw), tc.lim)
			if err == nil {
				t.Fatalf("compiled: %v", s.Digest())
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not *Error: %T", err)
			}
			if e.Code != tc.code || (tc.reason != ReasonNone && e.Reason != tc.reason) {
				t.Fatalf("got %s/%s, want %s/%s", e.Code, e.Reason, tc.code, tc.reason)
			}
			if !errors.Is(err, &Error{Code: tc.code}) {
				t.Fatal("errors.Is does not match the code")
			}
			if strings.Contains(err.Error(), "example") || strings.Contains(err.Error(), "passwd") || strings.Contains(err.Error(), "xxx") {
				t.Fatalf("message carries schema text: %s", err)
			}
		})
	}
}

func TestCompileAccepts(t *testing.T) {
	for _, raw := range []string{
		`true`, `false`, `{}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`,
		`{"$defs":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"$id":"https://example.com/root.json","$defs":{"a":{"$id":"a.json","type":"string"}},"$ref":"a.json"}`,
		`{"$ref":"https://json-schema.org/draft/2020-12/schema"}`,
		`{"$anchor":"top","properties":{"self":{"$ref":"#top"}}}`,
	} {
		if _, err := Compile([]byte(raw), Limits{}); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

func TestDefaultDialectIs2020(t *testing.T) {
	// In 2020-12 "items" is one schema and prefixItems the tuple; in
	// draft-07 an array "items" is the tuple form, which 2020-12's
	// meta-schema rejects.
	if _, err := Compile([]byte(`{"items":[{"type":"string"}]}`), Limits{}); CodeOf(err) != CodeInvalid {
		t.Fatalf("draft-07 tuple items under the default dialect: %v", err)
	}
	s := mustCompile(t, `{"prefixItems":[{"type":"string"}],"items":false}`)
	if s.Validate(mustDecode(t, `["a",1]`)) == nil {
		t.Fatal("items:false after prefixItems not enforced")
	}
}

func TestDigestCanonical(t *testing.T) {
	a := mustCompile(t, `{"type":"object","properties":{"a":{"type":"string"}}}`)
	b := mustCompile(t, "{ \"properties\" : {\"a\":{\"type\":\"\\u0073tring\"}},\n \"type\":\"object\" }")
	c := mustCompile(t, `{"type":"object","properties":{"b":{"type":"string"}}}`)
	if a.Digest() != b.Digest() {
		t.Fatalf("same canonical form, different digests: %s %s", a.Digest(), b.Digest())
	}
	if a.Digest() == c.Digest() {
		t.Fatal("different schemas, same digest")
	}
	if !strings.HasPrefix(a.Digest(), "sha256:") || len(a.Digest()) != len("sha256:")+64 {
		t.Fatalf("digest shape: %s", a.Digest())
	}
	// Known answer: SHA-256 of the canonical text {"type":"string"}.
	d, err := Digest([]byte(` { "type" : "string" } `), Limits{})
	if err != nil || d != "sha256:00404e686415370f1711c4d7acfa2905444d3cf23cef2e10c47d445ebe690f96" {
		t.Fatalf("digest %s, %v", d, err)
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name string
		in   string
		code Code
		want string
	}{
		{"object", `{"a":[1,2.5,-0,1e3],"b":"x\u00e9\ud83d\ude00","c":null,"d":true}`, "", `map[a:[1 2.5 -0 1e3] b:xé😀 c:<nil> d:true]`},
		{"escapes", `"\"\\\/\b\f\n\r\t"`, "", "\"\\/\b\f\n\r\t"},
		{"duplicate", `{"a":1,"a":2}`, CodeValueInvalid, ""},
		{"duplicate-escaped", `{"a":1,"\u0061":2}`, CodeValueInvalid, ""},
		{"trailing", `{} x`, CodeValueInvalid, ""},
		{"trailing-comma", `[1,]`, CodeValueInvalid, ""},
		{"leading-zero", `01`, CodeValueInvalid, ""},
		{"bad-utf8", "\"\xff\"", CodeValueInvalid, ""},
		{"lone-surrogate", `"\ud800"`, CodeValueInvalid, ""},
		{"lone-low-surrogate", `"\udc00"`, CodeValueInvalid, ""},
		{"control", "\"a\x01\"", CodeValueInvalid, ""},
		{"overflow", `1e999`, CodeValueInvalid, ""},
		{"deep", strings.Repeat("[", 65) + strings.Repeat("]", 65), CodeValueTooDeep, ""},
		{"depth-64", strings.Repeat("[", 64) + strings.Repeat("]", 64), "", strings.Repeat("[", 64) + strings.Repeat("]", 64)},
		{"empty", ``, CodeValueInvalid, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.in), 64)
			if tc.code != "" {
				if CodeOf(err) != tc.code || err == nil {
					t.Fatalf("got %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(v); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateViolation(t *testing.T) {
	const sch = `{
		"type":"object",
		"properties":{
			"name":{"type":"string","maxLength":5},
			"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}},
			"mode":{"enum":["a","b"]},
			"n":{"anyOf":[{"type":"integer"},{"type":"null"}]},
			"obj":{"$ref":"#/$defs/obj"},
			"no":false
		},
		"required":["name"],
		"additionalProperties":false,
		"$defs":{"obj":{"type":"object","required":["k"],"properties":{"k":{"type":"integer","minimum":1}}}}
	}`
	s := mustCompile(t, sch)
	cases := []struct {
		name  string
		value string
		want  *Violation
	}{
		{"valid", `{"name":"x","tags":["ab"],"n":null,"obj":{"k":2}}`, nil},
		{"missing", `{}`, &Violation{Keyword: "required", InstancePointer: "", SchemaPointer: "#/required", Property: "name"}},
		{"type", `{"name":7}`, &Violation{Keyword: "type", InstancePointer: "/name", SchemaPointer: "#/properties/name/type"}},
		{"maxLength", `{"name":"toolong"}`, &Violation{Keyword: "maxLength", InstancePointer: "/name", SchemaPointer: "#/properties/name/maxLength"}},
		{"extra", `{"name":"x","zzz":1}`, &Violation{Keyword: "additionalProperties", InstancePointer: "", SchemaPointer: "#/additionalProperties", Property: "zzz"}},
		{"item-pattern", `{"name":"x","tags":["ok","NO"]}`, &Violation{Keyword: "pattern", InstancePointer: "/tags/1", SchemaPointer: "#/properties/tags/items/pattern"}},
		{"enum", `{"name":"x","mode":"c"}`, &Violation{Keyword: "enum", InstancePointer: "/mode", SchemaPointer: "#/properties/mode/enum"}},
		{"anyOf", `{"name":"x","n":"1"}`, &Violation{Keyword: "anyOf", InstancePointer: "/n", SchemaPointer: "#/properties/n/anyOf"}},
		{"ref-deep", `{"name":"x","obj":{"k":0}}`, &Violation{Keyword: "minimum", InstancePointer: "/obj/k", SchemaPointer: "#/$defs/obj/properties/k/minimum"}},
		{"ref-required", `{"name":"x","obj":{}}`, &Violation{Keyword: "required", InstancePointer: "/obj", SchemaPointer: "#/$defs/obj/required", Property: "k"}},
		{"false-schema", `{"name":"x","no":1}`, &Violation{Keyword: "false", InstancePointer: "/no", SchemaPointer: "#/properties/no"}},
		{"root-type", `[]`, &Violation{Keyword: "type", InstancePointer: "", SchemaPointer: "#/type"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Validate(mustDecode(t, tc.value))
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if s.Valid(mustDecode(t, tc.value)) != (tc.want == nil) {
				t.Fatal("Valid disagrees with Validate")
			}
		})
	}
}

func TestViolationNeverHoldsValue(t *testing.T) {
	s := mustCompile(t, `{"properties":{"k":{"const":"expected"},"p":{"pattern":"^a$"}},"additionalProperties":{"type":"number"}}`)
	for _, val := range []string{`{"k":"SECRETVALUE"}`, `{"p":"SECRETVALUE"}`, `{"x":"SECRETVALUE"}`} {
		viol := s.Validate(mustDecode(t, val))
		if viol == nil {
			t.Fatalf("%s valid", val)
		}
		if strings.Contains(fmt.Sprintf("%+v", *viol), "SECRET") {
			t.Fatalf("violation holds the value: %+v", *viol)
		}
	}
}

func TestCache(t *testing.T) {
	c := NewCache(2, Limits{})
	a1, err := c.Compile([]byte(`{"type":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := c.Compile([]byte(` {"type" : "string"}`))
	if a1 != a2 {
		t.Fatal("same canonical schema compiled twice")
	}
	if _, err := c.Compile([]byte(`{"type":"number"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile([]byte(`{"type":"boolean"}`)); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 2 {
		t.Fatalf("len %d, want 2", c.Len())
	}
	if c.Get(a1.Digest()) != nil {
		t.Fatal("least recently used entry not evicted")
	}
	if _, err := c.Compile([]byte(`{"$ref":"http://x"}`)); CodeOf(err) != CodeRefDenied {
		t.Fatalf("cache compile error: %v", err)
	}
	hits, misses := c.Stats()
	if hits != 1 || misses != 5 { // the Get of the evicted entry is a miss
		t.Fatalf("hits %d misses %d", hits, misses)
	}
	// Concurrent use: one compiled schema per digest.
	c = NewCache(16, Limits{})
	var wg sync.WaitGroup
	got := make([]*Schema, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Compile([]byte(`{"type":"object","required":["a"]}`))
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = s
			if s.Validate(map[string]any{}) == nil {
				t.Error("invalid value accepted")
			}
		}()
	}
	wg.Wait()
	for _, s := range got[1:] {
		if s != got[0] {
			t.Fatal("concurrent compiles of one digest returned different schemas")
		}
	}
}

// A schema that applies itself along two paths makes evaluation
// exponential in the depth of the value: the budget fails it closed, fast.
func TestEvaluationLimit(t *testing.T) {
	s, err := Compile([]byte(`{"allOf":[{"properties":{"a":{"$ref":"#"}}},{"properties":{"a":{"$ref":"#"}}}]}`), Limits{MaxEvaluations: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Fast() {
		t.Fatal("no fast path")
	}
	deep := strings.Repeat(`{"a":`, 60) + `1` + strings.Repeat(`}`, 60)
	v := mustDecode(t, deep)
	start := time.Now()
	viol := s.Validate(v)
	if viol == nil || viol.Keyword != KeywordEvaluationLimit || s.Valid(v) {
		t.Fatalf("got %+v", viol)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	// Shallow values stay within the default budget and are exact.
	if viol := s.Validate(mustDecode(t, `{"a":{"a":{"a":1}}}`)); viol != nil {
		t.Fatalf("shallow value: %+v", viol)
	}
	// A small budget fails closed even a cheap valid value.
	small, err := Compile([]byte(`{"items":{"type":"integer"}}`), Limits{MaxEvaluations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if small.Valid(mustDecode(t, `[1,2,3,4,5]`)) {
		t.Fatal("budget not applied")
	}
	if !small.Valid(mustDecode(t, `[1]`)) {
		t.Fatal("within budget but invalid")
	}
}

// A panic inside the library's validator fails validation closed instead
// of crashing the worker. Decode refuses the literals that caused one
// (math/big cannot parse 0e10000000000000000000), so the test hands
// Validate the number directly.
func TestValidatorFaultFailsClosed(t *testing.T) {
	for _, raw := range []string{`{"minimum":0,"unevaluatedProperties":false}`, `{"minimum":0,"unevaluatedItems":false}`} {
		s, err := Compile([]byte(raw), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Fast() {
			t.Fatalf("%s: has a fast path; the test needs the library's", raw)
		}
		bad := json.Number("0e10000000000000000000")
		if s.Valid(bad) {
			t.Fatalf("%s: a value the validator cannot evaluate is valid", raw)
		}
		if v := s.Validate(bad); v == nil || v.Keyword != "invalid" {
			t.Fatalf("%s: violation %+v, want keyword invalid", raw, v)
		}
		if !s.Valid(json.Number("1")) || s.Validate(json.Number("1")) != nil {
			t.Fatalf("%s: 1 is not valid", raw)
		}
		if _, err := Decode([]byte(bad), 0); err == nil {
			t.Fatal("Decode accepts a literal math/big cannot parse")
		}
	}
}
