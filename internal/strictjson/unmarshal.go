package strictjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Unmarshal decodes one strict I-JSON value into v (a non-nil pointer) with
// exact member names: data must pass Decode (UTF-8 only, no duplicate
// member names, no lone surrogates, numbers within a double, no trailing
// data, at most maxDepth nesting), and every member of an object decoded
// into a struct must be spelled exactly as one of the struct's JSON names
// (no other letter case, no unknown member). Objects decoded into maps,
// json.RawMessage, []byte and types with their own UnmarshalJSON or
// UnmarshalText are not checked for names beyond Decode's rules. Then
// encoding/json fills v; a value of the wrong type for its field is a
// Type error.
//
// The error, if any, is an *Error and carries no part of the input.
func Unmarshal(data []byte, maxDepth int, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Reason: Syntax, Offset: -1}
	}
	doc, err := Decode(data, maxDepth)
	if err != nil {
		return err
	}
	if !exactMembers(doc, rv.Type().Elem()) {
		return &Error{Reason: UnknownMember, Offset: -1}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &Error{Reason: Type, Offset: -1}
	}
	return nil
}

// Reasons of Unmarshal, beyond those of Decode.
const (
	UnknownMember Reason = Depth + 1 + iota // a member name that is not exactly one of the target struct's
	Type                                    // a value of the wrong type for its target
)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	byteSlice       = reflect.TypeFor[[]byte]()
)

// exactMembers reports whether every object that doc holds where t has a
// struct uses only t's exact member names, recursively.
func exactMembers(doc any, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if doc == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return true // a type mismatch, which encoding/json reports
		}
		fields := structFields(t)
		for k, v := range m {
			ft, ok := fields[k]
			if !ok || !exactMembers(v, ft) {
				return false
			}
		}
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return true
		}
		for _, v := range m {
			if !exactMembers(v, t.Elem()) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if t == byteSlice {
			return true
		}
		a, ok := doc.([]any)
		if !ok {
			return true
		}
		for _, v := range a {
			if !exactMembers(v, t.Elem()) {
				return false
			}
		}
	case reflect.Interface:
		return true // any value is accepted as it is
	}
	return true
}

// fieldCache holds the JSON member names of each struct type seen, with
// the type of the field each names.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// structFields returns the exact JSON member names of struct type t as
// encoding/json names them: the tag name, or the Go name without one;
// unexported fields and fields tagged "-" have none; the fields of an
// embedded struct without a tag name are promoted (a name at a shallower
// depth wins, as in encoding/json; names two embedded structs share at
// one depth are dropped).
func structFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	depthOf := map[string]int{}
	ambiguous := map[string]bool{}
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				et := sf.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1, seen)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			switch d, ok := depthOf[name]; {
			case !ok || depth < d:
				out[name], depthOf[name] = sf.Type, depth
				delete(ambiguous, name)
			case depth == d:
				ambiguous[name] = true
			}
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	for name := range ambiguous {
		delete(out, name)
	}
	fieldCache.Store(t, out)
	return out
}
