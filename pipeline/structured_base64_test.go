package pipeline

import (
	"context"
	"encoding/base64"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// randomB64 is the standard base64 of n pseudo-random bytes that start with
// no known binary signature: what drives the bound is the schema keyword.
func randomB64(n int, seed int64) string {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	copy(b, "RND0")
	return base64.StdEncoding.EncodeToString(b)
}

// b64ChunkReader hands out its input size bytes at a time, so a string spans
// many reads.
type b64ChunkReader struct {
	s    string
	size int
}

func (r *b64ChunkReader) Read(b []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), r.size)], r.s)
	r.s = r.s[n:]
	return n, nil
}

// Item 18.2: members the outputSchema declares base64 (contentEncoding
// base64, format byte) are bounded as binary, not by string-chars, and
// must be standard base64.
func TestStructuredBase64(t *testing.T) {
	big := randomB64(900<<10, 1) // 1.2 M characters: over string-chars (1 Mi)
	const (
		encoded = `{"type":"object","properties":{"name":{"type":"string"},"data":{"type":"string","contentEncoding":"base64"}}}`
		byteFmt = `{"type":"object","properties":{"name":{"type":"string"},"data":{"type":"string","format":"byte"}}}`
		plain   = `{"type":"object","properties":{"name":{"type":"string"},"data":{"type":"string"}}}`
		listRef = `{"$defs":{"img":{"type":"string","contentEncoding":"base64"}},"type":"object","properties":{"images":{"type":"array","items":{"$ref":"#/$defs/img"}}}}`
	)
	doc := func(data string) string {
		return `{"content":[],"structuredContent":{"name":"scan.png","data":"` + data + `"}}`
	}
	tests := []struct {
		name   string
		schema string
		in     string
		limits map[string]int64
		code   Code   // "" delivered
		reason string // of the rejection
		ptr    string
		keep   string // delivered: the output holds it
	}{
		{name: "contentEncoding-900KB-random", schema: encoded, in: doc(big), keep: big},
		{name: "format-byte-900KB-random", schema: byteFmt, in: doc(big), keep: big},
		{name: "no-keyword-900KB-random", schema: plain, in: doc(big), code: CodeBoundExceeded, reason: "string-chars", ptr: "/structuredContent/data"},
		{name: "items-via-ref", schema: listRef, in: `{"content":[],"structuredContent":{"images":["QUJD","` + big + `"]}}`, keep: big},
		{name: "short-valid-padded", schema: encoded, in: doc("QQ=="), keep: `"QQ=="`},
		{name: "empty-is-valid", schema: encoded, in: doc(""), keep: `"data":""`},
		{name: "invalid-short", schema: encoded, in: doc("not base64!"), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64), ptr: "/structuredContent/data"},
		{name: "invalid-format-byte", schema: byteFmt, in: doc("a-b_"), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64), ptr: "/structuredContent/data"},
		{name: "not-whole-quantum", schema: encoded, in: doc("QUJDRA"), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64)},
		{name: "padding-inside", schema: encoded, in: doc("QQ==QUJD"), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64)},
		{name: "invalid-after-string-chars", schema: encoded, in: doc(big + "*AAA"), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64)},
		{name: "line-breaks", schema: encoded, in: doc(big[:76] + `\n` + big[76:152]), code: CodeInvalidContent, reason: string(wire.ReasonBadBase64)},
		{name: "over-binary-bytes", schema: encoded, in: doc(big), limits: map[string]int64{"binary-bytes": 512 << 10}, code: CodeBoundExceeded, reason: "binary-bytes", ptr: "/structuredContent/data"},
		{name: "envelope-900KB", schema: encoded, in: `{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"name":"a","data":"` + big + `"}}}`, keep: big},
		{name: "envelope-invalid", schema: encoded, in: `{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"name":"a","data":"QUJD!"}}}`,
			code: CodeInvalidContent, reason: string(wire.ReasonBadBase64), ptr: "/result/structuredContent/data"},
		{name: "sibling-text-keeps-string-chars", schema: encoded, in: `{"content":[],"structuredContent":{"name":"` + strings.Repeat("a", 80) + `","data":"QUJD"}}`,
			limits: map[string]int64{"string-chars": 40}, code: CodeBoundExceeded, reason: "string-chars", ptr: "/structuredContent/name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol := DefaultPolicy()
			pol.Limits = tc.limits
			info := MessageInfo{Kind: KindToolResult, Tool: "read_media_file", OutputSchema: mustSchema(t, tc.schema)}
			out, ev := run(t, pol, info, tc.in)
			if tc.code == "" {
				if ev.Outcome == OutcomeRejected {
					t.Fatalf("rejected: %s %s at %s", ev.Code, ev.Reason, ev.ErrorPointer)
				}
				if !strings.Contains(out, tc.keep) {
					t.Fatal("the declared base64 member is not delivered whole")
				}
				if ev.Schema == nil || ev.Schema.Outcome != "valid" {
					t.Fatalf("schema record %+v", ev.Schema)
				}
				return
			}
			if ev.Outcome != OutcomeRejected || ev.Code != tc.code || ev.Reason != tc.reason {
				t.Fatalf("got %s %s %s, want %s %s", ev.Outcome, ev.Code, ev.Reason, tc.code, tc.reason)
			}
			if tc.ptr != "" && ev.ErrorPointer != tc.ptr {
				t.Fatalf("pointer %q, want %q", ev.ErrorPointer, tc.ptr)
			}
			want := wire.ReasonPublicMessage(wire.Code(tc.code), wire.Reason(tc.reason))
			if !strings.Contains(out, want) {
				t.Fatalf("error text is not the one of the bound: %s", out)
			}
			if tc.reason == "binary-bytes" && (!strings.Contains(out, wire.BinaryBoundMessage) || strings.Contains(out, "fewer fields")) {
				t.Fatalf("binary bound message: %s", out)
			}
			if strings.Contains(out, big[:64]) {
				t.Fatal("rejected output holds the data")
			}
		})
	}
}

// The same result fed in small reads sanitizes to the same bytes: the
// location is known at every string start, whatever the chunking.
func TestStructuredBase64Chunked(t *testing.T) {
	big := randomB64(300<<10, 2)
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"string-chars": 4096}
	e, err := NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	info := MessageInfo{Kind: KindToolResult, Tool: "read_media_file",
		OutputSchema: mustSchema(t, `{"type":"object","properties":{"files":{"type":"array","items":{"type":"object","properties":{"blob":{"format":"byte"}}}}}}`)}
	in := `{"content":[],"structuredContent":{"files":[{"blob":"QUJD"},{"blob":"` + big + `"}]}}`
	var whole, parts Buffer
	evW, err := e.Sanitize(context.Background(), strings.NewReader(in), &whole, info)
	if err != nil {
		t.Fatal(err)
	}
	evP, err := e.Sanitize(context.Background(), &b64ChunkReader{s: in, size: 1021}, &parts, info)
	if err != nil {
		t.Fatal(err)
	}
	if evW.Outcome == OutcomeRejected || evP.Outcome == OutcomeRejected {
		t.Fatalf("rejected: %s %s / %s %s", evW.Code, evW.Reason, evP.Code, evP.Reason)
	}
	if whole.String() != parts.String() || !strings.Contains(whole.String(), big) {
		t.Fatal("chunked input sanitized differently, or the blob is not whole")
	}
}
