package schema

import (
	"sort"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Project returns v without the object members the schema does not declare,
// and the JSON pointers of the members it dropped (in document order, keys
// sorted). It never adds or changes data: the result is v with members
// removed, and v itself is not modified (containers are copied only where
// something below them was dropped).
//
// The rules, applied at every location of the value:
//
//  1. The schemas that apply at a location are the schema of that location
//     and, transitively, what it reaches through $ref, $dynamicRef (its
//     static target) and $recursiveRef, allOf, dependentSchemas (for
//     members present), if (when v is valid against it) with then, else
//     (when it is not), and the anyOf and oneOf branches v is valid against
//     — or every branch when v is valid against none (the union is the
//     conservative choice: a member any plausible branch declares is kept).
//     "not" declares nothing.
//  2. An object is projected only where some applicable schema speaks about
//     members: properties, patternProperties, additionalProperties,
//     unevaluatedProperties, required, dependentRequired or
//     dependentSchemas. Where none does ({}, true, {"type":"object"}, or no
//     schema at all, such as an array item without items), the object is
//     free-form by declaration and kept whole.
//  3. A member is declared when an applicable schema lists it in properties,
//     matches it with a patternProperties pattern, admits it through
//     additionalProperties (true or a schema; false admits nothing),
//     names it in required, dependentRequired or dependentSchemas, or —
//     when nothing else declares it — admits it through
//     unevaluatedProperties (true or a schema). Undeclared members are
//     dropped; declared ones are projected with the union of the schemas
//     that declared them.
//  4. Array items are kept (removing one would shift the others) and
//     projected with prefixItems[i], items (or, before 2020-12, items[i]
//     and additionalItems) and, when none applies, unevaluatedItems.
//
// A value valid before projection stays valid after it for schemas that do
// not use minProperties, not, const or enum over objects, uniqueItems,
// contains, oneOf or if/then/else (removing members can change the outcome
// of those); callers validate the projected value again and fail closed on a
// mismatch.
func (s *Schema) Project(v any) (projected any, dropped []string) {
	p := projector{s: s}
	out, _ := p.project(v, []*jsonschema.Schema{s.s})
	return out, p.dropped
}

// Undeclared returns the JSON pointers of the members of v that Project
// would drop and, when v is an object whose root the schema says nothing
// about members of, every member of v: a tool's arguments are named
// parameters, so where no parameter is declared every argument is unknown,
// while nested free-form objects keep rule 2 of Project.
func (s *Schema) Undeclared(v any) []string {
	p := projector{s: s, strictRoot: true}
	p.project(v, []*jsonschema.Schema{s.s})
	return p.dropped
}

type projector struct {
	s          *Schema
	dropped    []string
	strictRoot bool
	// path is the JSON pointer of the location being projected, built in
	// place (a string is made only for a member that is dropped).
	path []byte
	// keys holds the sorted member names of the objects being projected,
	// one run per open object.
	keys []string
}

// project returns the projection of v under the schemas roots and whether
// it differs from v.
func (p *projector) project(v any, roots []*jsonschema.Schema) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if len(roots) == 0 {
			return v, false
		}
		return p.object(x, p.expand(x, roots))
	case []any:
		if len(roots) == 0 {
			return v, false
		}
		return p.array(x, p.expand(x, roots))
	}
	return v, false
}

func (p *projector) object(obj map[string]any, S []*jsonschema.Schema) (any, bool) {
	speaks := p.strictRoot && len(p.path) == 0
	for _, s := range S {
		if speaksAboutMembers(s) {
			speaks = true
			break
		}
	}
	if !speaks {
		return obj, false
	}
	base := len(p.keys)
	for k := range obj {
		p.keys = append(p.keys, k)
	}
	sort.Strings(p.keys[base:])
	end := len(p.keys)
	plen := len(p.path)
	// out stays nil until a member is dropped or changed; the members
	// before it were kept as they are.
	var out map[string]any
	var subs []*jsonschema.Schema
	for i := base; i < end; i++ {
		k := p.keys[i]
		var declared bool
		declared, subs = memberSchemas(S, obj, k, subs[:0])
		p.path = appendKeyBytes(p.path[:plen], k)
		if !declared {
			p.dropped = append(p.dropped, string(p.path))
			if out == nil {
				out = p.keptBefore(obj, base, i)
			}
			continue
		}
		cv, ch := p.project(obj[k], subs)
		if ch && out == nil {
			out = p.keptBefore(obj, base, i)
		}
		if out != nil {
			out[k] = cv
		}
	}
	p.path = p.path[:plen]
	p.keys = p.keys[:base]
	if out == nil {
		return obj, false
	}
	return out, true
}

