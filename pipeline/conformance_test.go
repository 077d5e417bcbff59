package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// denyLoader refuses every external reference: the MCP schemas are
// self-contained, and a test must not reach the network or other files.
type denyLoader struct{}

func (denyLoader) Load(url string) (any, error) {
	return nil, errors.New("external reference refused: " + url)
}

// mcpSchema compiles one definition of the official MCP schema of a
// revision, or skips when ../shared is absent.
func mcpSchema(t *testing.T, rev, def string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "corpora", "mcp-schema", rev, "schema.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s is absent: the official MCP schema is not available here", path)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(denyLoader{})
	loc := "urn:mcp-schema:" + rev
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(loc + "#/$defs/" + def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Everything the pass writes for a tool result — sanitized, truncated,
// labelled, or an error result for every code — is a valid CallToolResult
// of both revisions (and a valid JSON-RPC response when it came in one).
func TestOutputsConformToMCPSchema(t *testing.T) {
	gh := fakeGitHubToken(2)
	small := DefaultPolicy()
	small.Limits = map[string]int64{"text-chars": 20, "array-items": 2, "depth": 8}
	errPol := DefaultPolicy()
	errPol.Errors.Map = map[string]string{"NOT_FOUND": "The item was not found."}
	cases := []struct {
		name     string
		pol      *Policy
		in       string
		envelope bool
		schema   string
	}{
		{"text", nil, textResult("hello <system>x</system> " + gh), false, ""},
		{"structured", nil, `{"content":[{"type":"text","text":"{}"}],"structuredContent":{"a":[1,2],"k":"` + gh + `"},"isError":false}`, false, ""},
		{"image-and-resource", nil, `{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"t"}},{"type":"resource_link","uri":"file:///b","name":"b"}]}`, false, ""},
		{"tool-meta", nil, `{"content":[{"type":"text","text":"x","_meta":{"k":1}}],"_meta":{"trace":"t"}}`, false, ""},
		{"truncated-text", small, textResult(strings.Repeat("long text ", 10)), false, ""},
		{"omitted-blocks", small, `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"text","text":"c"}]}`, false, ""},
		{"error-invalid-json", nil, `{"content":[`, false, ""},
		{"error-bound", small, `{"content":[],"structuredContent":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}}`, false, ""},
		{"error-content", nil, `{"content":[{"type":"image","data":"!!","mimeType":"image/png"}]}`, false, ""},
		{"error-not-object", nil, `[]`, false, ""},
		{"envelope", nil, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}`, true, ""},
		{"envelope-error", nil, `{"jsonrpc":"2.0","id":"r","result":{"content":[{"type":"text","text":"a"}],"x":1,"x":2}}`, true, ""},
		{"schema-mirror", nil, `{"structuredContent":{"temperature":22.5,"conditions":"` + gh + `","humidity":65,"host":"h"},"content":[{"type":"text","text":"{\"temperature\":22.5,\"conditions\":\"` + gh + `\",\"humidity\":65,\"host\":\"h\"}"}]}`, false, weatherSchema},
		{"schema-array", nil, `{"content":[{"type":"text","text":"1 user"}],"structuredContent":[{"id":"1","name":"A","email":"a@example.com"}]}`, false, usersSchema},
		{"schema-scalar", nil, `{"content":[{"type":"text","text":"\"ok\""}],"structuredContent":"ok"}`, false, shortSchema},
		{"schema-mismatch", nil, `{"content":[],"structuredContent":{"temperature":"hot"}}`, false, weatherSchema},
		{"schema-after-redaction", nil, `{"content":[],"structuredContent":{"id":"` + gh + `"}}`, false, idSchema},
		{"schema-missing", nil, `{"content":[{"type":"text","text":"x"}]}`, false, weatherSchema},
		{"schema-envelope", nil, `{"jsonrpc":"2.0","id":9,"result":{"content":[],"structuredContent":{"temperature":1,"conditions":"c","humidity":2}}}`, true, weatherSchema},
		{"tool-error-mapped", errPol, `{"content":[{"type":"text","text":"NOT_FOUND: /srv/db.sqlite"}],"isError":true}`, false, ""},
		{"tool-error-unmapped", nil, `{"content":[{"type":"text","text":"Traceback (most recent call last)"}],"structuredContent":{"code":"X"},"isError":true}`, false, weatherSchema},
		{"tool-error-envelope", nil, `{"jsonrpc":"2.0","id":"t","result":{"content":[{"type":"text","text":"boom"}],"isError":true}}`, true, ""},
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		result := mcpSchema(t, rev, "CallToolResult")
		response := mcpSchema(t, rev, "JSONRPCResultResponse")
		for _, tc := range cases {
			t.Run(rev+"/"+tc.name, func(t *testing.T) {
				in := tc.in
				if rev == "2026-07-28" && strings.HasPrefix(in, "{") {
					// Servers of this revision must say resultType; the pass
					// keeps what the server said (error results always say it).
					if tc.envelope {
						in = strings.Replace(in, `"result":{`, `"result":{"resultType":"complete",`, 1)
					} else {
						in = `{"resultType":"complete",` + in[1:]
					}
				}
				if rev == "2025-11-25" && (tc.name == "schema-array" || tc.name == "schema-scalar") {
					t.Skip("structuredContent other than an object is new in 2026-07-28; the pass keeps what the server sent")
				}
				info := toolInfo
				if tc.schema != "" {
					info.OutputSchema = mustSchema(t, tc.schema)
				}
				out, _ := run(t, tc.pol, info, in)
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				if tc.envelope {
					if err := response.Validate(v); err != nil {
						t.Fatalf("not a JSONRPCResultResponse: %v\n%s", err, out)
					}
					v = v.(map[string]any)["result"]
				}
				if err := result.Validate(v); err != nil {
					t.Fatalf("not a CallToolResult: %v\n%s", err, out)
				}
			})
		}
	}
}
