package strictjson

import (
	"strings"
	"testing"
)

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

// numberAgrees checks that Scanner.Number accepts what numberEnd accepts
// and stops where it stops.
func numberAgrees(t *testing.T, in []byte) {
	t.Helper()
	if len(in) == 0 || in[0] != '-' && (in[0] < '0' || in[0] > '9') {
		return // Number is called at a number's first byte
	}
	var s Scanner
	s.Reset(in)
	lit, err := s.Number()
	d := decoder{data: in}
	errD := d.numberEnd()
	if (err == nil) != (errD == nil) {
		t.Fatalf("%q: Number error %v, numberEnd error %v", in, err, errD)
	}
	if err == nil && (s.d.pos != d.pos || len(lit) != d.pos) {
		t.Fatalf("%q: Number ends at %d (literal %q), numberEnd at %d", in, s.d.pos, lit, d.pos)
	}
}

func TestScannerNumber(t *testing.T) {
	for _, in := range []string{
		"0", "-0", "7", "12", "-12", "01", "-01", "0.5", "-0.5", "1.", "1.x", "1.25,", "12e3", "12E3", "1.5e-3", "1e", "1e+",
		"-", "--1", "0x1", "1 ", "1}", "00", "0.", "1.0.0", "1" + strings.Repeat("0", 308), "1" + strings.Repeat("0", 308) + ".5",
		strings.Repeat("9", 309), "0." + strings.Repeat("0", 4094), "0." + strings.Repeat("0", 4095), "1e400", "1e308",
	} {
		numberAgrees(t, []byte(in))
	}
}

// FuzzScannerNumber compares Scanner.Number with numberEnd.
func FuzzScannerNumber(f *testing.F) {
	for _, s := range []string{"0", "-12.5", "1e5", "01", "1.", "123456789012345678901234567890"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { numberAgrees(t, data) })
}
