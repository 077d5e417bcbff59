package jcs

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// RFC 8785 §3.2.2 (and the README of the reference implementation).
func TestCanonicalizeRFC8785Examples(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "rfc8785-3.2.2-example",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			name: "rfc8785-3.2.3-sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			name: "cyberphone-arrays",
			in:   `[56, {"d": true, "10": null, "1": [ ]}]`,
			want: `[56,{"1":[],"10":null,"d":true}]`,
		},
		{
			name: "cyberphone-readme",
			in:   `{"numbers": [1E30,4.50,6,2e-3,0.000000000000000000000000001], "escaping": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "other": [null, true, false]}`,
			want: `{"escaping":"€$\u000f\nA'B\"\\\\\"/","numbers":[1e+30,4.5,6,0.002,1e-27],"other":[null,true,false]}`,
		},
		{name: "nested-sort", in: `{"b":{"z":1,"a":2},"a":[{"y":0,"x":-0}]}`, want: `{"a":[{"x":0,"y":0}],"b":{"a":2,"z":1}}`},
		{name: "html-not-escaped", in: `"<a&b>\u2028"`, want: "\"<a&b>\u2028\""},
		{name: "controls", in: `"\u0000\u001f\b\f\t"`, want: `"\u0000\u001f\b\f\t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			again, err := Canonicalize(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s", again)
			}
		})
	}
}

// RFC 8785 Appendix B: IEEE-754 bit patterns and their ES6 serialization.
func TestES6NumberRFC8785AppendixB(t *testing.T) {
	tests := []struct {
		bits uint64
		want string // "" means the value is an error (NaN, Infinity)
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x7fffffffffffffff, ""},
		{0x7ff0000000000000, ""},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tt := range tests {
		f := math.Float64frombits(tt.bits)
		got, err := appendES6Number(nil, f)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%016x: want error, got %s", tt.bits, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%016x: got %q (%v), want %q", tt.bits, got, err, tt.want)
		}
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"duplicate-key", `{"a":1,"a":2}`},
		{"duplicate-key-escaped", `{"a":1,"\u0061":2}`},
		{"lone-high-surrogate", `"\ud800"`},
		{"lone-low-surrogate", `"\udc00"`},
		{"high-then-ascii", `"\ud800\u0041"`},
		{"invalid-utf8", "\"\xff\""},
		{"raw-control", "\"a\x01\""},
		{"trailing", `{} {}`},
		{"trailing-comma", `[1,]`},
		{"leading-zero", `01`},
		{"bare-dot", `1.`},
		{"plus", `+1`},
		{"nan", `NaN`},
		{"overflow", `1e400`},
		{"empty", ``},
		{"single-quote", `'a'`},
		{"bad-escape", `"\x"`},
		{"unterminated", `"abc`},
		{"deep", string(make([]byte, 0)) + deepArray(DefaultMaxDepth+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := Canonicalize([]byte(tt.in)); err == nil {
				t.Fatalf("accepted %q as %q", tt.in, got)
			}
		})
	}
}

func deepArray(n int) string {
	b := make([]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		b = append(b, '[')
	}
	for i := 0; i < n; i++ {
		b = append(b, ']')
	}
	return string(b)
}

func TestLessUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"a", "ab", true},
		{"ab", "a", false},
		{"😀", "\ufb33", true}, // surrogate D83D < FB33
		{"\ufb33", "😀", false},
		{"\u00e9", "\u20ac", true},
		{"😀", "😁", true},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := lessUTF16(tt.a, tt.b); got != tt.want {
			t.Errorf("lessUTF16(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// FuzzCanonicalize is differential: whatever the strict parser accepts,
// encoding/json accepts too and reads as the same value (numbers compared as
// float64), and canonicalization is idempotent.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,"x\u00e9"]}`, `1e30`, `-0.0`, `"\ud83d\ude00"`,
		`{"a":{"b":{"c":[1,2,3.5e-7]}}}`, `[]`, `{}`, `"\u2028<>&"`, `123456789012345678901234567890`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Canonicalize(data)
		if err != nil {
			return
		}
		var a, b any
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("encoding/json rejects what we accept: %v", err)
		}
		if err := json.Unmarshal(c, &b); err != nil {
			t.Fatalf("canonical output is not JSON: %v", err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("value changed:\n%v\n%v", a, b)
		}
		c2, err := Canonicalize(c)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("not idempotent")
		}
	})
}
