package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestContextFraming: the Mcp-Framing header reaches MessageInfo.Framing.
func TestContextFraming(t *testing.T) {
	for _, v := range []string{"", "bare", "jsonrpc", "auto", "xml"} {
		hdr := nats.Header{}
		if v != "" {
			hdr.Set(wire.HeaderFraming, v)
		}
		mc := newContext("inline", "tool-result", "acme", "files", hdr)
		if mc.info.Framing != pipeline.Framing(v) {
			t.Fatalf("header %q: framing %q", v, mc.info.Framing)
		}
	}
}

// TestInlineFraming: the producer's Mcp-Framing header decides whether a
// body is an envelope; a mixed body is rejected whatever it says.
func TestInlineFraming(t *testing.T) {
	s := serveTestServer(t)
	nc, _ := serveConnect(t, s.ClientURL())
	startService(t, nc, WithDurable(false))
	bare := `{"content":[{"type":"text","text":"ok"}]}`
	for _, tc := range []struct {
		name, framing, body, outcome, code, want string
	}{
		{"bare", "bare", bare, "clean", "", "Untrusted tool output"},
		{"jsonrpc-envelope", "jsonrpc", `{"jsonrpc":"2.0","id":2,"result":` + bare + `}`, "clean", "", `"id":2`},
		{"jsonrpc-bare-body", "jsonrpc", bare, "rejected", "INVALID_CONTENT", "envelope-mixed"},
		{"absent-mixed", "", `{"content":[{"type":"text","text":"at /srv/x.py:1"}],"isError":true,"id":1}`, "rejected", "INVALID_CONTENT", "envelope-mixed"},
		{"unknown", "xml", bare, "rejected", "INVALID_CONTENT", "unknown-framing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := framedRequest(t, nc, tc.framing, tc.body)
			if got := r.Header.Get(wire.HeaderOutcome); got != tc.outcome {
				t.Fatalf("outcome %q, want %q: %s", got, tc.outcome, r.Data)
			}
			if got := r.Header.Get(wire.HeaderCode); got != tc.code {
				t.Fatalf("code %q, want %q", got, tc.code)
			}
			if !strings.Contains(string(r.Data), tc.want) || strings.Contains(string(r.Data), "/srv/x.py") {
				t.Fatalf("reply %s", r.Data)
			}
		})
	}
}

// framedRequest sends body as an inline tool result of read_file, with the
// Mcp-Framing header when framing is not empty, and returns the reply.
func framedRequest(t *testing.T, nc *nats.Conn, framing, body string) *nats.Msg {
	t.Helper()
	m := nats.NewMsg("mcp.sanitize.tool-result")
	m.Header.Set(wire.HeaderTenant, "acme")
	m.Header.Set(wire.HeaderServer, "files")
	m.Header.Set(wire.HeaderTool, "read_file")
	if framing != "" {
		m.Header.Set(wire.HeaderFraming, framing)
	}
	m.Data = []byte(body)
	r, err := nc.RequestMsg(m, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
