package resultdoc

import (
	"errors"
	"testing"
)

func TestDecodeEncode(t *testing.T) {
	for _, c := range []struct {
		name, in, out string
		isErr         bool
		fail          bool
	}{
		{"bare", `{"b":1.50,"a":"x"}`, `{"a":"x","b":1.50}`, false, false},
		{"envelope", `{"jsonrpc":"2.0","id":"7","result":{"x":[1,2]}}`, `{"id":"7","jsonrpc":"2.0","result":{"x":[1,2]}}`, false, false},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`, "", true, false},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`, "", false, true},
		{"envelope without result", `{"jsonrpc":"2.0","id":1}`, "", false, true},
		{"result not an object", `{"jsonrpc":"2.0","id":1,"result":[1]}`, "", false, true},
		{"not an object", `[1]`, "", false, true},
		{"duplicate member", `{"a":1,"a":2}`, "", false, true},
		{"lone surrogate", `{"a":"\ud800"}`, "", false, true},
		{"trailing data", `{} {}`, "", false, true},
		{"html kept", `{"a":"<b>&"}`, `{"a":"<b>&"}`, false, false},
	} {
		d, err := Decode([]byte(c.in))
		if c.fail {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: Decode = %v", c.name, err)
			}
			continue
		}
		if err != nil || d.IsError() != c.isErr {
			t.Errorf("%s: Decode = %v, isError %v", c.name, err, d != nil && d.IsError())
			continue
		}
		if c.isErr {
			continue
		}
		out, err := d.Encode()
		if err != nil || string(out) != c.out {
			t.Errorf("%s: Encode = %s, %v; want %s", c.name, out, err, c.out)
		}
	}
}
