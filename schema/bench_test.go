package schema

import (
	"fmt"
	"strings"
	"testing"
)

// benchSchema is a typical outputSchema of a search/listing tool.
const benchSchema = `{
  "type":"object",
  "required":["items","total"],
  "additionalProperties":false,
  "properties":{
    "total":{"type":"integer","minimum":0},
    "cursor":{"type":["string","null"],"maxLength":128},
    "items":{"type":"array","maxItems":100000,"items":{"$ref":"#/$defs/item"}}
  },
  "$defs":{
    "item":{
      "type":"object",
      "required":["id","name","kind","score","tags","owner"],
      "properties":{
        "id":{"type":"string","pattern":"^[a-z0-9-]{8,40}$"},
        "name":{"type":"string","minLength":1,"maxLength":200},
        "kind":{"enum":["file","dir","link"]},
        "score":{"type":"number","minimum":0,"maximum":1},
        "tags":{"type":"array","items":{"type":"string","maxLength":32},"maxItems":16},
        "owner":{"type":"object","required":["login"],"properties":{"login":{"type":"string"},"admin":{"type":"boolean"}}},
        "summary":{"type":"string","maxLength":4096}
      }
    }
  }
}`

// benchContent builds a structured result of about size bytes; extra adds
// one undeclared member per item (what projection drops).
func benchContent(size int, extra bool) []byte {
	var b strings.Builder
	b.WriteString(`{"total":0,"cursor":null,"items":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"item-%08d","name":"src/pkg/module_%d/file_%d.go","kind":"file","score":0.%03d,"tags":["go","source","v%d"],"owner":{"login":"user%d","admin":false},"summary":"A short description of the item with some words in it, number %d."`, i, i%97, i, i%1000, i%7, i%13, i)
		if extra {
			b.WriteString(`,"internal_path":"/srv/data/x"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkValidate measures the cost per MB of structured content: strict
// decoding, validation (the fast path, and the library alone), projection,
// and decode+validate+project together.
func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, benchSchema)
	if !s.Fast() {
		b.Fatal("bench schema has no fast path")
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		raw := benchContent(size, false)
		v := mustDecode(b, string(raw))
		if viol := s.Validate(v); viol != nil {
			b.Fatalf("bench content invalid: %+v", *viol)
		}
		name := fmt.Sprintf("%dKiB", size>>10)
		b.Run("decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(raw, 64); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("validate/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if s.Validate(v) != nil {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("validate-library/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if s.s.Validate(v) != nil {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("project/"+name, func(b *testing.B) {
			rawX := benchContent(size, true)
			vx := mustDecode(b, string(rawX))
			b.SetBytes(int64(len(rawX)))
			b.ReportAllocs()
			for b.Loop() {
				if _, d := s.Project(vx); len(d) == 0 {
					b.Fatal("nothing dropped")
				}
			}
		})
		b.Run("decode+validate+project/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				v, err := Decode(raw, 64)
				if err != nil || s.Validate(v) != nil {
					b.Fatal("invalid")
				}
				s.Project(v)
			}
		})
	}
}

// BenchmarkCompile measures compiling the bench schema and a cache hit.
func BenchmarkCompile(b *testing.B) {
	raw := []byte(benchSchema)
	b.Run("compile", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compile(raw, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache-hit", func(b *testing.B) {
		c := NewCache(16, Limits{})
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Compile(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