// keptBefore returns a new object holding the members of obj named by
// p.keys[base:i], which were all kept unchanged.
func (p *projector) keptBefore(obj map[string]any, base, i int) map[string]any {
	out := make(map[string]any, len(obj))
	for _, k := range p.keys[base:i] {
		out[k] = obj[k]
	}
	return out
}

func (p *projector) array(arr []any, S []*jsonschema.Schema) (any, bool) {
	var out []any
	var subs []*jsonschema.Schema
	plen := len(p.path)
	for i, item := range arr {
		subs = itemSchemas(S, i, subs[:0])
		p.path = strconv.AppendInt(append(p.path[:plen], '/'), int64(i), 10)
		cv, ch := p.project(item, subs)
		if ch && out == nil {
			out = make([]any, len(arr))
			copy(out, arr)
		}
		if out != nil {
			out[i] = cv
		}
	}
	p.path = p.path[:plen]
	if out == nil {
		return arr, false
	}
	return out, true
}

// appendKeyBytes appends an object member token to a pointer.
func appendKeyBytes(ptr []byte, k string) []byte {
	ptr = append(ptr, '/')
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			ptr = append(ptr, '~', '0')
		case '/':
			ptr = append(ptr, '~', '1')
		default:
			ptr = append(ptr, k[i])
		}
	}
	return ptr
}

// expand returns the schemas that apply at the location of v (rule 1).
func (p *projector) expand(v any, roots []*jsonschema.Schema) []*jsonschema.Schema {
	e := expansion{p: p, v: v}
	e.obj, e.isObj = v.(map[string]any)
	for _, r := range roots {
		e.add(r)
	}
	return e.out
}

// expansion collects the schemas that apply at one location.
type expansion struct {
	p     *projector
	v     any
	obj   map[string]any
	isObj bool
	out   []*jsonschema.Schema
	seen  map[*jsonschema.Schema]bool // once out is long; before, out is searched
}

// maxLinearSeen is the length of out up to which it is searched instead of
// a set (most locations have a few applicable schemas).
const maxLinearSeen = 16

func (e *expansion) has(s *jsonschema.Schema) bool {
	if e.seen != nil {
		return e.seen[s]
	}
	for _, x := range e.out {
		if x == s {
			return true
		}
	}
	return false
}

func (e *expansion) add(s *jsonschema.Schema) {
	if s == nil || e.has(s) {
		return
	}
	e.out = append(e.out, s)
	if e.seen != nil {
		e.seen[s] = true
	} else if len(e.out) > maxLinearSeen {
		e.seen = make(map[*jsonschema.Schema]bool, 2*len(e.out))
		for _, x := range e.out {
			e.seen[x] = true
		}
	}
	e.add(s.Ref)
	e.add(s.RecursiveRef)
	if s.DynamicRef != nil {
		e.add(s.DynamicRef.Ref)
	}
	for _, a := range s.AllOf {
		e.add(a)
	}
	e.p.addMatching(s.AnyOf, e.v, e.add)
	e.p.addMatching(s.OneOf, e.v, e.add)
	if s.If != nil {
		if e.p.s.matches(s.If, e.v) {
			e.add(s.If)
			e.add(s.Then)
		} else {
			e.add(s.Else)
		}
	}
	if e.isObj {
		for k, ds := range s.DependentSchemas {
			if _, ok := e.obj[k]; ok {
				e.add(ds)
			}
		}
		for k, d := range s.Dependencies {
			if ds, ok := d.(*jsonschema.Schema); ok {
				if _, ok := e.obj[k]; ok {
					e.add(ds)
				}
			}
		}
	}
}

