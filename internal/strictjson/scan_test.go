package strictjson

import "testing"

// skipAgrees checks that SkipStr accepts what Str accepts and stops where
// it stops.
func skipAgrees(t *testing.T, in []byte) {
	t.Helper()
	var a, b Scanner
	a.Reset(in)
	b.Reset(in)
	_, errA := a.Str()
	errB := b.SkipStr()
	if (errA == nil) != (errB == nil) {
		t.Fatalf("%q: Str error %v, SkipStr error %v", in, errA, errB)
	}
	if errA == nil && a.d.pos != b.d.pos {
		t.Fatalf("%q: Str ends at %d, SkipStr at %d", in, a.d.pos, b.d.pos)
	}
}

func TestSkipStr(t *testing.T) {
	for _, in := range []string{
		`""`, `"abc"`, `"abc" `, `"a\"b"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83dx"`, `"\u12"`, `"\x"`, `"abc`, `"abc\`, `"`,
		"\"\xc3\xa9 caf\xc3\xa9\"", "\"\xc3\"", "\"\xc3\\u00a9\"", "\"a\\n\xc3\"", "\"\xff\"", "\"a\x01\"",
		"\"a\x7f\"", "\"0123456789abcdef\\\"0123456789abcdef\xe2\x82\xac\"", "\"\xed\xa0\x80\"",
	} {
		skipAgrees(t, []byte(in))
	}
}

// FuzzSkipStr compares SkipStr with Str on strings with escapes, UTF-8
// and control bytes.
func FuzzSkipStr(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b\u00e9\ud83d\ude00"`, "\"\xc3\\u00a9\"", "\"caf\xc3\xa9\\n\"", `"\ud83d\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		skipAgrees(t, append([]byte{'"'}, data...))
	})
}
