package worker

import (
	"maps"
	"slices"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestReplyHeaderReuse: an inline reply built in a reused replyMsg has
// exactly the headers outputHeader gives, whatever the replies built in it
// before had (no header of an earlier reply is left over), and its subject
// and body.
func TestReplyHeaderReuse(t *testing.T) {
	full := nats.Header{}
	full.Set(wire.HeaderTenant, "acme")
	full.Set(wire.HeaderServer, "files")
	full.Set(wire.HeaderTool, "read_file")
	full.Set(wire.HeaderRequestID, "req-1\r\nX-Injected: 1")
	full.Set(wire.HeaderPolicy, "strict")
	full.Set(wire.HeaderTraceparent, testTraceparent)
	full.Set(wire.HeaderTracestate, "vendor=1")
	bare := nats.Header{}
	bare.Set(wire.HeaderTenant, "acme")
	encoded := nats.Header{}
	encoded.Set(wire.HeaderContentEncoding, "zstd")
	claim := nats.Header{}
	claim.Set(wire.HeaderClaim, "obj-7")
	claim.Set(wire.HeaderClaimBucket, "mcp-payloads")
	cases := []struct {
		name    string
		hdr     nats.Header
		ev      pipeline.Evidence
		bodyHdr nats.Header
	}{
		{"every identifier and trace context", full, pipeline.Evidence{Outcome: wire.OutcomeSanitized, Input: pipeline.Digest{Digest: "sha256:ab"}}, encoded},
		{"bare", bare, pipeline.Evidence{Outcome: wire.OutcomeClean}, nil},
		{"rejected", full, pipeline.Evidence{Outcome: wire.OutcomeRejected, Code: pipeline.CodeInvalidJSON}, nil},
		{"identifier secrets", full, pipeline.Evidence{Outcome: wire.OutcomeSanitized, IdentifierSecrets: 1, Tool: "[REDACTED]", Server: "files", Tenant: "acme", RequestID: "r"}, nil},
		{"claimed output", bare, pipeline.Evidence{Outcome: wire.OutcomeSanitized}, claim},
		{"bare again", bare, pipeline.Evidence{Outcome: wire.OutcomeClean}, nil},
	}
	// Every order of two cases: the second reply is built in the set the
	// first left (one set only: the pool is bypassed).
	r := &replyMsg{hs: newHeaderSet(16)}
	for _, a := range cases {
		for _, b := range cases {
			for _, tc := range []struct {
				name    string
				hdr     nats.Header
				ev      pipeline.Evidence
				bodyHdr nats.Header
			}{a, b} {
				mc := newContext(PathInline, "tool-result", tc.hdr.Get(wire.HeaderTenant), tc.hdr.Get(wire.HeaderServer), tc.hdr)
				ev := tc.ev
				res := result{ev: &ev, data: []byte(`{"content":[]}`), hdr: tc.bodyHdr}
				want := outputHeader(mc, res)
				r.hs.output(mc, res)
				r.msg = nats.Msg{Subject: "_INBOX.r", Header: r.hs.h, Data: res.data}
				if !headersEqual(r.msg.Header, want) {
					t.Fatalf("%s after %s: headers %v, want %v", tc.name, a.name, r.msg.Header, want)
				}
				if r.msg.Subject != "_INBOX.r" || string(r.msg.Data) != `{"content":[]}` {
					t.Fatalf("%s: subject %q, body %q", tc.name, r.msg.Subject, r.msg.Data)
				}
				r.msg = nats.Msg{}
				r.hs.reset()
				if len(r.hs.h) != 0 || len(r.hs.vals) != 0 {
					t.Fatalf("%s: reset left %v", tc.name, r.hs.h)
				}
			}
		}
	}
	// Through the pool, as handleInline does.
	mc := newContext(PathInline, "tool-result", "acme", "files", full)
	res := result{ev: &pipeline.Evidence{Outcome: wire.OutcomeSanitized}, data: []byte("{}")}
	p := newReply("_INBOX.p", mc, res)
	if !headersEqual(p.msg.Header, outputHeader(mc, res)) || p.msg.Subject != "_INBOX.p" {
		t.Fatalf("pooled reply %+v", p.msg)
	}
	p.release()
}

// headersEqual compares two headers' keys and values.
func headersEqual(a, b nats.Header) bool {
	return maps.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}
