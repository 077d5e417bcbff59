package schema

import (
	"fmt"
	"strings"
	"testing"
)

// rawAgrees checks ValidRaw against Decode, Validate and Project on one
// schema and text: a true answer must be theirs; and for a schema whose
// every keyword the walk handles, a value they accept with the fast path
// and leave whole must be answered true (the walk is not merely cautious).
func rawAgrees(t *testing.T, s *Schema, schemaText string, data []byte, depth int) {
	t.Helper()
	var sc Scratch
	got := s.ValidRaw(data, depth, &sc)
	v, err := Decode(data, depth)
	if got {
		if err != nil {
			t.Fatalf("ValidRaw true, Decode refuses (%v): schema %s value %q", err, schemaText, data)
		}
		if viol := s.Validate(v); viol != nil {
			t.Fatalf("ValidRaw true, Validate says %+v: schema %s value %q", viol, schemaText, data)
		}
		if _, dropped := s.Project(v); len(dropped) > 0 {
			t.Fatalf("ValidRaw true, Project drops %q: schema %s value %q", dropped, schemaText, data)
		}
		// The scratch is reused: a second answer is the same.
		if !s.ValidRaw(data, depth, &sc) {
			t.Fatalf("ValidRaw changed its answer on reuse: schema %s value %q", schemaText, data)
		}
		return
	}
	if err != nil || s.fast == nil {
		return
	}
	for _, n := range s.nodes {
		if n.noRaw {
			return
		}
	}
	if s.fast.validate(v, s.budget) != fastValid {
		return
	}
	if _, dropped := s.Project(v); len(dropped) > 0 {
		return
	}
	t.Fatalf("ValidRaw false on a handled schema for a valid value Project keeps: schema %s value %q", schemaText, data)
}

// FuzzValidRaw compares ValidRaw with Decode, Validate and Project on
// generated schemas over every keyword of the fast path (fastSchema).
func FuzzValidRaw(f *testing.F) {
	f.Add([]byte{3, 4, 0, 0, 21, 5, 16}, []byte(`{"a":1,"b":[1,1]}`))
	f.Add([]byte{2, 4, 13, 0, 7, 1}, []byte(`{"a":[1,2],"b":{"a":"x"}}`))
	f.Add([]byte{2, 29, 0, 4}, []byte(`{"a":{"a":{}}}`))
	f.Add([]byte{4, 14, 0, 3, 13, 1, 2, 16}, []byte(`[1,"a",1.0,{"a":1}]`))
	f.Add([]byte{3, 21, 4, 24, 9, 1}, []byte(`-2.250`))
	f.Add([]byte{2, 6, 0, 2}, []byte(`{"a":1,"a":2}`))
	f.Add([]byte{2, 3, 3, 3}, []byte(`"\ud800"`))
	f.Fuzz(func(t *testing.T, gen, rawValue []byte) {
		g := &schemaGen{b: gen}
		raw := g.fastSchema(0)
		s, err := Compile([]byte(raw), Limits{})
		if err != nil {
			return
		}
		rawAgrees(t, s, raw, rawValue, 6)
	})
}

// listingSchema is the shape of a typical structured result: a listing of
// small objects of short strings and numbers.
const listingSchema = `{"type":"object","properties":{"query":{"type":"string"},"total":{"type":"integer","minimum":0},` +
	`"matches":{"type":"array","items":{"$ref":"#/$defs/match"}},"truncated":{"type":"boolean"}},"required":["query","matches"],` +
	`"$defs":{"match":{"type":"object","properties":{"path":{"type":"string","minLength":1},"line":{"type":"integer"},` +
	`"kind":{"enum":["file","dir",null]},"score":{"type":"number","maximum":1}},"required":["path","line"],"additionalProperties":false}}}`

