package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// fuzzSchemas are the outputSchemas FuzzStructured runs every input under:
// an object with a pattern, nested declared and undeclared members, and a
// free-form schema that declares nothing.
var fuzzSchemas = []string{
	`{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Za-z0-9_ .-]*$","maxLength":64},"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}},"meta":{"type":"object","properties":{"k":{"type":"string"}}}},"required":["id"]}`,
	`{}`,
}

// FuzzStructured feeds arbitrary messages through the outputSchema path
// under the default and small policies. The output is valid JSON; a
// delivered result has a structuredContent that conforms to the schema and
// from which projection drops nothing more, and as many texts as mirrors
// were recorded carry exactly the written structuredContent; a
// rejected pass writes exactly the fixed error result (with the schema
// digest); 7-byte reads give the same output and evidence.
func FuzzStructured(f *testing.F) {
	for _, c := range structuredCases() {
		f.Add(c.in)
	}
	f.Add([]byte(`{"content":[{"type":"text","text":"{\"id\":\"a\",\"x\":1}"}],"structuredContent":{"id":"a","x":1,"meta":{"k":"v","z":[1]}}}`))
	f.Add([]byte(`{"structuredContent":{"id":"a b","tags":["<system>","x"]},"content":[]}`))
	schemas := make([]*schema.Schema, len(fuzzSchemas))
	for i, raw := range fuzzSchemas {
		schemas[i] = compiledSchema(raw)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, pol := range []policyName{polDefault, polSmall} {
			e := checkedEngine(t, pol)
			for _, s := range schemas {
				info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: s}
				out, evj, ev := run(t, e, bytes.NewReader(in), info, nil)
				noInternal(t, ev)
				if msg := checkStructuredOutput(t, e, info, out, ev); msg != "" {
					t.Fatalf("%s policy, schema %s: %s", pol, s.Digest(), msg)
				}
				out7, evj7, _ := run(t, e, &kReader{b: in, k: 7}, info, nil)
				if !bytes.Equal(out7, out) || !bytes.Equal(evj7, evj) {
					t.Fatalf("%s policy: 7-byte reads differ:\n got %.2000s\n     %.2000s\nwant %.2000s\n     %.2000s", pol, out7, evj7, out, evj)
				}
			}
		}
	})
}

// checkStructuredOutput checks one output of the structured path and
// returns what is wrong, or "".
func checkStructuredOutput(t testing.TB, e *pipeline.Engine, info pipeline.MessageInfo, out []byte, ev *pipeline.Evidence) string {
	if !json.Valid(out) || !utf8.Valid(out) {
		return fmt.Sprintf("output is not valid JSON or UTF-8: %q", out)
	}
	if ev.SchemaSHA256 != info.OutputSchema.Digest() || ev.Schema == nil {
		return "evidence without the schema digest"
	}
	switch {
	case ev.Outcome == pipeline.OutcomeRejected:
		if want := errorResult(t, e, info, ev.Code, ev.Reason); !bytes.Equal(unwrapEnvelope(t, out), want) {
			return fmt.Sprintf("error result is not the fixed one:\n got %s\nwant %s", out, want)
		}
		return ""
	case ev.Code == pipeline.CodeToolError:
		return ""
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out, &top); err != nil {
		return "output is not an object"
	}
	res := top
	if r, ok := top["result"]; ok {
		if err := json.Unmarshal(r, &res); err != nil || res == nil {
			return "a delivered envelope whose result is not an object"
		}
	} else if envelopeKeys(top) {
		if _, ok := top["error"]; ok {
			return "" // a JSON-RPC error response: there is no result to check
		}
		return "a delivered envelope with neither a result nor an error"
	}
	raw, ok := res["structuredContent"]
	if !ok {
		return "a delivered result without structuredContent"
	}
	v, err := schema.Decode(raw, 0)
	if err != nil {
		return "structuredContent is not strict JSON: " + err.Error()
	}
	if viol := info.OutputSchema.Validate(v); viol != nil {
		return fmt.Sprintf("delivered structuredContent fails %s at %q", viol.Keyword, viol.InstancePointer)
	}
	if _, dropped := info.OutputSchema.Project(v); len(dropped) > 0 {
		return fmt.Sprintf("delivered structuredContent holds undeclared members %v", dropped)
	}
	var blocks []map[string]any
	json.Unmarshal(res["content"], &blocks)
	regenerated := 0
	for _, b := range blocks {
		if text, ok := b["text"].(string); ok && text == "Untrusted tool output from fuzz:\n"+string(raw) {
			regenerated++
		}
	}
	if regenerated < ev.Schema.Mirrors {
		return fmt.Sprintf("%d mirrors recorded, %d texts carry the written structuredContent", ev.Schema.Mirrors, regenerated)
	}
	return ""
}

// envelopeKeys reports whether a top-level object is a JSON-RPC envelope
// (a member the pass reads as the envelope's).
func envelopeKeys(top map[string]json.RawMessage) bool {
	for _, k := range []string{"jsonrpc", "id", "method", "params", "error"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// structuredDoc builds a tool result of about size bytes whose
// structuredContent is a list of users (with an undeclared member in each,
// and with secrets a secret every 64 records) and whose first text block
// mirrors it.
func structuredDoc(size int, secrets bool) []byte {
	var sc bytes.Buffer
	sc.WriteByte('[')
	for i := 0; sc.Len() < size/2; i++ {
		if i > 0 {
			sc.WriteByte(',')
		}
		note := "regular user"
		if secrets && i%64 == 0 {
			note = "token ghp_" + strings.Repeat("aB3dE6", 6)
		}
		fmt.Fprintf(&sc, `{"id":"u-%d","name":"User Number %d","email":"user%d@example.com","score":%d.5,"tags":["a","b","c"],"note":%q,"internal":{"shard":%d}}`, i, i, i, i, note, i%7)
	}
	sc.WriteByte(']')
	text, _ := json.Marshal(sc.String())
	return []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + sc.String() + `}`)
}

const benchUsersSchema = `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","pattern":"^u-[0-9]+$"},"name":{"type":"string","maxLength":200},"email":{"type":"string"},"score":{"type":"number","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string"}},"required":["id","name","email"]}}`

// BenchmarkStructured measures the structured path (hold, raw capture,
// strict decode of the raw and the sanitized value, validation twice,
// projection, validation of the projection, re-encoding, mirror compare and
// regeneration) against the same messages without a schema. "clean" has
// nothing to redact, so the sanitized value is the raw one and is decoded
// and validated once.
func BenchmarkStructured(b *testing.B) {
	e := engine(b, polBig, 64<<10)
	sch := compiledSchema(benchUsersSchema)
	for _, sz := range benchSizes {
		for _, mode := range []string{"schema", "schema-clean", "noschema"} {
			doc := structuredDoc(sz.n, mode != "schema-clean")
			info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
			if mode != "noschema" {
				info.OutputSchema = sch
			}
			b.Run(sz.name+"/"+mode, func(b *testing.B) {
				var out pipeline.Discarder
				r := bytes.NewReader(doc)
				ctx := context.Background()
				ev, err := e.Sanitize(ctx, r, &out, info)
				if err != nil || ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
					b.Fatalf("outcome %s %s %s %+v (%v)", ev.Outcome, ev.Code, ev.Reason, ev.Schema, err)
				}
				if mode != "noschema" && (ev.Schema.Mirrors != 1 || ev.Schema.ProjectedCount == 0) {
					b.Fatalf("schema record %+v", ev.Schema)
				}
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					r.Reset(doc)
					if _, err := e.Sanitize(ctx, r, &out, info); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
