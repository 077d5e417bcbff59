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
//
// sc, when not nil, holds the buffers of the walk between calls (a caller
// that asks for many strings allocates nothing once they have grown); it
// is not safe for concurrent use.
func (s *Schema) BinaryAt(path []Step, sc *Scratch) bool {
	if len(s.binary) == 0 {
		return false
	}
	if sc == nil {
		sc = &Scratch{}
	}
	sc.cur = closeStatic(sc.cur[:0], s.s)
	for _, st := range path {
		sc.subs = sc.subs[:0]
		if st.Item {
			sc.subs = itemSchemas(sc.cur, st.Index, sc.subs)
		} else {
			_, sc.subs = memberSchemas(sc.cur, nil, st.Key, sc.subs)
		}
		if len(sc.subs) == 0 {
			return false
		}
		sc.cur = sc.cur[:0]
		for _, x := range sc.subs {
			sc.cur = closeStatic(sc.cur, x)
		}
	}
	for _, sub := range sc.cur {
		if s.binary[unescapeLocation(sub.Location)] {
			return true
		}
	}
	return false
}

// Scratch holds the buffers of BinaryAt and ValidRaw.
type Scratch struct {
	cur, subs []*jsonschema.Schema
	raw       rawScratch
}

// closeStatic appends x and what it reaches through $ref, $dynamicRef,
// $recursiveRef and allOf to out, each schema once.
func closeStatic(out []*jsonschema.Schema, x *jsonschema.Schema) []*jsonschema.Schema {
	if x == nil {
		return out
	}
	for _, y := range out {
		if y == x {
			return out
		}
	}
	out = append(out, x)
	out = closeStatic(out, x.Ref)
	out = closeStatic(out, x.RecursiveRef)
	if x.DynamicRef != nil {
		out = closeStatic(out, x.DynamicRef.Ref)
	}
	for _, a := range x.AllOf {
		out = closeStatic(out, a)
	}
	return out
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
