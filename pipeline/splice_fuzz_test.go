package pipeline

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSpliceOut: for any valid JSON document, splicing items out of the
// array at result.tools (or tools) gives valid JSON equal to the document
// decoded with those items removed; a document without such an array is
// refused, never mangled.
func FuzzSpliceOut(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"a"},{"name":"b","d":"x\"],}"},3,[],"s"]}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[ {"a":1} , {"b":[1,{"c":"]"}]} ],"nextCursor":"n"}}`,
		`{"to\u006fls":[1,2,3],"tools":[4]}`,
		`{"tools":[]}`,
		`{"tools":{}}`,
		` { "result" : { "tools" : [ true , false , null , -1.5e3 ] } } `,
	} {
		f.Add([]byte(s), uint8(5))
	}
	f.Fuzz(func(t *testing.T, doc []byte, mask uint8) {
		if len(doc) > 4096 || !json.Valid(doc) || dupKeys(doc) {
			// A repeated member: the pass never writes one (the strict
			// decoder refuses it), and encoding/json reads the last
			// where splicing, like the guards, reads the first.
			return
		}
		drop := func(i int) bool { return mask>>(i%8)&1 == 1 }
		for _, path := range [][]string{{"tools"}, {"result", "tools"}} {
			got, err := spliceOut(doc, path, drop)
			var v any
			if json.Unmarshal(doc, &v) != nil {
				return
			}
			arr, ok := at(v, path)
			if err != nil {
				if ok {
					t.Fatalf("refused %s at %v", doc, path)
				}
				continue
			}
			if !ok {
				t.Fatalf("spliced %s at %v, which has no array", doc, path)
			}
			var kept []any
			for i, x := range arr {
				if !drop(i) {
					kept = append(kept, x)
				}
			}
			if kept == nil {
				kept = []any{}
			}
			set(v, path, kept)
			var w any
			if err := json.Unmarshal(got, &w); err != nil {
				t.Fatalf("spliced %s into invalid JSON %s", doc, got)
			}
			if !reflect.DeepEqual(v, w) {
				t.Fatalf("spliced %s into %s", doc, got)
			}
		}
	})
}

// dupKeys reports whether an object of doc (valid JSON) names a member
// twice.
func dupKeys(doc []byte) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token is a key
	}
	var st []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.obj {
					top.key = true
				}
				st = append(st, &frame{obj: true, keys: map[string]bool{}, key: true})
			case '[':
				if top != nil && top.obj {
					top.key = true
				}
				st = append(st, &frame{})
			default:
				st = st[:len(st)-1]
			}
		case string:
			if top != nil && top.obj && top.key {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.key = false
				continue
			}
			if top != nil && top.obj {
				top.key = true
			}
		default:
			if top != nil && top.obj {
				top.key = true
			}
		}
	}
}

// at returns the array at path in v.
func at(v any, path []string) ([]any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	a, ok := v.([]any)
	return a, ok
}

func set(v any, path []string, x any) {
	for _, k := range path[:len(path)-1] {
		v = v.(map[string]any)[k]
	}
	v.(map[string]any)[path[len(path)-1]] = x
}