func TestValidRaw(t *testing.T) {
	s, err := Compile([]byte(listingSchema), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	many := `{"query":"q","matches":[`
	for i := range 40 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`{"path":"p%d","line":%d,"score":0.%d}`, i, i, i)
	}
	many += `]}`
	wide := `{"query":"q","matches":[]`
	for i := range 40 {
		wide += fmt.Sprintf(`,"x%d":%d`, i, i)
	}
	wide += `}`
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"listing", `{"query":"a\"b","total":2,"matches":[{"path":"src/a.go","line":3,"kind":"file","score":0.5},{"path":"\u00e9","line":1e0}],"truncated":false}`, true},
		{"whitespace", " {\n \"query\" : \"q\" ,\"matches\" : [ ] } \n", true},
		{"many items", many, true},
		{"member not declared (Project drops it)", `{"query":"q","matches":[],"extra":1}`, false},
		{"wide object, members not declared", wide, false},
		{"required missing", `{"query":"q"}`, false},
		{"wrong type", `{"query":1,"matches":[]}`, false},
		{"additionalProperties false", `{"query":"q","matches":[{"path":"a","line":1,"x":1}]}`, false},
		{"minimum", `{"query":"q","total":-1,"matches":[]}`, false},
		{"maximum", `{"query":"q","matches":[{"path":"a","line":1,"score":1.5}]}`, false},
		{"integer written 1.0", `{"query":"q","total":1.0,"matches":[]}`, true},
		{"not an integer", `{"query":"q","total":1.5,"matches":[]}`, false},
		{"enum", `{"query":"q","matches":[{"path":"a","line":1,"kind":"link"}]}`, false},
		{"enum null", `{"query":"q","matches":[{"path":"a","line":1,"kind":null}]}`, true},
		{"minLength counts runes", `{"query":"q","matches":[{"path":"","line":1}]}`, false},
		{"duplicate member", `{"query":"q","query":"r","matches":[]}`, false},
		{"duplicate member, escaped", `{"query":"q","quer\u0079":"r","matches":[]}`, false},
		{"invalid UTF-8", "{\"query\":\"\xff\",\"matches\":[]}", false},
		{"lone surrogate", `{"query":"\ud800","matches":[]}`, false},
		{"number out of range", `{"query":"q","total":1e400,"matches":[]}`, false},
		{"trailing data", `{"query":"q","matches":[]} x`, false},
		{"syntax", `{"query":"q","matches":[,]}`, false},
		{"empty", ``, false},
		{"too deep", `{"query":"q","matches":[],"truncated":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := s.ValidRaw([]byte(c.value), 64, nil); got != c.want {
				t.Fatalf("ValidRaw = %v, want %v", got, c.want)
			}
			rawAgrees(t, s, listingSchema, []byte(c.value), 64)
		})
	}
}

// TestValidRawUnhandled: a schema with a keyword the walk does not handle
// is never answered true, and a schema without a fast path neither.
func TestValidRawUnhandled(t *testing.T) {
	for _, sch := range []string{
		`{"anyOf":[{"type":"object"},{"type":"string"}]}`,
		`{"type":"object","patternProperties":{"^a":{}}}`,
		`{"type":"array","uniqueItems":true}`,
		`{"const":{"a":1}}`,
		`{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`,
	} {
		s, err := Compile([]byte(sch), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{`{"a":1}`, `"s"`, `[1,2]`} {
			if s.ValidRaw([]byte(v), 64, nil) {
				vv, _ := Decode([]byte(v), 64)
				if s.Validate(vv) == nil {
					// Allowed only where no location reaches the keyword.
					rawAgrees(t, s, sch, []byte(v), 64)
				}
			}
		}
	}
}

func BenchmarkValidRaw(b *testing.B) {
	s, err := Compile([]byte(listingSchema), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	doc := `{"query":"q","total":200,"matches":[`
	for i := range 200 {
		if i > 0 {
			doc += ","
		}
		doc += fmt.Sprintf(`{"path":"src/pkg/file%d.go","line":%d,"kind":"file","score":0.%d}`, i, i*7, i%10)
	}
	doc += `],"truncated":false}`
	data := []byte(doc)
	b.Run("raw", func(b *testing.B) {
		var sc Scratch
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			if !s.ValidRaw(data, 64, &sc) {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			v, err := Decode(data, 64)
			if err != nil || s.Validate(v) != nil {
				b.Fatal("not valid")
			}
			if _, d := s.Project(v); len(d) > 0 {
				b.Fatal("dropped")
			}
		}
	})
}
