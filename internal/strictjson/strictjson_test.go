package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeReasons(t *testing.T) {
	for _, tc := range []struct {
		in    string
		depth int
		want  Reason // 0: accepted
	}{
		{`{"a":[1,2.5,-0,1e3,"x",true,false,null],"b":{}}`, 4, 0},
		{` "\u00e9\ud83d\ude00\/\n" `, 4, 0},
		{`1e308`, 4, 0},
		{`1e-400`, 4, 0}, // rounds to 0: inside the range of a double
		{`123456789012345678901234567890`, 4, 0},
		{``, 4, Syntax},
		{`{"a":1,}`, 4, Syntax},
		{`[1 2]`, 4, Syntax},
		{`01`, 4, Syntax},
		{`1.`, 4, Syntax},
		{`"a` + "\x01" + `"`, 4, Syntax},
		{`"\x"`, 4, Syntax},
		{`{} {}`, 4, Syntax},
		{`tru`, 4, Syntax},
		{`{"a":1,"a":2}`, 4, DuplicateKey},
		{`{"\u0061":1,"a":2}`, 4, DuplicateKey},
		{"\"\xff\"", 4, UTF8},
		{`"\ud83d"`, 4, Surrogate},
		{`"\ude00"`, 4, Surrogate},
		{`"\ud83d\u0041"`, 4, Surrogate},
		{`1e400`, 4, Number},
		{`-1e400`, 4, Number},
		{`0.0000e-330`, 4, 0},                 // zero, however written
		{`4.9e-324`, 4, 0},                    // the smallest subnormal
		{`1e-320`, 4, 0},                      // a subnormal
		{`0e10000000000000000000`, 4, Number}, // big.Rat cannot parse it
		{`1e-999999`, 4, Number},              // big.Rat takes 50 ms for it
		{`0E+401`, 4, Number},                 // exponent beyond MaxExponent
		{`0E+400`, 4, 0},
		{`1E-0000000000000000400`, 4, 0}, // leading zeros count for nothing
		{`1E-0000000000000000401`, 4, Number},
		{`1` + strings.Repeat("0", 300), 4, 0}, // 1e300 written out
		// The largest double is 1.797e308: 308 integer digits never reach
		// it, 309 may.
		{strings.Repeat("9", 308) + `.99`, 4, 0},
		{`-` + strings.Repeat("9", 308), 4, 0},
		{`1` + strings.Repeat("0", 308), 4, 0},
		{`1` + strings.Repeat("0", 308) + `.5`, 4, 0},
		{`17976931348623158` + strings.Repeat("0", 292), 4, 0},
		{`17976931348623159` + strings.Repeat("0", 292), 4, Number},
		{strings.Repeat("9", 309), 4, Number},
		{`-` + strings.Repeat("9", 309) + `.0`, 4, Number},
		{`0.` + strings.Repeat("0", 4095), 4, Number}, // beyond MaxNumberBytes
		{`0.` + strings.Repeat("0", 4094), 4, 0},
		{`[[[[1]]]]`, 4, 0},
		{`[[[[[1]]]]]`, 4, Depth},
		{`{"a":{"b":{"c":{"d":{}}}}}`, 4, Depth},
	} {
		_, err := Decode([]byte(tc.in), tc.depth)
		var e *Error
		switch {
		case tc.want == 0 && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != 0 && (!errors.As(err, &e) || e.Reason != tc.want):
			t.Errorf("%q: error %v, want reason %d", tc.in, err, tc.want)
		case err != nil && strings.Contains(err.Error(), tc.in) && tc.in != "":
			t.Errorf("%q: the error %q repeats the input", tc.in, err)
		}
	}
}

// FuzzDecode compares with encoding/json: what Decode accepts is valid JSON
// and decodes to the same value; valid JSON that Decode refuses breaks one
// of the I-JSON rules or the depth.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `[1e400]`, `[0e10000000000000000000]`, `[1e-400]`, `{"a":1,"a":1}`, `"\ud800"`, `[[[]]]`, "\"\xc3\x28\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data, 8)
		if err == nil {
			if !json.Valid(data) {
				t.Fatalf("accepted invalid JSON %q", data)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var w any
			if err := dec.Decode(&w); err != nil || !reflect.DeepEqual(v, w) {
				t.Fatalf("%q: %#v, encoding/json %#v (%v)", data, v, w, err)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Reason < Syntax || e.Reason > Depth {
			t.Fatalf("%q: error %v", data, err)
		}
		if e.Reason == Syntax && json.Valid(data) {
			t.Fatalf("valid JSON %q refused as a syntax error", data)
		}
	})
}
