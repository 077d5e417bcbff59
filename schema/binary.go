package schema

import (
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// This file answers whether a location of an instance is declared binary:
// a string the schema says holds base64 data ("contentEncoding": "base64",
// JSON Schema 2020-12 §8.3, or "format": "byte", the OpenAPI name for the
// same). The pipeline bounds such strings as binary data, not as text.
//
// The compiler keeps neither keyword unless it asserts them, so the schema
// text is read once at compile time for the locations of the subschemas
// that carry one; a location is matched through the compiled subschema's
// Location (its fragment unescaped; a subschema with its own $id too, since
// the compiler reports locations in the schema document).

// Step is one step of a location inside an instance: the member Key of an
// object, or, when Item is set, the array item Index.
type Step struct {
	Key   string
	Index int
	Item  bool
}

// HasBinary reports whether any subschema declares base64 content; when it
// is false, BinaryAt is false everywhere.
func (s *Schema) HasBinary() bool { return len(s.binary) > 0 }

// BinaryAt reports whether a string at path (from the instance root) is
// declared base64 by a schema that applies there. The schemas that apply
// are found statically, without the value: from the root, through
// properties, patternProperties, additionalProperties,
// unevaluatedProperties (for a member nothing else declares), prefixItems,
// items (and the pre-2020 items forms, additionalItems), unevaluatedItems
// when no item schema applies, and at every location $ref, $dynamicRef (its
// static target), $recursiveRef and allOf. Branches that depend on the
// value (anyOf, oneOf, if/then/else, dependentSchemas, not) are not
// followed: a declaration only inside one of them is not seen.
func (s *Schema) BinaryAt(path []Step) bool {
	if len(s.binary) == 0 {
		return false
	}
	S := closeStatic([]*jsonschema.Schema{s.s}, nil)
	var subs []*jsonschema.Schema
	for _, st := range path {
		subs = subs[:0]
		if st.Item {
			subs = itemSchemas(S, st.Index, subs)
		} else {
			_, subs = memberSchemas(S, nil, st.Key, subs)
		}
		if len(subs) == 0 {
			return false
		}
		S = closeStatic(subs, nil)
	}
	for _, sub := range S {
		if s.binary[unescapeLocation(sub.Location)] {
			return true
		}
	}
	return false
}

// unescapeLocation undoes the percent-escaping the compiler applies to the
// fragment of a Location, so it compares with the JSON pointers of the
// schema text.
func unescapeLocation(loc string) string {
	if strings.IndexByte(loc, '%') < 0 {
		return loc
	}
	i := strings.IndexByte(loc, '#')
	if i < 0 {
		return loc
	}
	frag, err := url.PathUnescape(loc[i+1:])
	if err != nil {
		return loc
	}
	return loc[:i+1] + frag
}

// closeStatic appends to out the schemas of in and what they reach through
// $ref, $dynamicRef, $recursiveRef and allOf, each once.
func closeStatic(in, out []*jsonschema.Schema) []*jsonschema.Schema {
	var add func(x *jsonschema.Schema)
	add = func(x *jsonschema.Schema) {
		if x == nil {
			return
		}
		for _, y := range out {
			if y == x {
				return
			}
		}
		out = append(out, x)
		add(x.Ref)
		add(x.RecursiveRef)
		if x.DynamicRef != nil {
			add(x.DynamicRef.Ref)
		}
		for _, a := range x.AllOf {
			add(a)
		}
	}
	for _, x := range in {
		add(x)
	}
	return out
}

// binaryLocations returns the Locations (rootURL#pointer) of the objects in
// the schema document that declare base64 content. Objects that are not
// subschemas (inside const, enum, default, examples) are listed too but no
// compiled subschema has their location, so they never match.
func binaryLocations(doc any) map[string]bool {
	var m map[string]bool
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			if declaresBinary(x) {
				if m == nil {
					m = map[string]bool{}
				}
				m[rootURL+"#"+ptr] = true
			}
			for k, e := range x {
				walk(e, appendKey(ptr, k))
			}
		case []any:
			for i, e := range x {
				walk(e, appendIndex(ptr, i))
			}
		}
	}
	walk(doc, "")
	return m
}

func declaresBinary(obj map[string]any) bool {
	if ce, ok := obj["contentEncoding"].(string); ok && strings.EqualFold(ce, "base64") {
		return true
	}
	f, ok := obj["format"].(string)
	return ok && f == "byte"
}
