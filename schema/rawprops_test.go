package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// propPool is the member names the object tests draw from: short and
// long names, two names whose signatures are equal (so that no index can
// hash them apart), the empty name, names outside ASCII and names that
// need escapes.
var propPool = func() []string {
	p := []string{"", "a", "b", "ab", "ba", "abcb", "accb", "id", "name", "path", "line", "column",
		"snippet", "score", "é", "aé", "a\"b", "a\\b", "tab\t", "x/y", "longer_member_name_1", "longer_member_name_2",
		"abcdefghXijklmnopqrstuvwxy", "abcdefghYijklmnopqrstuvwxy"}
	for i := range 80 {
		p = append(p, fmt.Sprintf("p%d", i))
	}
	return p
}()

func quoteName(k string) string {
	b, _ := json.Marshal(k)
	return string(b)
}

// TestPropIndex: every declared name is found with its own number, other
// names are not, and a set the signature cannot tell apart gets no index.
func TestPropIndex(t *testing.T) {
	for _, c := range []struct {
		names   []string
		indexed bool
	}{
		{[]string{"a"}, true},
		{[]string{"", "a", "ab", "ba"}, true},
		{[]string{"path", "line", "column", "snippet", "score"}, true},
		{propPool[:64], false}, // the two names differing in byte 8 of 26 share a signature
		{propPool[:22], true},
		{propPool[24:88], true},
		{propPool[24:89], false}, // 65 names
		{[]string{"abcdefghXijklmnopqrstuvwxy", "abcdefghYijklmnopqrstuvwxy"}, false},
		{[]string{"abcdefghijklmnopqXrstuvwxy", "abcdefghijklmnopqYrstuvwxy"}, false},
		{[]string{"abcdefghijklmnopXqrstuvwxy", "abcdefghijklmnopYqrstuvwxy"}, true},
		{[]string{"abcb", "accb", "abc", "abcd"}, true},
	} {
		n := &fnode{props: map[string]*fnode{}, required: []string{c.names[0], "not-declared"}}
		for _, k := range c.names {
			n.props[k] = &fnode{}
		}
		x := newPropIndex(n)
		if (x != nil) != c.indexed {
			t.Fatalf("%d names from %q: indexed %v, want %v", len(c.names), c.names[0], x != nil, c.indexed)
		}
		if x == nil {
			continue
		}
		seen := map[int]bool{}
		for _, k := range c.names {
			i := x.find([]byte(k))
			if i < 0 || x.names[i] != k || x.nodes[i] != n.props[k] || seen[i] || x.findString(k) != i {
				t.Fatalf("find(%q) = %d", k, i)
			}
			seen[i] = true
		}
		for _, k := range append(propPool, "zz", "pathx", "Path", "not-declared") {
			if _, ok := n.props[k]; !ok && (x.find([]byte(k)) >= 0 || x.findString(k) >= 0) {
				t.Fatalf("find(%q) found an undeclared name", k)
			}
		}
		if want := uint64(1) << x.findString(c.names[0]); x.reqMask != want || len(x.reqRest) != 1 || x.reqRest[0] != "not-declared" {
			t.Fatalf("required: mask %b rest %q", x.reqMask, x.reqRest)
		}
	}
}

