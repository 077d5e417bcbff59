package pipeline

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestNotJSONIsInvalidJSON: input that is not one well-formed JSON value is
// INVALID_JSON whatever its first byte, even a byte that starts a value
// (t, f, n, a digit, '-', '"', '['); a well-formed value that is not an
// object is INVALID_CONTENT (result-not-object), at the top level or as an
// envelope's result; a member name twice is INVALID_JSON (duplicate-key).
func TestNotJSONIsInvalidJSON(t *testing.T) {
	e, err := NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in     string
		code   Code
		reason string
	}{
		{"this is not json", CodeInvalidJSON, "bad-literal"},
		{"hello world", CodeInvalidJSON, "expected-value"},
		{"false alarm", CodeInvalidJSON, "trailing-data"},
		{"null pointer exception", CodeInvalidJSON, "trailing-data"},
		{"nul", CodeInvalidJSON, "unexpected-eof"},
		{"404 not found", CodeInvalidJSON, "trailing-data"},
		{"-- a comment", CodeInvalidJSON, "bad-number"},
		{`"quoted" and then text`, CodeInvalidJSON, "trailing-data"},
		{`"unterminated`, CodeInvalidJSON, "unexpected-eof"},
		{"[ERROR] disk full", CodeInvalidJSON, "expected-value"},
		{"[1, 2", CodeInvalidJSON, "unexpected-eof"},
		{`[{"a":1,"a":2}`, CodeInvalidJSON, "unexpected-eof"},
		{"true\n", CodeInvalidContent, "result-not-object"},
		{"42", CodeInvalidContent, "result-not-object"},
		{`"a string"`, CodeInvalidContent, "result-not-object"},
		{`[{"a":1,"a":2}]`, CodeInvalidContent, "result-not-object"},
		{`[` + strings.Repeat(`"x",`, 1000) + `1]`, CodeInvalidContent, "result-not-object"},
		{`{"a":1,"a":2}`, CodeInvalidJSON, "duplicate-key"},
		{`{"content":[{"type":"text","text":"x","text":"y"}]}`, CodeInvalidJSON, "duplicate-key"},
		{`{"jsonrpc":"2.0","id":1,"result":tru}`, CodeInvalidJSON, "bad-literal"},
		{`{"jsonrpc":"2.0","id":1,"result":[1]}`, CodeInvalidContent, "result-not-object"},
		{`{"jsonrpc":"2.0","id":1,"result":[1]`, CodeInvalidJSON, "unexpected-eof"},
	} {
		t.Run(tc.in[:min(len(tc.in), 24)], func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				r := strings.NewReader(tc.in)
				var out Buffer
				var ev *Evidence
				if chunked {
					ev, err = e.Sanitize(context.Background(), &oneByteReader{s: tc.in}, &out, toolInfo)
				} else {
					ev, err = e.Sanitize(context.Background(), r, &out, toolInfo)
				}
				if err != nil {
					t.Fatal(err)
				}
				if ev.Outcome != OutcomeRejected || ev.Code != tc.code || ev.Reason != tc.reason {
					t.Errorf("chunked %v: %s %s %s, want rejected %s %s", chunked, ev.Outcome, ev.Code, ev.Reason, tc.code, tc.reason)
				}
				for _, w := range []string{"disk full", "alarm", "pointer", "quoted", "comment", "not found", "unterminated", `"x"`} {
					if strings.Contains(out.String(), w) {
						t.Errorf("input in the error result: %s", out.String())
					}
				}
			}
		})
	}
}

// oneByteReader reads s one byte a call.
type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}
