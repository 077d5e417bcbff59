package pipeline_test

import (
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// The reference's model of secrets across _meta members (metajoin.go):
// in each object and array of a held _meta, each two consecutive string
// values, left to right, are read as one text (the first's sanitized value,
// then the second's); the first match that crosses the point where they
// meet is replaced by its marker at the end of the first and removed from
// the second. The objects of a held _meta are read in order (refHeld) and
// turned into maps here, once joined.

// metaJoin joins the adjacent string values of a held _meta and returns it
// with its nested objects as maps.
func (r *reference) metaJoin(h refHeld) refHeld {
	on := true
	if v, ok := r.pol.Limits[pipeline.BlockJoinBytesLimit]; ok && v == 0 {
		on = false
	}
	out := make(refHeld, len(h))
	copy(out, h)
	if on {
		for i := 1; i < len(out); i++ {
			a, aok := out[i-1].v.(string)
			b, bok := out[i].v.(string)
			if aok && bok {
				out[i-1].v, out[i].v = r.metaPair(a, b)
			}
		}
	}
	for i := range out {
		out[i].v = r.metaValue(out[i].v, on)
	}
	return out
}

// metaValue joins inside a nested value and turns its objects into maps.
func (r *reference) metaValue(v any, on bool) any {
	switch x := v.(type) {
	case refHeld:
		if !on {
			m := make(refHeld, len(x))
			copy(m, x)
			for i := range m {
				m[i].v = r.metaValue(m[i].v, on)
			}
			return toMap(m)
		}
		return toMap(r.metaJoin(x))
	case []any:
		y := make([]any, len(x))
		copy(y, x)
		if on {
			for i := 1; i < len(y); i++ {
				a, aok := y[i-1].(string)
				b, bok := y[i].(string)
				if aok && bok {
					y[i-1], y[i] = r.metaPair(a, b)
				}
			}
		}
		for i := range y {
			y[i] = r.metaValue(y[i], on)
		}
		return y
	}
	return v
}

// metaPair reads a and b as one text and redacts the first match that
// crosses from a into b.
func (r *reference) metaPair(a, b string) (string, string) {
	if a == "" || b == "" {
		return a, b
	}
	r.red.Reset()
	_, fs := r.red.Append(nil, []byte(a+b), true, nil)
	n := int64(len(a))
	for _, f := range fs {
		if f.Offset >= n || f.Offset+int64(f.Length) <= n {
			continue
		}
		if f.Suppressed {
			return a, b
		}
		if f.Kind != scanners.KindTag {
			r.redactions++
		}
		return a[:f.Offset] + r.cat.Marker(f.Rule), b[f.Offset+int64(f.Length)-n:]
	}
	return a, b
}