func (p *projector) addMatching(branches []*jsonschema.Schema, v any, add func(*jsonschema.Schema)) {
	if len(branches) == 0 {
		return
	}
	matched := false
	for _, b := range branches {
		if p.s.matches(b, v) {
			add(b)
			matched = true
		}
	}
	if !matched {
		for _, b := range branches {
			add(b)
		}
	}
}

// speaksAboutMembers reports whether s says anything about object members
// (rule 2).
func speaksAboutMembers(s *jsonschema.Schema) bool {
	return s.Properties != nil || len(s.PatternProperties) > 0 || s.AdditionalProperties != nil ||
		s.UnevaluatedProperties != nil || len(s.Required) > 0 || len(s.DependentRequired) > 0 ||
		len(s.DependentSchemas) > 0 || len(s.Dependencies) > 0
}

// memberSchemas reports whether member k of obj is declared by S and
// appends the schemas that declare it (rule 3).
func memberSchemas(S []*jsonschema.Schema, obj map[string]any, k string, subs []*jsonschema.Schema) (bool, []*jsonschema.Schema) {
	declared := false
	for _, s := range S {
		named := false
		if ps, ok := s.Properties[k]; ok {
			subs = append(subs, ps)
			named = true
		}
		for re, ps := range s.PatternProperties {
			if re.MatchString(k) {
				subs = append(subs, ps)
				named = true
			}
		}
		if !named {
			switch ap := s.AdditionalProperties.(type) {
			case bool:
				named = ap
			case *jsonschema.Schema:
				if ap.Bool == nil || *ap.Bool {
					subs = append(subs, ap)
					named = true
				}
			}
		}
		if !named && namedByDependencies(s, obj, k) {
			named = true
		}
		if named {
			declared = true
		}
	}
	if declared {
		return true, subs
	}
	for _, s := range S {
		if u := s.UnevaluatedProperties; u != nil && (u.Bool == nil || *u.Bool) {
			subs = append(subs, u)
			declared = true
		}
	}
	return declared, subs
}

// namedByDependencies reports whether s names k in required,
// dependentRequired (as trigger, or as a dependency of a present trigger)
// or dependentSchemas.
func namedByDependencies(s *jsonschema.Schema, obj map[string]any, k string) bool {
	for _, r := range s.Required {
		if r == k {
			return true
		}
	}
	if _, ok := s.DependentRequired[k]; ok {
		return true
	}
	if _, ok := s.DependentSchemas[k]; ok {
		return true
	}
	if _, ok := s.Dependencies[k]; ok {
		return true
	}
	for trigger, deps := range s.DependentRequired {
		if _, ok := obj[trigger]; !ok {
			continue
		}
		for _, d := range deps {
			if d == k {
				return true
			}
		}
	}
	for trigger, d := range s.Dependencies {
		deps, ok := d.([]string)
		if _, present := obj[trigger]; !ok || !present {
			continue
		}
		for _, dk := range deps {
			if dk == k {
				return true
			}
		}
	}
	return false
}

// itemSchemas appends the schemas that apply to item i of an array (rule 4).
func itemSchemas(S []*jsonschema.Schema, i int, subs []*jsonschema.Schema) []*jsonschema.Schema {
	n := len(subs)
	for _, s := range S {
		switch {
		case i < len(s.PrefixItems):
			subs = append(subs, s.PrefixItems[i])
		case s.Items2020 != nil:
			subs = append(subs, s.Items2020)
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			subs = append(subs, it)
		case []*jsonschema.Schema:
			if i < len(it) {
				subs = append(subs, it[i])
			} else if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				subs = append(subs, ai)
			}
		}
	}
	if len(subs) == n {
		for _, s := range S {
			if s.UnevaluatedItems != nil {
				subs = append(subs, s.UnevaluatedItems)
			}
		}
	}
	return subs
}
