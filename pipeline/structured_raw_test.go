package pipeline_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// rawSchemas are outputSchemas whose keywords schema.ValidRaw handles
// (so the structured path takes finishRaw), besides fuzzSchemas: a listing
// of closed objects, and one that declares members by required only.
var rawSchemas = []string{
	`{"type":"object","properties":{"id":{"type":"string","maxLength":64},"n":{"type":"integer","minimum":0},` +
		`"tags":{"type":"array","items":{"type":"string"}},"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},"required":["id"],` +
		`"$defs":{"item":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number","maximum":10}},"required":["a"],"additionalProperties":false}}}`,
	`{"type":"object","required":["id","n"]}`,
}

// sameWithoutRaw sanitizes in with e and with the same engine without the
// raw path and fails on any difference of output or evidence.
func sameWithoutRaw(t *testing.T, e, tree *pipeline.Engine, s *schema.Schema, in []byte) {
	t.Helper()
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: s}
	out, evj, _ := run(t, e, bytes.NewReader(in), info, nil)
	wantOut, wantEv, _ := run(t, tree, bytes.NewReader(in), info, nil)
	if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
		t.Fatalf("raw path differs from the tree (schema %s):\n got %.1500s\n     %.1500s\nwant %.1500s\n     %.1500s", s.Digest(), out, evj, wantOut, wantEv)
	}
}

// FuzzStructuredRaw: the structured path with schema.ValidRaw (finishRaw)
// writes the same output and evidence as the path that decodes, validates
// and projects every value, under the default and small policies.
func FuzzStructuredRaw(f *testing.F) {
	for _, c := range structuredCases() {
		f.Add(c.in)
	}
	f.Add([]byte(`{"content":[{"type":"text","text":"{\"id\":\"a\",\"n\":1,\"items\":[{\"a\":\"x\",\"b\":2}]}"}],"structuredContent":{"id":"a","n":1,"items":[{"a":"x","b":2}]}}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"{\"id\":\"a\\/b\",\"n\":1}"}],"structuredContent":{"id":"a\/b","n":1,"tags":["<system>","ok"]}}`))
	f.Add([]byte(`{"structuredContent":{"id":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB","n":1},"content":[{"type":"text","text":"{\"n\":1,\"id\":\"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"}"}]}`))
	f.Add([]byte(`{"structuredContent":{"id":"a","n":1,"id":"b"},"content":[]}`))
	var schemas []*schema.Schema
	for _, raw := range append(append([]string{}, fuzzSchemas...), rawSchemas...) {
		schemas = append(schemas, compiledSchema(raw))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, pol := range []policyName{polDefault, polSmall} {
			e := checkedEngine(t, pol)
			tree := treeEngine(t, pol)
			for _, s := range schemas {
				sameWithoutRaw(t, e, tree, s, in)
			}
		}
	})
}

var treeEngines = map[policyName]*pipeline.Engine{}

var checkedEngines = map[policyName]*pipeline.Engine{}

// checkedEngine is the policy's engine that checks the pass's account of
// whether sanitizing changed structuredContent against the texts
// (pipeline.WithSameCheck): a wrong account is an internal fault.
func checkedEngine(t testing.TB, pol policyName) *pipeline.Engine {
	if e := checkedEngines[pol]; e != nil {
		return e
	}
	e := pipeline.WithSameCheck(engine(t, pol, 512))
	checkedEngines[pol] = e
	return e
}

func treeEngine(t testing.TB, pol policyName) *pipeline.Engine {
	if e := treeEngines[pol]; e != nil {
		return e
	}
	e := pipeline.WithoutRawSchema(engine(t, pol, 512))
	treeEngines[pol] = e
	return e
}

// TestStructuredRawMix runs the generated mix's results that carry an
// outputSchema (code searches: listings mirrored in a text block, some
// with a planted secret, tag or invisible run) through both paths.
func TestStructuredRawMix(t *testing.T) {
	n := 0
	for _, d := range bench.Mix(bench.MixOptions{Seed: 7, Records: 60}) {
		if d.OutputSchema == nil {
			continue
		}
		s, err := schema.Compile(d.OutputSchema, schema.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !s.ValidRaw(mustStructured(t, d.JSON), 0, nil) {
			t.Fatalf("the generated listing is not answered by ValidRaw: %.300s", d.JSON)
		}
		for _, pol := range []policyName{polDefault, polSmall} {
			sameWithoutRaw(t, checkedEngine(t, pol), treeEngine(t, pol), s, d.JSON)
		}
		n++
	}
	if n == 0 {
		t.Fatal("the mix has no result with an outputSchema")
	}
}

// mustStructured returns the raw text of the structuredContent member of
// a result.
func mustStructured(t *testing.T, doc []byte) []byte {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || top["structuredContent"] == nil {
		t.Fatalf("no structuredContent (%v)", err)
	}
	return top["structuredContent"]
}
