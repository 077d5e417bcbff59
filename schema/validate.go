package schema

import (
	"errors"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// KeywordEvaluationLimit is the Violation keyword of a value whose
// validation exceeded Limits.MaxEvaluations (fail closed).
const KeywordEvaluationLimit = "evaluationLimit"

// Violation says where a value fails its schema. It never holds the value:
// only keyword names, JSON pointers and, for keywords about member names,
// the member concerned.
type Violation struct {
	// Keyword is the failing keyword: "required", "type",
	// "additionalProperties", "enum", "pattern", "anyOf", "false" (a false
	// schema, e.g. a property declared as false), ...
	Keyword string
	// InstancePointer is the RFC 6901 JSON pointer of the failing value
	// ("" for the root).
	InstancePointer string
	// SchemaPointer is the JSON pointer of the failing keyword inside the
	// schema ("#/properties/a/type"); for a keyword inside an embedded
	// resource with its own $id, that resource's URI comes first.
	SchemaPointer string
	// Property is, for "required" and "dependentRequired", the first
	// missing member and, for "additionalProperties", the first member not
	// allowed; empty otherwise. It is a member name, never a value.
	Property string
}

// Validate validates v (a value from Decode, or any value of the same
// representation) and returns nil when it is valid, or the most specific
// violation: the failing keyword on the deepest instance location, where a
// failing anyOf or oneOf whose branches all fail at the same location is
// reported as itself rather than as one of its branches.
func (s *Schema) Validate(v any) *Violation {
	if s.fast != nil {
		switch s.fast.validate(v, s.budget) {
		case fastValid:
			return nil
		case fastBudget:
			return &Violation{Keyword: KeywordEvaluationLimit, SchemaPointer: "#"}
		}
	}
	err := s.libValidate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Violation{Keyword: "invalid", SchemaPointer: "#"}
	}
	leaf := deepest(ve)
	return violationOf(leaf)
}

// Valid reports whether v is valid, without building a Violation.
func (s *Schema) Valid(v any) bool {
	if s.fast != nil {
		switch s.fast.validate(v, s.budget) {
		case fastValid:
			return true
		case fastBudget:
			return false
		}
	}
	return s.libValidate(v) == nil
}

// errValidatorFault stands for a panic in the library's validator.
var errValidatorFault = errors.New("schema: validator fault")

// libValidate runs the library's validator. A panic in it (it has had
// them on number literals math/big cannot parse; Decode refuses those now)
// is errValidatorFault: the value counts as invalid (Validate reports the
// keyword "invalid"), so validation fails closed.
func (s *Schema) libValidate(v any) (err error) {
	defer func() {
		if recover() != nil {
			err = errValidatorFault
		}
	}()
	return s.s.Validate(v)
}

// Fast reports whether the schema has a fast path (fast.go): its valid
// values are recognized without the library.
func (s *Schema) Fast() bool { return s.fast != nil }

// deepest returns the most specific error of the tree rooted at e.
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return e
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		best := deepest(e.Causes[0])
		for _, c := range e.Causes[1:] {
			if d := deepest(c); len(d.InstanceLocation) > len(best.InstanceLocation) {
				best = d
			}
		}
		if len(best.InstanceLocation) <= len(e.InstanceLocation) {
			return e
		}
		return best
	}
	best := deepest(e.Causes[0])
	for _, c := range e.Causes[1:] {
		if d := deepest(c); len(d.InstanceLocation) > len(best.InstanceLocation) {
			best = d
		}
	}
	return best
}

func violationOf(e *jsonschema.ValidationError) *Violation {
	v := &Violation{InstancePointer: pointer(e.InstanceLocation)}
	path := e.ErrorKind.KeywordPath()
	base := schemaPointer(e.SchemaURL)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) > 0 {
			v.Property = k.Missing[0]
		}
	case *kind.DependentRequired:
		if len(k.Missing) > 0 {
			v.Property = k.Missing[0]
		}
		v.Keyword = "dependentRequired"
	case *kind.Dependency:
		if len(k.Missing) > 0 {
			v.Property = k.Missing[0]
		}
		v.Keyword = "dependencies"
	case *kind.AdditionalProperties:
		if len(k.Properties) > 0 {
			v.Property = k.Properties[0]
		}
	case *kind.FalseSchema:
		v.Keyword = "false"
	case *kind.Not:
		v.Keyword = "not"
	case *kind.RefCycle:
		v.Keyword = "$ref"
	}
	if v.Keyword == "" {
		if len(path) > 0 {
			v.Keyword = path[len(path)-1]
		} else {
			v.Keyword = "invalid"
		}
	}
	if len(path) > 0 && v.Keyword != "not" {
		base = strings.TrimSuffix(base, "/") + pointer(path)
	}
	v.SchemaPointer = base
	return v
}

// schemaPointer turns an absolute schema location into "#/..." when it is
// inside the root document.
func schemaPointer(loc string) string {
	if rest, ok := strings.CutPrefix(loc, rootURL); ok {
		if rest == "" {
			return "#"
		}
		return rest
	}
	return loc
}

// pointer builds an RFC 6901 JSON pointer from tokens.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// appendIndex appends an array index token to a pointer.
func appendIndex(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

// appendKey appends an object member token to a pointer.
func appendKey(ptr, k string) string { return ptr + "/" + escapeToken(k) }
