package schema

import "testing"

func TestBinaryAt(t *testing.T) {
	key := func(k string) Step { return Step{Key: k} }
	item := func(i int) Step { return Step{Index: i, Item: true} }
	tests := []struct {
		name   string
		schema string
		path   []Step
		want   bool
	}{
		{"property contentEncoding", `{"type":"object","properties":{"data":{"type":"string","contentEncoding":"base64"}}}`, []Step{key("data")}, true},
		{"contentEncoding any case", `{"properties":{"data":{"contentEncoding":"BASE64"}}}`, []Step{key("data")}, true},
		{"format byte", `{"properties":{"data":{"type":"string","format":"byte"}}}`, []Step{key("data")}, true},
		{"sibling not binary", `{"properties":{"data":{"contentEncoding":"base64"},"name":{"type":"string"}}}`, []Step{key("name")}, false},
		{"no keyword", `{"properties":{"data":{"type":"string"}}}`, []Step{key("data")}, false},
		{"other encoding", `{"properties":{"data":{"contentEncoding":"base32"}}}`, []Step{key("data")}, false},
		{"other format", `{"properties":{"data":{"format":"binary"}}}`, []Step{key("data")}, false},
		{"root string", `{"type":"string","contentEncoding":"base64"}`, nil, true},
		{"items", `{"properties":{"images":{"type":"array","items":{"contentEncoding":"base64"}}}}`, []Step{key("images"), item(3)}, true},
		{"prefixItems", `{"prefixItems":[{"type":"string"},{"format":"byte"}]}`, []Step{item(1)}, true},
		{"prefixItems other index", `{"prefixItems":[{"type":"string"},{"format":"byte"}]}`, []Step{item(0)}, false},
		{"ref to defs", `{"$defs":{"img":{"type":"string","contentEncoding":"base64"}},"properties":{"a":{"properties":{"png":{"$ref":"#/$defs/img"}}}}}`, []Step{key("a"), key("png")}, true},
		{"allOf", `{"properties":{"d":{"allOf":[{"type":"string"},{"contentEncoding":"base64"}]}}}`, []Step{key("d")}, true},
		{"patternProperties", `{"patternProperties":{"^img_":{"contentEncoding":"base64"}}}`, []Step{key("img_1")}, true},
		{"additionalProperties", `{"properties":{"n":{"type":"string"}},"additionalProperties":{"format":"byte"}}`, []Step{key("x")}, true},
		{"escaped key", `{"properties":{"a/b~c":{"contentEncoding":"base64"}}}`, []Step{key("a/b~c")}, true},
		{"percent-escaped key", `{"properties":{"a b%^":{"contentEncoding":"base64"}}}`, []Step{key("a b%^")}, true},
		{"ref to own $id", `{"$defs":{"img":{"$id":"img.json","contentEncoding":"base64"}},"properties":{"p":{"$ref":"img.json"}}}`, []Step{key("p")}, true},
		{"unevaluatedProperties", `{"properties":{"n":{}},"unevaluatedProperties":{"format":"byte"}}`, []Step{key("x")}, true},
		{"unevaluatedProperties not for declared", `{"properties":{"n":{}},"unevaluatedProperties":{"format":"byte"}}`, []Step{key("n")}, false},
		{"oneOf not followed", `{"properties":{"d":{"oneOf":[{"contentEncoding":"base64"},{"type":"number"}]}}}`, []Step{key("d")}, false},
		{"const object not a subschema", `{"properties":{"d":{"const":{"contentEncoding":"base64"}}}}`, []Step{key("d")}, false},
		{"undeclared member", `{"properties":{"d":{"contentEncoding":"base64"}},"additionalProperties":false}`, []Step{key("e")}, false},
		{"deeper than declared", `{"properties":{"d":{"contentEncoding":"base64"}}}`, []Step{key("d"), key("x")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile([]byte(tc.schema), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.BinaryAt(tc.path, nil); got != tc.want {
				t.Fatalf("BinaryAt = %v, want %v", got, tc.want)
			}
			// A scratch used before for another path gives the same answer.
			sc := &Scratch{}
			s.BinaryAt([]Step{key("zz"), item(0)}, sc)
			if got := s.BinaryAt(tc.path, sc); got != tc.want {
				t.Fatalf("BinaryAt with scratch = %v, want %v", got, tc.want)
			}
			if tc.want && !s.HasBinary() {
				t.Fatal("HasBinary false")
			}
		})
	}
}
