package argsgate

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// FuzzCheck: any arguments give either valid (and then the schema accepts
// them and declares every member) or a well-formed tool execution error
// whose text holds no control, bidi or zero-width character and whose
// echoed pieces are bounded.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"query":"go"}`, `{"query":1}`, `{"limit":"x\u202e\u0007"}`, `{"query":"go","zz":{"a":[1,2]}}`, `[]`, `{"query":"go","filters":{"tags":[1]}}`, `{"query":"` + strings.Repeat("é", 300) + `"}`} {
		f.Add([]byte(s))
	}
	g, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	s, err := schema.Compile([]byte(searchSchema), schema.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		r := g.Check("search", []byte(searchSchema), args)
		if r.Valid {
			v, err := schema.Decode(args, 0)
			if len(strings.TrimSpace(string(args))) == 0 {
				v, err = map[string]any{}, nil
			}
			if err != nil || !s.Valid(v) || len(s.Undeclared(v)) != 0 {
				t.Fatalf("valid verdict for %q", args)
			}
			return
		}
		var res struct {
			Content []struct{ Text string }
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal(r.Reply(), &res); err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != r.Text {
			t.Fatalf("malformed error result %s", r.Reply())
		}
		for _, c := range r.Text {
			if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c <= 0x9f || c >= 0x200b && c <= 0x200f || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069 || c == 0xfeff {
				t.Fatalf("text holds %U: %q", c, r.Text)
			}
		}
		if utf8.RuneCountInString(r.Pointer) > 4*DefaultMaxEcho+3 {
			t.Fatalf("pointer not bounded: %d", len(r.Pointer))
		}
		if len(r.Text) > 8192 {
			t.Fatalf("text not bounded: %d bytes", len(r.Text))
		}
	})
}
