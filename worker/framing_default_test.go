package worker

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestWithFramingOption: an unknown framing is a configuration error.
func TestWithFramingOption(t *testing.T) {
	var c serveConfig
	if err := WithFraming("xml")(&c); !errors.Is(err, ErrConfig) {
		t.Fatalf("WithFraming(xml) = %v, want ErrConfig", err)
	}
	for _, f := range []pipeline.Framing{pipeline.FramingAuto, pipeline.FramingBare, pipeline.FramingJSONRPC} {
		if err := WithFraming(f)(&c); err != nil || c.framing != f {
			t.Fatalf("WithFraming(%q) = %v, framing %q", f, err, c.framing)
		}
		if got := c.framingFor(""); got != f {
			t.Fatalf("framingFor(\"\") = %q, want %q", got, f)
		}
		if got := c.framingFor("jsonrpc"); got != pipeline.FramingJSONRPC {
			t.Fatalf("framingFor(jsonrpc) = %q: the header must win", got)
		}
	}
}

// TestInlineDefaultFraming: a deployment that says its producers send bare
// results (WithFraming) has header-less bodies read as results, so members
// named like an envelope's are data and a JSON-RPC-looking body gets the
// result's labels; the header still decides where it is given.
func TestInlineDefaultFraming(t *testing.T) {
	s := serveTestServer(t)
	nc, _ := serveConnect(t, s.ClientURL())
	startService(t, nc, WithDurable(false), WithFraming(pipeline.FramingBare))
	envelope := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}]}}`
	for _, tc := range []struct {
		name, header, body, outcome, want string
	}{
		// Bare by default: the envelope-named members are the result's
		// data, and the result carries the sanitizer's labels at the top.
		{"default-bare", "", envelope, "clean", `"dev.mcp-sanitize/untrusted":true`},
		{"header-jsonrpc", "jsonrpc", envelope, "clean", `"id":7`},
		{"bare-result", "", `{"content":[{"type":"text","text":"ok"}]}`, "clean", "Untrusted tool output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := framedRequest(t, nc, tc.header, tc.body)
			if got := r.Header.Get(wire.HeaderOutcome); got != tc.outcome {
				t.Fatalf("outcome %q, want %q: %s", got, tc.outcome, r.Data)
			}
			if !strings.Contains(string(r.Data), tc.want) {
				t.Fatalf("reply %s, want %s", r.Data, tc.want)
			}
		})
	}
	// Under bare the top-level object is the result: its labels are the
	// last member of the top level, not of the envelope's result.
	r := framedRequest(t, nc, "", envelope)
	if !strings.HasSuffix(string(r.Data), `"dev.mcp-sanitize/removedChars":0}}`) || strings.Contains(string(r.Data), `"content":[{"type":"text","text":"Untrusted`) {
		t.Fatalf("header-less envelope under bare: %s", r.Data)
	}
}
