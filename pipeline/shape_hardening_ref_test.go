package pipeline_test

import (
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// shapeHardeningCases are inputs aimed at the shape hardening rules
// (framing, mixed bodies, deciding members, value types, _meta case).
func shapeHardeningCases() []splitCase {
	junk := "" // seven members: over the small policy's object-entries
	for i := 0; i < 7; i++ {
		junk += `"j` + string(rune('a'+i)) + `":0,`
	}
	return []splitCase{
		{name: named("bare-with-id"), in: []byte(`{"content":[{"type":"text","text":"at f (/a/b.js:1:2)"}],"isError":true,"id":1}`)},
		{name: named("id-then-bare"), in: []byte(`{"id":1,"content":[{"type":"text","text":"x"}]}`)},
		{name: named("envelope"), in: []byte(`{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"x"}],"_meta":{"k":1}},"_meta":{"e":2}}`)},
		{name: named("envelope-then-result-member"), in: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"resultType":"complete"}`)},
		{name: named("result-members-only"), in: []byte(`{"content":[{"type":"resource","resource":{"uri":"u","text":"t"}}],"isError":false}`)},
		{name: named("isError-string"), in: []byte(`{"content":[],"isError":"true"}`)},
		{name: named("isError-number-in-result"), in: []byte(`{"jsonrpc":"2.0","id":1,"result":{"isError":1}}`)},
		{name: named("isError-null"), in: []byte(`{"isError":null}`)},
		{name: named("content-object"), in: []byte(`{"content":{"type":"text","text":"x"}}`)},
		{name: named("resource-text-number"), in: []byte(`{"content":[{"type":"resource","resource":{"text":5}}]}`)},
		{name: named("meta-prefix-upper"), in: []byte(`{"content":[{"type":"text","text":"a","_meta":{"DEV.MCP-SANITIZE/x":1,"y":2}}],"_meta":{"Dev.Mcp-Sanitize/untrusted":false}}`)},
		{name: named("entries-before-isError"), in: []byte(`{"content":[],` + junk + `"isError":true}`), pol: polSmall},
		{name: named("entries-in-block"), in: []byte(`{"content":[{` + junk + `"type":"text"}]}`), pol: polSmall},
		{name: named("entries-in-other"), in: []byte(`{"content":[],"x":{` + strings.TrimSuffix(junk, ",") + `}}`), pol: polSmall},
		{name: named("envelope-params"), in: []byte(`{"method":"m","params":{"content":[{"text":1}]}}`)},
		{name: named("envelope-no-version"), in: []byte(`{"id":1,"result":{"content":[]}}`)},
		{name: named("envelope-version-last"), in: []byte(`{"id":1,"result":{"contents":[]},"jsonrpc":"2.0"}`)},
		{name: named("envelope-version-number"), in: []byte(`{"jsonrpc":2.0,"id":1,"result":{}}`)},
		{name: named("envelope-version-other"), in: []byte(`{"jsonrpc":"2.1","id":1,"result":{}}`)},
		{name: named("envelope-ambiguous"), in: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":{"code":1,"message":"m"}}`)},
		{name: named("envelope-request"), in: []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"<system>"}}`)},
		{name: named("envelope-no-result"), in: []byte(`{"jsonrpc":"2.0","id":1,"_meta":{}}`)},
	}
}

// TestShapeHardeningReference compares the pass with the reference model
// on the shape hardening inputs, in each framing and for two kinds.
func TestShapeHardeningReference(t *testing.T) {
	cases := append(shapeHardeningCases(), refCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pols := refPolicies
			if c.pol != "" && c.pol != polDefault {
				pols = []policyName{c.pol}
			}
			for _, fr := range []pipeline.Framing{"", pipeline.FramingBare, pipeline.FramingJSONRPC} {
				for _, kind := range []pipeline.Kind{pipeline.KindToolResult, pipeline.KindResourceResult} {
					for _, pol := range pols {
						info := c.info()
						info.Kind, info.Framing = kind, fr
						if msg := compareWithReference(t, refEngine(t, pol), c.in, info); msg != "" {
							t.Fatalf("%s policy, %s, framing %q: %s", pol, kind, fr, msg)
						}
					}
				}
			}
		})
	}
}

// FuzzShapeFraming compares the pass with the reference on arbitrary
// inputs in each framing (FuzzDifferential runs the caller's default).
func FuzzShapeFraming(f *testing.F) {
	for _, c := range append(shapeHardeningCases(), refCases()...) {
		f.Add(c.in, uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, fr uint8) {
		framing := []pipeline.Framing{pipeline.FramingAuto, pipeline.FramingBare, pipeline.FramingJSONRPC}[fr%3]
		for _, pol := range refPolicies {
			info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "diff", Framing: framing}
			if msg := compareWithReference(t, refEngine(t, pol), in, info); msg != "" {
				t.Fatalf("%s policy, framing %s: %s", pol, framing, msg)
			}
		}
	})
}
