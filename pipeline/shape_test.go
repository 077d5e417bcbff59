package pipeline

import (
	"strconv"
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
		{"envelope jsonrpc", []role{roleTop}, "jsonrpc", false, false, next{role: roleEnvelopeVersion, region: regionOther}, true},
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
		{"block other", []role{roleTop, roleContent, roleBlock}, "annotations", true, false, next{region: regionText}, false},
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

// TestMetaOnClose is the shape layer's _meta decision when an object
// closes: which held slot is merged, whether a _meta is written and whether
// the sanitizer's labels go in.
func TestMetaOnClose(t *testing.T) {
	for _, tc := range []struct {
		name        string
		f           frame
		tool        bool
		d           deferKind
		write, ours bool
	}{
		{"bare result", frame{role: roleTop}, true, deferTop, true, true},
		{"result of another kind", frame{role: roleTop}, false, deferTop, true, true},
		{"envelope without _meta", frame{role: roleTop, envelope: true}, true, deferTop, false, false},
		{"envelope with _meta", frame{role: roleTop, envelope: true, heldMeta: true}, true, deferTop, true, false},
		{"envelope's result", frame{role: roleResult}, true, deferResult, true, true},
		{"block of a tool result", frame{role: roleBlock}, true, deferBlock, true, true},
		{"block of another kind", frame{role: roleBlock}, false, deferNone, false, false},
		{"resource", frame{role: roleResource}, true, deferNone, false, false},
		{"structured object", frame{role: roleStructured}, true, deferNone, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shaper{tool: tc.tool}
			d, write, ours := s.metaOnClose(&tc.f)
			if d != tc.d || write != tc.write || ours != tc.ours {
				t.Fatalf("metaOnClose = %d %v %v, want %d %v %v", d, write, ours, tc.d, tc.write, tc.ours)
			}
		})
	}
}

// TestKeyRefusals: the keys keyDone refuses, prototype-polluting ones
// (protoKey) and duplicates (keySet, past its short list as well).
func TestKeyRefusals(t *testing.T) {
	for _, k := range []string{"__proto__", "constructor", "prototype"} {
		if !protoKey([]byte(k)) {
			t.Fatalf("%q not refused", k)
		}
	}
	for _, k := range []string{"proto", "__proto_", "Constructor", "prototypes", ""} {
		if protoKey([]byte(k)) {
			t.Fatalf("%q refused", k)
		}
	}
	var ks keySet
	for i := range 40 {
		if !ks.add([]byte(strconv.Itoa(i))) {
			t.Fatalf("key %d taken for a duplicate", i)
		}
	}
	for _, i := range []int{0, 15, 16, 39} {
		if ks.add([]byte(strconv.Itoa(i))) {
			t.Fatalf("duplicate key %d accepted", i)
		}
	}
	ks.reset()
	if !ks.add([]byte("0")) {
		t.Fatal("a key taken for a duplicate after reset")
	}
}

// TestInternalCode is the tool error's code decision: structuredContent.code
// when it has the policy's code syntax, else a leading "CODE:" of the first
// text line.
func TestInternalCode(t *testing.T) {
	for _, tc := range []struct {
		errCode, errText string
		code, source     string
	}{
		{"DB_DOWN", "X_Y: text", "DB_DOWN", "structuredContent.code"},
		{"", "NOT_FOUND: no such row\nmore", "NOT_FOUND", "text-prefix"},
		{"", "  RATE_LIMITED : slow down", "RATE_LIMITED", "text-prefix"},
		{"lower case", "QUOTA: over", "QUOTA", "text-prefix"},
		{"", "no code here", "", ""},
		{"", "first line\nSECOND: not the first", "", ""},
		{"", "", "", ""},
	} {
		s := shaper{errCode: []byte(tc.errCode), errText: []byte(tc.errText)}
		code, source := s.internalCode()
		if code != tc.code || source != tc.source {
			t.Fatalf("%q %q: %q %q, want %q %q", tc.errCode, tc.errText, code, source, tc.code, tc.source)
		}
	}
	if got := secretMarkerPrefix(""); got != "[REDACTED:" {
		t.Fatalf("default marker prefix %q", got)
	}
	if got := secretMarkerPrefix("<%s>"); got != "" {
		t.Fatalf("short marker prefix %q", got)
	}
}

// TestHoldTransitions: the structured hold's state on its own: a held
// member ends at its own depth, raw bytes stop at structured-bytes, and a
// tap candidate is kept only when complete and not cut.
func TestHoldTransitions(t *testing.T) {
	var s schemaPass
	s.max = 8
	buf := s.beginHold(holdStructured, 1)
	if buf != &s.held[0].structured || !s.held[0].hasStructured {
		t.Fatal("beginHold did not hold structuredContent of result 0")
	}
	if s.holdEndsAt(2) || !s.holdEndsAt(1) {
		t.Fatal("the hold ends at the wrong depth")
	}
	s.beginRaw(2)
	s.chunkDone([]byte(`xx{"a":1`)) // 6 bytes from index 2
	s.endHold([]byte(`}, `), 1, false)
	if got := string(s.held[0].raw); got != `{"a":1}` || s.hold != holdNone || s.rawOn {
		t.Fatalf("raw %q, hold %d, rawOn %v", got, s.hold, s.rawOn)
	}
	s.beginHold(holdStructured, 1)
	s.beginRaw(0)
	s.chunkDone([]byte(`{"a":12345}`))
	s.endHold(nil, 0, true)
	if !s.held[0].rawOver || len(s.held[0].raw) != 0 || !s.held[0].structuredOver {
		t.Fatal("raw bytes over structured-bytes were kept")
	}

	s.beginHold(holdContent, 1)
	for _, cut := range []bool{false, true} {
		s.beginTap()
		s.tap([]byte("abc"))
		s.endTap(cut)
	}
	if n := len(s.held[0].cands); n != 1 || string(s.held[0].rawText) != "abc" {
		t.Fatalf("candidates %d, raw text %q: want the uncut one only", n, s.held[0].rawText)
	}
	s.beginTap()
	s.tap([]byte("0123456789")) // over structured-bytes
	s.endTap(false)
	if len(s.held[0].cands) != 1 || string(s.held[0].rawText) != "abc" {
		t.Fatal("an incomplete candidate was kept")
	}
}
