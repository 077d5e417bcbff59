package policyset

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// Change is one field that differs between two policies: its JSON pointer
// and its values (JSON text; "" where the field is absent).
type Change struct {
	Pointer string `json:"pointer"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
}

// Diff lists the fields that differ between two policies with their
// defaults filled (so a field set to its default is no change), sorted by
// pointer. Objects are compared member by member; arrays and scalars as
// wholes. The version is compared like any field.
func Diff(a, b *pipeline.Policy) ([]Change, error) {
	fa, err := flatten(a)
	if err != nil {
		return nil, err
	}
	fb, err := flatten(b)
	if err != nil {
		return nil, err
	}
	var out []Change
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || vb != va {
			out = append(out, Change{Pointer: k, Old: va, New: fb[k]})
		}
	}
	for k, vb := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, Change{Pointer: k, New: vb})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Pointer, y.Pointer) })
	return out, nil
}

// flatten returns the leaves of a policy's JSON (defaults filled) by JSON
// pointer, each value in its RFC 8785 form.
func flatten(p *pipeline.Policy) (map[string]string, error) {
	cp := *p
	if err := cp.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, err
	}
	v, err := jcs.Parse(b, maxDepth)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(ptr string, v any) error
	walk = func(ptr string, v any) error {
		if m, ok := v.(map[string]any); ok {
			// An empty object has no leaves: {} and an absent member
			// are the same policy.
			for k, c := range m {
				if err := walk(ptr+"/"+escapePointer(k), c); err != nil {
					return err
				}
			}
			return nil
		}
		t, err := jcs.Append(nil, v)
		if err != nil {
			return err
		}
		out[ptr] = string(t)
		return nil
	}
	return out, walk("", v)
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
