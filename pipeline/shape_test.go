package pipeline

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// TestMemberClassification is the shape layer's table: the role, region,
// held _meta slot and outputSchema hold of a member's value from the roles
// of its object (and the object above it), its key, the message kind and
// whether the tool declares an outputSchema; and whether the top-level
// object is taken for a JSON-RPC envelope.
func TestMemberClassification(t *testing.T) {
	sch, err := schema.Compile([]byte(`{"type":"object"}`), schema.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		parents  []role // outermost first; the last is the member's object
		key      string
		tool     bool
		held     bool // an outputSchema is declared
		want     next
		envelope bool
	}{
		{"top result content", []role{roleTop}, "content", true, false, next{role: roleContent, region: regionText}, false},
		{"top content held", []role{roleTop}, "content", true, true, next{role: roleContent, region: regionText, hold: holdContent}, false},
		{"top structured", []role{roleTop}, "structuredContent", true, false, next{role: roleStructured, region: regionStructured}, false},
		{"top structured held", []role{roleTop}, "structuredContent", true, true, next{role: roleStructured, region: regionStructured, hold: holdStructured}, false},
		{"top isError", []role{roleTop}, "isError", true, false, next{role: roleIsError, region: regionOther}, false},
		{"top meta", []role{roleTop}, "_meta", true, false, next{role: roleMeta, region: regionMeta, deferM: deferTop}, false},
		{"top other key", []role{roleTop}, "extra", true, false, next{region: regionOther}, false},
		{"content of another kind", []role{roleTop}, "content", false, false, next{region: regionOther}, false},
		{"isError of another kind", []role{roleTop}, "isError", false, false, next{region: regionOther}, false},
		{"envelope result", []role{roleTop}, "result", true, false, next{role: roleResult, region: regionOther}, true},
		{"envelope id", []role{roleTop}, "id", false, false, next{role: roleEnvelopeID, region: regionOther}, true},
		{"envelope jsonrpc", []role{roleTop}, "jsonrpc", false, false, next{region: regionOther}, true},
		{"envelope method", []role{roleTop}, "method", false, false, next{region: regionOther}, true},
		{"envelope params", []role{roleTop}, "params", false, false, next{region: regionOther}, true},
		{"envelope error", []role{roleTop}, "error", false, false, next{region: regionOther}, true},
		{"result content", []role{roleTop, roleResult}, "content", true, false, next{role: roleContent, region: regionText}, false},
		{"result meta", []role{roleTop, roleResult}, "_meta", true, false, next{role: roleMeta, region: regionMeta, deferM: deferResult}, false},
		{"result id is data", []role{roleTop, roleResult}, "id", true, false, next{region: regionOther}, false},
		{"block text", []role{roleTop, roleContent, roleBlock}, "text", true, false, next{role: roleText, region: regionText}, false},
		{"block data", []role{roleTop, roleContent, roleBlock}, "data", true, false, next{role: roleBinary, region: regionText}, false},
		{"block resource", []role{roleTop, roleContent, roleBlock}, "resource", true, false, next{role: roleResource, region: regionText}, false},
		{"block mime", []role{roleTop, roleContent, roleBlock}, "mimeType", true, false, next{role: roleMime, region: regionText}, false},
		{"block meta", []role{roleTop, roleContent, roleBlock}, "_meta", true, false, next{role: roleMeta, region: regionMeta, deferM: deferBlock}, false},
		{"block other", []role{roleTop, roleContent, roleBlock}, "type", true, false, next{region: regionText}, false},
		{"resource text", []role{roleBlock, roleResource}, "text", true, false, next{role: roleResText, region: regionText}, false},
		{"resource blob", []role{roleBlock, roleResource}, "blob", true, false, next{role: roleBinary, region: regionText}, false},
		{"resource mime", []role{roleBlock, roleResource}, "mimeType", true, false, next{role: roleMime, region: regionText}, false},
		{"resource meta", []role{roleBlock, roleResource}, "_meta", true, false, next{role: roleMeta, region: regionMeta}, false},
		{"resource uri", []role{roleBlock, roleResource}, "uri", true, false, next{region: regionText}, false},
		{"meta reserved key", []role{roleTop, roleMeta}, MetaPrefix + "untrusted", true, false, next{drop: true, reserved: true}, false},
		{"meta other key", []role{roleTop, roleMeta}, "trace", true, false, next{region: regionMeta}, false},
		{"structured code of result", []role{roleTop, roleStructured}, "code", true, false, next{role: roleErrCode, region: regionStructured}, false},
		{"structured code of envelope result", []role{roleTop, roleResult, roleStructured}, "code", true, false, next{role: roleErrCode, region: regionStructured}, false},
		{"structured code deeper", []role{roleTop, roleStructured, roleStructured}, "code", true, false, next{role: roleStructured, region: regionStructured}, false},
		{"structured meta is data", []role{roleTop, roleStructured}, "_meta", true, false, next{role: roleStructured, region: regionStructured}, false},
		{"generic meta", []role{roleTop, roleGeneric}, "_meta", true, false, next{role: roleMeta, region: regionMeta}, false},
		{"generic key", []role{roleTop, roleGeneric}, "x", true, false, next{region: regionOther}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s shaper
			s.tool = tc.tool
			if tc.held {
				s.sch = &s.schState
				s.sch.reset(sch, 1<<20)
			}
			for _, r := range tc.parents {
				reg := regionOther
				if r == roleBlock || r == roleResource {
					reg = regionText
				}
				s.stack = append(s.stack, frame{obj: true, role: r, region: reg})
			}
			f := &s.stack[len(s.stack)-1]
			got := s.memberNext(f, []byte(tc.key))
			if got != tc.want {
				t.Fatalf("memberNext = %+v, want %+v", got, tc.want)
			}
			if s.envelope != tc.envelope || f.role == roleTop && f.envelope != tc.envelope {
				t.Fatalf("envelope %v (frame %v), want %v", s.envelope, f.envelope, tc.envelope)
			}
		})
	}
}

// TestItemClassification: the role of an array's items from the array's.
func TestItemClassification(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    frame
		want next
	}{
		{"content items are blocks", frame{role: roleContent, region: regionText}, next{role: roleBlock, region: regionText}},
		{"structured items", frame{role: roleStructured, region: regionStructured}, next{role: roleStructured, region: regionStructured}},
		{"meta items", frame{role: roleMeta, region: regionMeta}, next{region: regionMeta}},
		{"generic items", frame{role: roleGeneric, region: regionText}, next{region: regionText}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := itemRole(&tc.f); got != tc.want {
				t.Fatalf("itemRole = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPointerNameContext: the pointer of a value names its member, and a
// failure while a name is awaited or read leaves the name out.
func TestPointerNameContext(t *testing.T) {
	var s shaper
	s.stack = []frame{{obj: true, key: []byte("a/b")}, {items: 3}, {obj: true, key: []byte("x~y")}}
	if got := s.pointer(); got != "/a~1b/2/x~0y" {
		t.Fatalf("pointer %q", got)
	}
	s.nameCtx = true
	if got := s.pointer(); got != "/a~1b/2" {
		t.Fatalf("pointer in a name %q", got)
	}
}
