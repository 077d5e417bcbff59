package records

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestRecordShapeHardening: duplicate record members, colliding names in
// the echoed outputSchema and the record's framing.
func TestRecordShapeHardening(t *testing.T) {
	res := `{"content":[{"type":"text","text":"ok"}]}`
	sch := `{"type":"object"}`
	for _, tc := range []struct {
		name    string
		line    string
		framing pipeline.Framing // Options.Framing
		code    pipeline.Code    // "" : delivered
		reason  string
		schema  bool // the outputSchema is echoed (not null)
	}{
		{name: "plain", line: `{"tool":"t","result":` + res + `}`},
		{name: "duplicate-result", line: `{"tool":"t","result":{"content":[],"isError":true},"result":` + res + `}`, code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: "duplicate-tool", line: `{"tool":"a","tool":"b","result":` + res + `}`, code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: "duplicate-outputSchema", line: `{"outputSchema":{"type":"string"},"outputSchema":` + sch + `,"result":` + res + `}`, code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: "duplicate-by-escape", line: `{"tool":"t","result":` + res + `,"res\u0075lt":` + res + `}`, code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: "duplicate-unknown-member", line: `{"x":1,"x":2,"result":` + res + `}`, code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		// "ﬁeld" (U+FB01) and "field" are two names of the schema and one
		// name once normalized.
		{name: "schema-key-collision", line: `{"tool":"t","outputSchema":{"type":"object","properties":{"ﬁeld":{"type":"string"},"field":{"type":"string"}}},"result":{"content":[],"structuredContent":{"field":"a"}}}`,
			code: pipeline.CodeSchemaInvalid, reason: "schema-key-collision"},
		{name: "schema-key-collision-invisible", line: `{"tool":"t","outputSchema":{"type":"object","properties":{"a\u200bb":{},"ab":{}}},"result":{"content":[],"structuredContent":{}}}`,
			code: pipeline.CodeSchemaInvalid, reason: "schema-key-collision"},
		{name: "schema-distinct-keys", line: `{"tool":"t","outputSchema":{"type":"object","properties":{"a":{},"b":{}}},"result":{"content":[],"structuredContent":{}}}`, schema: true},
		{name: "framing-jsonrpc-bare-body", line: `{"framing":"jsonrpc","result":` + res + `}`, code: pipeline.CodeInvalidContent, reason: "envelope-mixed"},
		{name: "framing-jsonrpc-envelope", line: `{"framing":"jsonrpc","result":{"jsonrpc":"2.0","id":1,"result":` + res + `}}`},
		{name: "framing-bare-mixed", line: `{"framing":"bare","result":{"content":[],"id":1}}`, code: pipeline.CodeInvalidContent, reason: "envelope-mixed"},
		{name: "framing-unknown", line: `{"framing":"xml","result":` + res + `}`, code: pipeline.CodeInvalidContent, reason: "unknown-framing"},
		{name: "framing-not-a-string", line: `{"framing":1,"result":` + res + `}`, code: pipeline.CodeInvalidContent, reason: "unknown-framing"},
		{name: "options-framing", line: `{"result":` + res + `}`, framing: pipeline.FramingJSONRPC, code: pipeline.CodeInvalidContent, reason: "envelope-mixed"},
		{name: "record-framing-over-options", line: `{"framing":"bare","result":` + res + `}`, framing: pipeline.FramingJSONRPC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err, out, errs := runRecords(t, tc.line+"\n", Options{Framing: tc.framing}, dir+"/ev.jsonl")
			if err != nil {
				t.Fatalf("run: %v %s", err, errs)
			}
			var rec struct {
				OutputSchema json.RawMessage `json:"outputSchema"`
				Result       struct {
					Meta map[string]any `json:"_meta"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(out), &rec); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			meta := rec.Result.Meta
			if meta == nil { // an envelope's result
				var env struct {
					Result struct {
						Result struct {
							Meta map[string]any `json:"_meta"`
						} `json:"result"`
					} `json:"result"`
				}
				json.Unmarshal([]byte(out), &env)
				meta = env.Result.Result.Meta
			}
			code, _ := meta[pipeline.MetaPrefix+"code"].(string)
			reason, _ := meta[pipeline.MetaPrefix+"reason"].(string)
			if code != string(tc.code) || reason != tc.reason {
				t.Fatalf("code %q reason %q, want %q %q: %s", code, reason, tc.code, tc.reason, out)
			}
			if tc.code == pipeline.CodeSchemaInvalid && string(rec.OutputSchema) != "null" {
				t.Fatalf("a refused schema echoed: %s", out)
			}
			if tc.schema && (string(rec.OutputSchema) == "null" || strings.Count(string(rec.OutputSchema), `"a"`) != 1) {
				t.Fatalf("schema not echoed: %s", out)
			}
		})
	}
}
