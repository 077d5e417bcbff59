package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestProject(t *testing.T) {
	cases := []struct {
		name    string
		schema  string
		value   string
		want    string
		dropped []string
	}{
		{"drops-undeclared", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"a":"x","b":1,"c":{"d":2}}`, `{"a":"x"}`, []string{"/b", "/c"}},
		{"nested", `{"properties":{"o":{"properties":{"k":{}}}}}`,
			`{"o":{"k":{"free":1},"x":2}}`, `{"o":{"k":{"free":1}}}`, []string{"/o/x"}},
		{"pattern-properties", `{"patternProperties":{"^x-":{"type":"number"}}}`,
			`{"x-a":1,"y":2}`, `{"x-a":1}`, []string{"/y"}},
		{"additional-schema-declares", `{"properties":{"a":{}},"additionalProperties":{"properties":{"v":{}}}}`,
			`{"a":1,"b":{"v":1,"w":2}}`, `{"a":1,"b":{"v":1}}`, []string{"/b/w"}},
		{"additional-true", `{"properties":{"a":{}},"additionalProperties":true}`,
			`{"a":1,"b":2}`, `{"a":1,"b":2}`, nil},
		{"additional-false", `{"properties":{"a":{}},"additionalProperties":false}`,
			`{"a":1,"b":2}`, `{"a":1}`, []string{"/b"}},
		{"required-declares", `{"required":["r"],"properties":{"a":{}}}`,
			`{"r":1,"a":2,"z":3}`, `{"a":2,"r":1}`, []string{"/z"}},
		{"silent-free-form", `{"type":"object"}`,
			`{"a":1,"b":{"c":2}}`, `{"a":1,"b":{"c":2}}`, nil},
		{"true-schema", `true`, `{"a":1}`, `{"a":1}`, nil},
		{"ref-and-allOf", `{"$defs":{"base":{"properties":{"id":{"type":"integer"}}}},"allOf":[{"$ref":"#/$defs/base"},{"properties":{"name":{}}}]}`,
			`{"id":1,"name":"n","secret":"s"}`, `{"id":1,"name":"n"}`, []string{"/secret"}},
		{"anyOf-matching-branch", `{"anyOf":[{"properties":{"kind":{"const":"a"},"a":{}},"required":["kind"]},{"properties":{"kind":{"const":"b"},"b":{}},"required":["kind"]}]}`,
			`{"kind":"a","a":1,"b":2}`, `{"a":1,"kind":"a"}`, []string{"/b"}},
		{"anyOf-no-match-union", `{"anyOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}`,
			`{"a":1,"b":2,"c":3}`, `{"a":1,"b":2}`, []string{"/c"}},
		{"if-then-else", `{"if":{"properties":{"t":{"const":1}},"required":["t"]},"then":{"properties":{"one":{}}},"else":{"properties":{"two":{}}}}`,
			`{"t":1,"one":1,"two":2}`, `{"one":1,"t":1}`, []string{"/two"}},
		{"items", `{"items":{"properties":{"a":{}}}}`,
			`[{"a":1,"b":2},{"a":3}]`, `[{"a":1},{"a":3}]`, []string{"/0/b"}},
		{"prefixItems", `{"prefixItems":[{"properties":{"a":{}}}],"items":{"properties":{"b":{}}}}`,
			`[{"a":1,"b":2},{"a":3,"b":4}]`, `[{"a":1},{"b":4}]`, []string{"/0/b", "/1/a"}},
		{"items-absent-kept", `{"type":"array"}`, `[{"a":1}]`, `[{"a":1}]`, nil},
		{"unevaluated", `{"properties":{"a":{}},"unevaluatedProperties":{"type":"number"}}`,
			`{"a":1,"b":2}`, `{"a":1,"b":2}`, nil},
		{"dependentSchemas", `{"properties":{"card":{}},"dependentSchemas":{"card":{"properties":{"billing":{}}}}}`,
			`{"card":1,"billing":2,"x":3}`, `{"billing":2,"card":1}`, []string{"/x"}},
		{"escaped-pointer", `{"properties":{"a":{}}}`, `{"a":1,"x/y~z":2}`, `{"a":1}`, []string{"/x~1y~0z"}},
		{"scalar", `{"type":"string"}`, `"s"`, `"s"`, nil},
		{"recursive", `{"$defs":{"n":{"properties":{"v":{},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			`{"v":1,"x":0,"next":{"v":2,"y":0,"next":{"v":3,"z":0}}}`, `{"next":{"next":{"v":3},"v":2},"v":1}`, []string{"/next/next/z", "/next/y", "/x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			in := mustDecode(t, tc.value)
			before, _ := json.Marshal(in)
			got, dropped := s.Project(in)
			after, _ := json.Marshal(in)
			if string(before) != string(after) {
				t.Fatal("Project modified its input")
			}
			if !reflect.DeepEqual(got, mustDecode(t, tc.want)) {
				b, _ := json.Marshal(got)
				t.Fatalf("got %s, want %s", b, tc.want)
			}
			if !reflect.DeepEqual(sortedCopy(dropped), sortedCopy(tc.dropped)) {
				t.Fatalf("dropped %q, want %q", dropped, tc.dropped)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestUndeclared(t *testing.T) {
	cases := []struct {
		schema, value string
		want          []string
	}{
		{`{"type":"object"}`, `{"a":1,"b":{"c":1}}`, []string{"/a", "/b"}},
		{`{"type":"object","properties":{}}`, `{"a":1}`, []string{"/a"}},
		{`{"type":"object","properties":{"env":{"type":"object"}}}`, `{"env":{"K":"v"},"x":1}`, []string{"/x"}},
		{`{"type":"object","properties":{"o":{"properties":{"k":{}}}}}`, `{"o":{"k":1,"z":2}}`, []string{"/o/z"}},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"any":"x"}`, nil},
	}
	for _, tc := range cases {
		got := mustCompile(t, tc.schema).Undeclared(mustDecode(t, tc.value))
		if !reflect.DeepEqual(sortedCopy(got), sortedCopy(tc.want)) {
			t.Errorf("%s %s: got %q, want %q", tc.schema, tc.value, got, tc.want)
		}
	}
}