// TestValidRawMembers: the member loop with and without an index, with
// declared and undeclared names, duplicates of either, required names
// declared or not, and two object schemas at one location.
func TestValidRawMembers(t *testing.T) {
	props := func(names ...string) string {
		var b strings.Builder
		for i, k := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteName(k) + `:{"type":"integer"}`)
		}
		return b.String()
	}
	obj := func(names ...string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%d", quoteName(k), i)
		}
		b.WriteByte('}')
		return b.String()
	}
	many := propPool[24:94] // 70 names: no index
	wide := make([]string, 0, 40)
	for i := range 40 {
		wide = append(wide, fmt.Sprintf("u%d", i))
	}
	for _, c := range []struct {
		name, schema, value string
		want                bool
	}{
		{"declared", `{"properties":{` + props("a", "b") + `}}`, obj("b", "a"), true},
		{"declared duplicate", `{"properties":{` + props("a", "b") + `}}`, obj("a", "b", "a"), false},
		{"declared duplicate, escaped", `{"properties":{` + props("a", "b") + `}}`, `{"a":1,"\u0061":2}`, false},
		{"undeclared, additional true", `{"properties":{` + props("a") + `},"additionalProperties":true}`, obj("a", "x", "y"), true},
		{"undeclared duplicate", `{"properties":{` + props("a") + `},"additionalProperties":true}`, obj("x", "a", "x"), false},
		{"undeclared, beyond rawBase", `{"properties":{` + props("a") + `},"additionalProperties":{"type":"integer"}}`, obj(append([]string{"a"}, wide...)...), true},
		{"undeclared duplicate, beyond rawBase", `{"properties":{` + props("a") + `},"additionalProperties":true}`, obj(append(append([]string{"a"}, wide...), "u3")...), false},
		{"undeclared, not allowed", `{"properties":{` + props("a") + `},"additionalProperties":false}`, obj("a", "x"), false},
		{"undeclared, dropped", `{"properties":{` + props("a") + `}}`, obj("a", "x"), false},
		{"required declared", `{"properties":{` + props("a", "b") + `},"required":["a","b"]}`, obj("a", "b"), true},
		{"required declared, missing", `{"properties":{` + props("a", "b") + `},"required":["a","b"]}`, obj("a"), false},
		{"required undeclared", `{"properties":{` + props("a") + `},"required":["a","r"]}`, obj("a", "r"), true},
		{"required undeclared, missing", `{"properties":{` + props("a") + `},"required":["a","r"]}`, obj("a"), false},
		{"required undeclared, beyond rawBase", `{"properties":{` + props("a") + `},"required":["u39"],"additionalProperties":true}`, obj(append([]string{"a"}, wide...)...), true},
		{"required undeclared, beyond rawBase, missing", `{"properties":{` + props("a") + `},"required":["u40"],"additionalProperties":true}`, obj(append([]string{"a"}, wide...)...), false},
		{"no index, 70 properties", `{"properties":{` + props(many...) + `},"required":["p69"]}`, obj(many...), true},
		{"no index, duplicate", `{"properties":{` + props(many...) + `}}`, obj(append(many, "p3")...), false},
		{"no index, shared signature", `{"properties":{` + props(propPool[22:24]...) + `},"required":["` + propPool[23] + `"]}`, obj(propPool[23], propPool[22]), true},
		{"no index, shared signature, duplicate", `{"properties":{` + props(propPool[22:24]...) + `}}`, obj(propPool[23], propPool[22], propPool[23]), false},
		{"two schemas", `{"properties":{` + props("a", "b") + `},"allOf":[{"properties":{` + props("b", "c") + `},"required":["c","a"]}]}`, obj("a", "b", "c"), true},
		{"two schemas, required of the second", `{"properties":{` + props("a", "b") + `},"allOf":[{"properties":{` + props("b", "c") + `},"required":["c","a"]}]}`, obj("b", "c"), false},
		{"two schemas, duplicate declared by the second", `{"properties":{` + props("a", "b") + `},"allOf":[{"properties":{` + props("b", "c") + `}}]}`, obj("c", "a", "c"), false},
		{"two schemas, additional false in the second", `{"properties":{` + props("a", "b") + `},"allOf":[{"properties":{` + props("b") + `},"additionalProperties":false}]}`, obj("a", "b"), false},
		{"two schemas, required undeclared by both", `{"properties":{` + props("a") + `},"allOf":[{"properties":{` + props("b") + `},"required":["z"]}],"additionalProperties":true}`, obj("a", "b", "z"), true},
		{"two schemas, required undeclared by both, missing", `{"properties":{` + props("a") + `},"allOf":[{"properties":{` + props("b") + `},"required":["z"]}],"additionalProperties":true}`, obj("a", "b"), false},
		{"empty name", `{"properties":{` + props("", "a") + `},"required":[""]}`, obj("a", ""), true},
		{"escaped names", `{"properties":{` + props("a\"b", "é", "tab\t") + `}}`, `{"a\"b":1,"\u00e9":2,"tab\t":3}`, true},
		// Items of a listing: the numbers of one item's members are the
		// guesses for the next's (rawScratch.orders), right or wrong.
		{"items, same order", `{"items":{"properties":{` + props("a", "b", "c") + `},"required":["c"]}}`, `[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3}]`, true},
		{"items, other orders", `{"items":{"properties":{` + props("a", "b", "c") + `},"required":["c"]}}`, `[{"a":1,"b":2,"c":3},{"c":1,"a":2},{"b":1,"c":2,"a":3},{"c":1}]`, true},
		{"items, duplicate after a guess", `{"items":{"properties":{` + props("a", "b", "c") + `}}}`, `[{"a":1,"b":2},{"a":1,"a":2}]`, false},
		{"items, required missing after a guess", `{"items":{"properties":{` + props("a", "b", "c") + `},"required":["c"]}}`, `[{"a":1,"b":2,"c":3},{"a":1,"b":2}]`, false},
		{"items, undeclared after a guess", `{"items":{"properties":{` + props("a", "b") + `}}}`, `[{"a":1,"b":2},{"a":1,"bb":2}]`, false},
		{"items, two schemas by turns", `{"items":{"anyOf":[{}]},"prefixItems":[{"properties":{` + props("a", "b") + `}},{"properties":{` + props("b", "c") + `},"additionalProperties":false}]}`, `[{"a":1,"b":2},{"b":1,"c":2}]`, true},
		{"items, two schemas by turns, undeclared", `{"items":{"anyOf":[{}]},"prefixItems":[{"properties":{` + props("a", "b") + `}},{"properties":{` + props("b", "c") + `},"additionalProperties":false}]}`, `[{"a":1,"b":2},{"b":1,"a":2}]`, false},
		{"nested objects at one depth", `{"properties":{"x":{"properties":{` + props("a", "b") + `}},"y":{"properties":{` + props("b", "c") + `},"additionalProperties":false}}}`, `{"x":{"a":1,"b":2},"y":{"b":1,"c":2}}`, true},
		{"nested objects at one depth, undeclared", `{"properties":{"x":{"properties":{` + props("a", "b") + `}},"y":{"properties":{` + props("b", "c") + `},"additionalProperties":false}}}`, `{"x":{"a":1,"b":2},"y":{"b":1,"a":2}}`, false},
		{"escaped names, duplicate", `{"properties":{` + props("a\"b", "é") + `}}`, `{"é":1,"\u00e9":2}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Compile([]byte(c.schema), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.ValidRaw([]byte(c.value), 64, nil); got != c.want {
				t.Fatalf("ValidRaw = %v, want %v", got, c.want)
			}
			rawAgrees(t, s, c.schema, []byte(c.value), 64)
		})
	}
}

// objectGen builds object schemas and values over propPool from fuzz
// bytes.
type objectGen struct{ g schemaGen }

func (o *objectGen) names(max int) []string {
	n := int(o.g.next()) % (max + 1)
	out := make([]string, 0, n)
	first := int(o.g.next())
	step := 1 + int(o.g.next())%5
	for i := range n {
		k := propPool[(first+i*step)%len(propPool)]
		if c := o.g.next(); c%16 == 15 && len(out) > 0 {
			k = out[int(c>>4)%len(out)] // a name again
		}
		out = append(out, k)
	}
	return out
}

func (o *objectGen) objectSchema(depth int) string {
	var parts []string
	if o.g.next()%4 != 0 {
		var b strings.Builder
		seen := map[string]bool{}
		for _, k := range o.names(70) {
			if seen[k] {
				continue
			}
			seen[k] = true
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteName(k) + ":" + o.member(depth))
		}
		parts = append(parts, `"properties":{`+b.String()+`}`)
	}
	if o.g.next()%2 == 0 {
		req := o.names(4)
		seen := map[string]bool{}
		var q []string
		for _, k := range req {
			if !seen[k] {
				seen[k] = true
				q = append(q, quoteName(k))
			}
		}
		parts = append(parts, `"required":[`+strings.Join(q, ",")+`]`)
	}
	switch o.g.next() % 5 {
	case 0:
		parts = append(parts, `"additionalProperties":false`)
	case 1:
		parts = append(parts, `"additionalProperties":true`)
	case 2:
		parts = append(parts, `"additionalProperties":{"type":"integer"}`)
	}
	if depth == 0 && o.g.next()%3 == 0 {
		parts = append(parts, `"allOf":[`+o.objectSchema(depth+1)+`]`)
	}
	if o.g.next()%5 == 0 {
		parts = append(parts, fmt.Sprintf(`"maxProperties":%d`, o.g.next()%8))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (o *objectGen) member(depth int) string {
	switch o.g.next() % 6 {
	case 0:
		return `{"type":"string"}`
	case 1:
		return `true`
	case 2:
		if depth < 2 {
			return o.objectSchema(depth + 1)
		}
	case 3:
		return `false`
	}
	return `{"type":"integer"}`
}

func (o *objectGen) value(depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.names(40) {
		if i > 0 {
			b.WriteByte(',')
		}
		q := quoteName(k)
		if len(k) > 0 && k[0] >= 'a' && k[0] <= 'z' && o.g.next()%8 == 0 {
			q = fmt.Sprintf(`"\u%04x%s`, k[0], q[2:]) // the same name, escaped
		}
		b.WriteString(q + ":")
		switch o.g.next() % 5 {
		case 0:
			b.WriteString(`"s"`)
		case 1:
			if depth < 2 {
				b.WriteString(o.value(depth + 1))
				continue
			}
			b.WriteString(`1`)
		default:
			fmt.Fprintf(&b, "%d", i)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// FuzzValidRawObjects compares ValidRaw with Decode, Validate and Project
// on object schemas of up to 70 properties over propPool (with and
// without a property index, several schemas at one location through
// allOf) and objects of up to 40 members drawn from the same names,
// duplicates and escaped spellings included.
func FuzzValidRawObjects(f *testing.F) {
	f.Add([]byte{1, 5, 7, 1, 0, 0, 4, 5, 7, 1, 0, 0, 0})
	f.Add([]byte{1, 60, 30, 1, 0, 1, 0, 1, 2, 3, 4, 5, 1, 2, 1, 30, 30, 1})
	f.Add([]byte{1, 70, 24, 1, 4, 4, 4, 0, 3, 10, 24, 2, 1, 40, 24, 1})
	f.Add([]byte{2, 3, 3, 2, 0, 1, 1, 0, 0, 2, 2, 5, 5, 2, 0, 8, 8, 8, 3})
	f.Fuzz(func(t *testing.T, gen []byte) {
		o := &objectGen{g: schemaGen{b: gen}}
		sch := o.objectSchema(0)
		value := o.value(0)
		s := objectSchemas.get(t, sch)
		rawAgrees(t, s, sch, []byte(value), 8)
	})
}

// objectSchemas keeps the schemas FuzzValidRawObjects compiled: most of
// its inputs differ from an earlier one in the value only, and compiling a
// schema of 70 properties is most of an execution's cost.
var objectSchemas = &schemaMemo{m: map[string]*Schema{}}

type schemaMemo struct {
	mu sync.Mutex
	m  map[string]*Schema
}

func (c *schemaMemo) get(t *testing.T, text string) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[text]; ok {
		return s
	}
	s, err := Compile([]byte(text), Limits{})
	if err != nil {
		t.Fatalf("compile %s: %v", text, err)
	}
	if len(c.m) >= 512 {
		clear(c.m)
	}
	c.m[text] = s
	return s
}
