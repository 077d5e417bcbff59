package strictjson

import (
	"bytes"
	"reflect"
	"testing"
)

var sameCases = []struct {
	a, b string
	want bool
}{
	{`{"a":[1,"x"]}`, `{"a":[1,"x"]}`, true},
	{` {"a" : [ 1 , "x" ] } `, "{\"a\":[1,\"x\"]}\n", true},
	{`{"p":"a\/b"}`, `{"p":"a/b"}`, true},
	{`"\u00e9\ud83d\ude00\n"`, "\"é😀\\n\"", true},
	{`"\u0041"`, `"A"`, true},
	{`[true,false,null]`, `[true,false,null]`, true},
	{`{}`, `{}`, true},
	{`[]`, `[]`, true},
	{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false}, // same value, another order: not the same tokens
	{`1.0`, `1`, false},
	{`1e2`, `100`, false},
	{`[1,2]`, `[12]`, false},
	{`[1,2]`, `[1 2]`, false},
	{`"a"`, `"a" `, true},
	{`"a"`, `"a" "b"`, false},
	{`"a"`, `"b"`, false},
	{`"\ufffd"`, `"\ud800"`, false}, // a lone surrogate is not U+FFFD
	{`"\ufffd"`, "\"\xff\"", false},
	{`"a"`, "\"a\x01\"", false},
	{`"a"`, `"a`, false},
	{`true`, `truex`, false},
	{`true`, `tru`, false},
	{`null`, `nul`, false},
	{`1`, `1x`, false},
	{`1`, "\ufeff1", false},
	{`1`, "\v1", false},
	{`[1]`, `[1]]`, false},
	{``, ``, true},
	{`"abcdefghijklmnopqrstuvwxyz0123456789"`, `"abcdefghijklmnopqrstuvwxyz0123456789"`, true},
	{`["abcdefghij\/klmnopqrstuvw","x"]`, `["abcdefghij/klmnopqrstuvw","x"]`, true},
	{`"abcdefgh"`, `"abcdefgh\"x"`, false},
	{`"abcdefgh\"x"`, `"abcdefgh\"x"`, true},
	{`"abcdefghijklmnop"`, `"abcdefghijklmnoq"`, false},
	{`"abcdefghijklmnop"`, `"abcdefghijklmnop`, false},
	{`"abcdefgh\u00e9"`, "\"abcdefgh\xc3\"", false},
	{`"abcdefgh\u00e9ijklmnopq"`, `"abcdefghéijklmnopq"`, true},
	{`{"a":"x"}`, `{"a":"x\"}`, false},
}

func TestSameTokens(t *testing.T) {
	for _, tc := range sameCases {
		if got := SameTokens([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("SameTokens(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SameTokens([]byte(tc.b), []byte(tc.a)); got != tc.want {
			t.Errorf("SameTokens(%q, %q) = %v, want %v (reversed)", tc.b, tc.a, got, tc.want)
		}
	}
}

// FuzzSameTokens: whenever SameTokens holds and a decodes, b decodes to the
// same value at the same depth limit.
func FuzzSameTokens(f *testing.F) {
	for _, tc := range sameCases {
		f.Add([]byte(tc.a), []byte(tc.b), 4)
	}
	f.Fuzz(func(t *testing.T, a, b []byte, depth int) {
		depth = 1 + (depth&0xff)%16
		checkSame(t, a, b, depth)
		// Texts near a: escapes the pass writes otherwise, one byte cut.
		checkSame(t, a, bytes.ReplaceAll(a, []byte("/"), []byte(`\/`)), depth)
		checkSame(t, bytes.ReplaceAll(a, []byte(`\/`), []byte("/")), a, depth)
		checkSame(t, a, bytes.ReplaceAll(a, []byte(`\u00e9`), []byte("é")), depth)
		if len(a) > 0 {
			checkSame(t, a, a[:len(a)-1], depth)
		}
	})
}

// checkSame fails when SameTokens(a, b) holds and a decodes but b does not
// decode to the same value.
func checkSame(t *testing.T, a, b []byte, depth int) {
	t.Helper()
	if !SameTokens(a, b) {
		return
	}
	va, erra := Decode(a, depth)
	if erra != nil {
		return
	}
	vb, errb := Decode(b, depth)
	if errb != nil {
		t.Fatalf("SameTokens(%q, %q) but b does not decode: %v", a, b, errb)
	}
	if !reflect.DeepEqual(va, vb) {
		t.Fatalf("SameTokens(%q, %q) but %v != %v", a, b, va, vb)
	}
}
