package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestGenerateShapes checks every shape at several sizes: valid JSON and
// UTF-8, deterministic, about the size asked for, and the MCP shape.
func TestGenerateShapes(t *testing.T) {
	for _, shape := range Shapes() {
		for _, size := range []int{1 << 10, 4 << 10, 64 << 10} {
			for _, esc := range []Escaping{EscapeMixed, EscapeMinimal, EscapeHTML, EscapeASCII} {
				o := Options{Seed: uint64(size) + uint64(esc), Shape: shape, Size: size, Escaping: esc}
				d := Generate(o)
				name := shape.String()
				if !json.Valid(d.JSON) || !utf8.Valid(d.JSON) {
					t.Fatalf("%s/%d: not valid JSON: %.200s", name, size, d.JSON)
				}
				if again := Generate(o); !bytes.Equal(again.JSON, d.JSON) {
					t.Fatalf("%s/%d: not deterministic", name, size)
				}
				if len(d.JSON) < size/2 || len(d.JSON) > 2*size+4096 {
					t.Errorf("%s/%d/%d: %d bytes", name, size, esc, len(d.JSON))
				}
				var r struct {
					Content []struct {
						Type, Text, Data, MimeType string
					}
					StructuredContent map[string]any
				}
				if err := json.Unmarshal(d.JSON, &r); err != nil || len(r.Content) == 0 || r.Content[0].Type != "text" {
					t.Fatalf("%s/%d: not a CallToolResult (%v)", name, size, err)
				}
				if (shape == CodeSearch) != (r.StructuredContent != nil) {
					t.Errorf("%s: structuredContent %v", name, r.StructuredContent != nil)
				}
				if esc == EscapeASCII && bytes.ContainsFunc(d.JSON, func(r rune) bool { return r >= utf8.RuneSelf }) {
					t.Errorf("%s: EscapeASCII wrote non-ASCII", name)
				}
				if esc == EscapeMinimal && shape == WebPage && !bytes.ContainsFunc(d.JSON, func(r rune) bool { return r >= 0x3000 }) {
					t.Errorf("%s: web page without CJK", name)
				}
			}
		}
	}
}

// TestPlanted checks that every planted item is in the document, where
// Pointer says, and that Survivors finds it there.
func TestPlanted(t *testing.T) {
	kinds := map[PlantKind]int{}
	names := map[string]int{}
	for seed := range uint64(60) {
		shape := Shape(seed % uint64(numShapes))
		d := Generate(Options{Seed: seed, Shape: shape, Size: 8 << 10, Secrets: 3, Tags: 2, Invisible: 2})
		if len(d.Planted) != 7 {
			t.Fatalf("seed %d: %d planted", seed, len(d.Planted))
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(d.JSON))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, p := range d.Planted {
			kinds[p.Kind]++
			names[p.Name]++
			s, ok := at(doc, p.Pointer).(string)
			if !ok || !strings.Contains(s, p.Text) {
				t.Errorf("seed %d: %s %s not at %s", seed, p.Kind, p.Name, p.Pointer)
			}
			if len(p.Needles) == 0 {
				t.Errorf("seed %d: %s without needles", seed, p.Name)
			}
		}
		surv, err := Survivors(d.JSON, d.Planted)
		if err != nil || len(surv) != len(d.Planted) {
			t.Errorf("seed %d: Survivors found %d of %d (%v)", seed, len(surv), len(d.Planted), err)
		}
	}
	for _, n := range append(SecretNames(), TagVariants()...) {
		if names[n] == 0 {
			t.Errorf("%s never planted in 60 documents", n)
		}
	}
	t.Logf("planted %v", names)
}

// at resolves a JSON pointer without escapes.
func at(v any, ptr string) any {
	for _, k := range strings.Split(ptr, "/")[1:] {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			for _, c := range k {
				i = 10*i + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func TestEscapedTagOnTheWire(t *testing.T) {
	found := false
	for seed := range uint64(40) {
		d := Generate(Options{Seed: seed, Shape: LogTail, Tags: 3})
		for _, p := range d.Planted {
			if p.Name == "escaped" {
				found = true
				if !bytes.Contains(d.JSON, []byte(`\u003csystem\u003e`)) {
					t.Fatalf("seed %d: escaped tag not escaped on the wire", seed)
				}
			}
		}
	}
	if !found {
		t.Fatal("no escaped tag planted")
	}
}

func TestSecretAndTag(t *testing.T) {
	for _, n := range SecretNames() {
		a, na, ok := Secret(n, 1)
		b, _, _ := Secret(n, 1)
		c, _, _ := Secret(n, 2)
		if !ok || a != b || a == c || len(na) == 0 || !strings.Contains(a, na[0]) {
			t.Errorf("Secret(%q) = %q, %q, %v", n, a, na, ok)
		}
	}
	if _, _, ok := Secret("nope", 1); ok {
		t.Error("unknown secret name accepted")
	}
	for _, n := range TagVariants() {
		if s, nd, ok := Tag(n); !ok || s == "" || len(nd) == 0 {
			t.Errorf("Tag(%q)", n)
		}
	}
}

func TestJSONL(t *testing.T) {
	var recs []Record
	for _, s := range Shapes() {
		recs = append(recs, Generate(Options{Seed: 7, Shape: s, Size: 2048}).Record())
	}
	out := JSONL(recs)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for sc.Scan() {
		var r struct {
			Tool         string
			OutputSchema json.RawMessage
			Result       json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if r.Tool != recs[i].Tool || len(r.Result) == 0 {
			t.Errorf("line %d: %q", i+1, r.Tool)
		}
		if (recs[i].OutputSchema == nil) != (string(r.OutputSchema) == "null") {
			t.Errorf("line %d: outputSchema %s", i+1, r.OutputSchema)
		}
		i++
	}
	if i != len(recs) {
		t.Fatalf("%d lines for %d records", i, len(recs))
	}
}

func TestBigText(t *testing.T) {
	for _, shape := range []Shape{LogTail, FileRead, WebPage, APIResponse} {
		for _, n := range []int64{0, 1, 5, 65535, 65536, 65537, 200_001, 1 << 20} {
			r := BigText(n, shape, 3)
			var buf bytes.Buffer
			// Odd read sizes exercise every boundary.
			if _, err := io.CopyBuffer(&buf, struct{ io.Reader }{r}, make([]byte, 4093)); err != nil {
				t.Fatal(err)
			}
			if int64(buf.Len()) != r.Size() {
				t.Fatalf("%s/%d: read %d, Size %d", shape, n, buf.Len(), r.Size())
			}
			var v struct{ Content []struct{ Text string } }
			if err := json.Unmarshal(buf.Bytes(), &v); err != nil || len(v.Content) != 1 {
				t.Fatalf("%s/%d: %v", shape, n, err)
			}
			body := buf.Bytes()[len(`{"content":[{"type":"text","text":"`) : buf.Len()-len(`"}],"isError":false}`)]
			if int64(len(body)) != n {
				t.Fatalf("%s/%d: body %d bytes", shape, n, len(body))
			}
		}
	}
}
