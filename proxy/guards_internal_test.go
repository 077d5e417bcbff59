package proxy

import (
	"strings"
	"testing"
)

func TestKeepParams(t *testing.T) {
	big := `{"uri":"https://x/` + strings.Repeat("a", MaxRequestParamsBytes) + `"}`
	for _, c := range []struct {
		method, params, want string
	}{
		{"resources/read", "{ \"uri\" :\n \"https://x/a\" }", `{"uri":"https://x/a"}`},
		{"prompts/get", `{"name":"p","arguments":{"a":"b"}}`, `{"name":"p","arguments":{"a":"b"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"}}`, `{"ref":{"type":"ref/prompt","name":"p"}}`},
		{"tools/call", `{"name":"t"}`, ""},
		{"resources/read", `{"uri":`, ""},
		{"resources/read", "", ""},
		{"resources/read", big, ""},
	} {
		if got := string(keepParams(c.method, []byte(c.params))); got != c.want {
			t.Errorf("%s %.40q: %q, want %q", c.method, c.params, got, c.want)
		}
	}
}

// TestPendingParamsBudget: the params of a session's requests in flight
// count against MaxPendingParamsBytes; beyond it a request is still
// remembered, without its params.
func TestPendingParamsBudget(t *testing.T) {
	s := &Session{pending: map[string]pending{}}
	p := make([]byte, MaxRequestParamsBytes)
	n := MaxPendingParamsBytes / MaxRequestParamsBytes
	for i := 0; i <= n; i++ {
		s.putPending(string(rune('a'+i%26))+strings.Repeat("x", i/26), pending{params: p})
	}
	if s.paramBytes != MaxPendingParamsBytes || len(s.pending) != n+1 {
		t.Fatalf("%d bytes kept for %d requests", s.paramBytes, len(s.pending))
	}
	for k := range s.pending {
		s.deletePending(k)
	}
	if s.paramBytes != 0 {
		t.Fatalf("%d bytes after every request was answered", s.paramBytes)
	}
	s.putPending("a", pending{params: p})
	s.putPending("a", pending{params: p[:10]})
	if s.paramBytes != 10 {
		t.Fatalf("a request id reused: %d bytes", s.paramBytes)
	}
}

func BenchmarkKeepParams(b *testing.B) {
	params := []byte(`{"uri": "aidefend-file://docs/guide/intro.md", "_meta": {"progressToken": 17}}`)
	b.SetBytes(int64(len(params)))
	b.ReportAllocs()
	for b.Loop() {
		keepParams("resources/read", params)
	}
}
