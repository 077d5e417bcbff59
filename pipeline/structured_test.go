package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// Schemas of the structured-path tables.
const (
	weatherSchema = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"},"humidity":{"type":"number"}},"required":["temperature","conditions","humidity"]}`
	usersSchema   = `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"email":{"type":"string"}},"required":["id","name","email"]}}`
	idSchema      = `{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Za-z0-9_]+$"},"n":{"type":"integer"}},"required":["id"]}`
	shortSchema   = `{"type":"string","maxLength":40}`
	countSchema   = `{"type":"integer","minimum":0}`
	nullSchema    = `{"type":"null"}`
	boolSchema    = `{"type":"boolean"}`
	codeSchema    = `{"type":"object","properties":{"code":{"type":"string"}}}`
)

// caseAt returns s followed by the file and line of the caller, so a
// failing case points to the line that defines it.
func caseAt(s string) string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s(%s:%d)", s, filepath.Base(file), line)
}

func mustSchema(t testing.TB, raw string) *schema.Schema {
	t.Helper()
	s, err := schema.Compile([]byte(raw), schema.Limits{})
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return s
}

// result is a decoded tool result, bare or in an envelope.
type result struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
	Meta       map[string]any  `json:"_meta"`
}

func decodeResult(t testing.TB, out string) result {
	t.Helper()
	var env struct {
		Result *result `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); err == nil && env.Result != nil {
		return *env.Result
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not a result: %v\n%s", err, out)
	}
	return r
}

func TestStructuredPath(t *testing.T) {
	gh := fakeGitHubToken(7)
	noProj := DefaultPolicy()
	off := false
	noProj.Schema.Projection = &off
	tiny := DefaultPolicy()
	tiny.Limits = map[string]int64{StructuredBytesLimit: 64}
	weather := `{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}`
	weatherOut := `{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}`
	for _, tc := range []struct {
		name       string
		schema     string
		pol        *Policy
		in         string
		code       Code     // "" for a delivered result
		reason     string   // of a rejection
		ptr        string   // evidence errorPointer of a rejection
		kw         string   // evidence schema keyword
		outcome    string   // evidence schema outcome
		structured string   // expected structuredContent (compact), for delivered results
		texts      []string // expected texts without the label, for delivered results
		projected  []string
		mirrors    int
	}{
		{name: caseAt("conforming, mirror first"), schema: weatherSchema,
			in:         `{"content":[{"type":"text","text":"{\"temperature\": 22.5, \"conditions\": \"Partly cloudy\", \"humidity\": 65}"}],"structuredContent":` + weather + `}`,
			structured: weatherOut, texts: []string{weatherOut}, outcome: "valid", mirrors: 1},
		{name: caseAt("conforming, structuredContent before content"), schema: weatherSchema,
			in:         `{"structuredContent":` + weather + `,"isError":false,"content":[{"type":"text","text":"{\n  \"humidity\": 65.0,\n  \"temperature\": 2.25e1,\n  \"conditions\": \"Partly cloudy\"\n}"}]}`,
			structured: weatherOut, texts: []string{weatherOut}, outcome: "valid", mirrors: 1},
		{name: caseAt("summary text is not a mirror"), schema: usersSchema,
			in:         `{"content":[{"type":"text","text":"Found 2 users."}],"structuredContent":[{"id":"1","name":"Alice","email":"a@example.com"},{"id":"2","name":"Bob","email":"b@example.com"}]}`,
			structured: `[{"id":"1","name":"Alice","email":"a@example.com"},{"id":"2","name":"Bob","email":"b@example.com"}]`, texts: []string{"Found 2 users."}, outcome: "valid"},
		{name: caseAt("JSON text that differs is not a mirror"), schema: weatherSchema,
			in:         `{"content":[{"type":"text","text":"{\"temperature\":1}"}],"structuredContent":` + weather + `}`,
			structured: weatherOut, texts: []string{`{"temperature":1}`}, outcome: "valid"},
		{name: caseAt("string structuredContent"), schema: shortSchema,
			in:         `{"content":[{"type":"text","text":"\"hello\""}],"structuredContent":"hello"}`,
			structured: `"hello"`, texts: []string{`"hello"`}, outcome: "valid", mirrors: 1},
		{name: caseAt("number structuredContent"), schema: countSchema,
			in: `{"structuredContent":42,"content":[{"type":"text","text":"42"}]}`, structured: `42`, texts: []string{"42"}, outcome: "valid", mirrors: 1},
		{name: caseAt("null structuredContent"), schema: nullSchema,
			in: `{"content":[],"structuredContent":null}`, structured: `null`, texts: []string{}, outcome: "valid"},
		{name: caseAt("boolean structuredContent"), schema: boolSchema,
			in: `{"content":[],"structuredContent":true}`, structured: `true`, texts: []string{}, outcome: "valid"},
		{name: caseAt("no content at all"), schema: boolSchema,
			in: `{"structuredContent":false}`, structured: `false`, outcome: "valid"},
		{name: caseAt("projection drops an undeclared property"), schema: weatherSchema,
			in:         `{"content":[{"type":"text","text":"{\"temperature\":22.5,\"conditions\":\"Partly cloudy\",\"humidity\":65,\"host\":\"db-7.internal\"}"}],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65,"host":"db-7.internal"}}`,
			structured: `{"conditions":"Partly cloudy","humidity":65,"temperature":22.5}`, texts: []string{`{"conditions":"Partly cloudy","humidity":65,"temperature":22.5}`},
			outcome: "valid", projected: []string{"/host"}, mirrors: 1},
		{name: caseAt("projection off keeps it"), schema: weatherSchema, pol: noProj,
			in:         `{"content":[],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65,"host":"db-7.internal"}}`,
			structured: `{"temperature":22.5,"conditions":"Partly cloudy","humidity":65,"host":"db-7.internal"}`, texts: []string{}, outcome: "valid"},
		{name: caseAt("secret in a mirrored structure is redacted in both"), schema: codeSchema,
			in:         `{"content":[{"type":"text","text":"{\"code\":\"` + gh + `\"}"}],"structuredContent":{"code":"` + gh + `"}}`,
			structured: `{"code":"[REDACTED:github-pat]"}`, texts: []string{`{"code":"[REDACTED:github-pat]"}`}, outcome: "valid", mirrors: 1},
		{name: caseAt("non-conforming"), schema: weatherSchema,
			in:   `{"content":[{"type":"text","text":"x"}],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":"sixty-five"}}`,
			code: CodeSchemaMismatch, reason: "type", ptr: "/structuredContent/humidity", kw: "type", outcome: "mismatch"},
		{name: caseAt("missing required"), schema: weatherSchema,
			in:   `{"content":[],"structuredContent":{"temperature":22.5}}`,
			code: CodeSchemaMismatch, reason: "required", ptr: "/structuredContent", kw: "required", outcome: "mismatch"},
		{name: caseAt("missing structuredContent"), schema: weatherSchema,
			in:   `{"content":[{"type":"text","text":"22.5 degrees"}]}`,
			code: CodeSchemaMismatch, reason: "structured-content-missing", ptr: "/structuredContent", outcome: "missing"},
		{name: caseAt("array where an object is declared"), schema: weatherSchema,
			in:   `{"content":[],"structuredContent":[1,2]}`,
			code: CodeSchemaMismatch, reason: "type", ptr: "/structuredContent", kw: "type", outcome: "mismatch"},
		{name: caseAt("redaction breaks a pattern"), schema: idSchema,
			in:   `{"content":[],"structuredContent":{"id":"` + gh + `","n":1}}`,
			code: CodeSchemaMismatchAfterRedaction, reason: "pattern", ptr: "/structuredContent/id", kw: "pattern", outcome: "mismatch-after-redaction"},
		{name: caseAt("normalization breaks a length"), schema: shortSchema,
			in:   `{"content":[],"structuredContent":"` + strings.Repeat("ﬁ", 30) + `"}`,
			code: CodeSchemaMismatchAfterRedaction, reason: "maxLength", ptr: "/structuredContent", kw: "maxLength", outcome: "mismatch-after-redaction"},
		{name: caseAt("envelope"), schema: weatherSchema,
			in:   `{"jsonrpc":"2.0","id":5,"result":{"content":[],"structuredContent":{"temperature":"hot"}}}`,
			code: CodeSchemaMismatch, reason: "type", ptr: "/result/structuredContent/temperature", kw: "type", outcome: "mismatch"},
		{name: caseAt("envelope conforming"), schema: weatherSchema,
			in:         `{"jsonrpc":"2.0","id":5,"result":{"structuredContent":` + weather + `,"content":[{"type":"text","text":"` + strings.ReplaceAll(weather, `"`, `\"`) + `"}]}}`,
			structured: weatherOut, texts: []string{weatherOut}, outcome: "valid", mirrors: 1},
		{name: caseAt("envelope without a result"), schema: weatherSchema,
			in:   `{"jsonrpc":"2.0","id":5}`,
			code: CodeSchemaMismatch, reason: "structured-content-missing", ptr: "/result/structuredContent", outcome: "missing"},
		{name: caseAt("envelope with only an id"), schema: weatherSchema,
			in:   `{"id":{}}`,
			code: CodeSchemaMismatch, reason: "structured-content-missing", ptr: "/result/structuredContent", outcome: "missing"},
		{name: caseAt("structuredContent beside the envelope, not in its result"), schema: weatherSchema,
			in:   `{"jsonrpc":"2.0","id":5,"structuredContent":` + weather + `}`,
			code: CodeInvalidContent, reason: "envelope-mixed", ptr: "/structuredContent"},
		{name: caseAt("envelope whose result is not an object"), schema: weatherSchema,
			in:   `{"jsonrpc":"2.0","id":5,"result":[` + weather + `]}`,
			code: CodeInvalidContent, reason: "result-not-object", ptr: "/result"},
		{name: caseAt("structured-bytes"), schema: weatherSchema, pol: tiny,
			in:   `{"content":[],"structuredContent":{"temperature":22.5,"conditions":"` + strings.Repeat("c", 80) + `","humidity":65}}`,
			code: CodeBoundExceeded, reason: "structured-bytes", ptr: "/structuredContent"},
		{name: caseAt("content over structured-bytes"), schema: weatherSchema, pol: tiny,
			in:   `{"content":[{"type":"text","text":"` + strings.Repeat("t", 80) + `"}],"structuredContent":{"temperature":1,"conditions":"c","humidity":2}}`,
			code: CodeBoundExceeded, reason: "structured-bytes", ptr: "/content"},
		{name: caseAt("a number exact arithmetic cannot parse"), schema: weatherSchema,
			in:   `{"content":[],"structuredContent":{"temperature":0e10000000000000000000,"conditions":"c","humidity":1}}`,
			code: CodeSchemaMismatch, reason: "structured-content-invalid", ptr: "/structuredContent", kw: "json", outcome: "mismatch"},
		{name: caseAt("invalid UTF-8 in the raw value"), schema: shortSchema,
			in:   "{\"content\":[],\"structuredContent\":\"a\xffb\"}",
			code: CodeSchemaMismatch, reason: "structured-content-invalid", ptr: "/structuredContent", kw: "json", outcome: "mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema)
			info := MessageInfo{Kind: KindToolResult, Tool: "search", OutputSchema: s}
			out, ev := run(t, tc.pol, info, tc.in)
			if ev.SchemaSHA256 != s.Digest() || !strings.HasPrefix(ev.SchemaSHA256, "sha256:") {
				t.Fatalf("evidence digest %q, want %q", ev.SchemaSHA256, s.Digest())
			}
			r := decodeResult(t, out)
			if r.Meta[MetaPrefix+"outputSchema"] != s.Digest() {
				t.Fatalf("_meta without the schema digest: %s", out)
			}
			evj, _ := json.Marshal(ev)
			for _, leak := range []string{gh, "sixty-five", "db-7.internal", "Partly cloudy", "hot"} {
				if strings.Contains(string(evj), leak) {
					t.Fatalf("evidence holds %q: %s", leak, evj)
				}
			}
			if tc.outcome != "" && (ev.Schema == nil || ev.Schema.Outcome != tc.outcome || ev.Schema.Keyword != tc.kw) {
				t.Fatalf("schema record %+v, want outcome %s keyword %s", ev.Schema, tc.outcome, tc.kw)
			}
			if tc.code != "" {
				if ev.Outcome != OutcomeRejected || ev.Code != tc.code || ev.Reason != tc.reason || ev.ErrorPointer != tc.ptr {
					t.Fatalf("got %s %s %s %q, want rejected %s %s %q", ev.Outcome, ev.Code, ev.Reason, ev.ErrorPointer, tc.code, tc.reason, tc.ptr)
				}
				if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != label+tc.code.PublicMessage() || r.Structured != nil {
					t.Fatalf("not the error result: %s", out)
				}
				if r.Meta[MetaPrefix+"code"] != string(tc.code) {
					t.Fatalf("code not in _meta: %s", out)
				}
				return
			}
			if ev.Outcome == OutcomeRejected {
				t.Fatalf("rejected: %s %s at %s (%+v)", ev.Code, ev.Reason, ev.ErrorPointer, ev.Schema)
			}
			if string(r.Structured) != tc.structured {
				t.Fatalf("structuredContent %s, want %s", r.Structured, tc.structured)
			}
			if tc.texts != nil {
				if len(r.Content) != len(tc.texts) {
					t.Fatalf("%d blocks, want %d: %s", len(r.Content), len(tc.texts), out)
				}
				for i, want := range tc.texts {
					if r.Content[i].Text != label+want {
						t.Fatalf("text %d = %q, want %q", i, r.Content[i].Text, label+want)
					}
				}
			}
			if strings.Join(ev.Schema.Projected, ",") != strings.Join(tc.projected, ",") || ev.Schema.ProjectedCount != len(tc.projected) {
				t.Fatalf("projected %v (%d), want %v", ev.Schema.Projected, ev.Schema.ProjectedCount, tc.projected)
			}
			if ev.Schema.Mirrors != tc.mirrors {
				t.Fatalf("mirrors %d, want %d", ev.Schema.Mirrors, tc.mirrors)
			}
		})
	}
}

// Without a schema nothing is held: structuredContent of any kind is
// sanitized and written where it was, and no digest is recorded.
func TestNoSchemaNoStructuredPath(t *testing.T) {
	in := `{"structuredContent":{"a":1,"extra":"x"},"content":[{"type":"text","text":"{\"a\":1}"}]}`
	out, ev := run(t, nil, toolInfo, in)
	if ev.SchemaSHA256 != "" || ev.Schema != nil {
		t.Fatalf("schema evidence without a schema: %+v", ev)
	}
	if !strings.HasPrefix(out, `{"structuredContent":{"a":1,"extra":"x"},"content":[{"type":"text","text":"`+strings.ReplaceAll(label, "\n", `\n`)+`{\"a\":1}"`) {
		t.Fatalf("order or content changed: %s", out)
	}
}

func TestToolErrorRewrite(t *testing.T) {
	gh := fakeGitHubToken(3)
	pol := DefaultPolicy()
	pol.Errors.Map = map[string]string{"NOT_FOUND": "The item was not found. List the items first, then ask for one that exists."}
	// These cases are mode generic (the rewriting before mode
	// keep-actionable, which errors_test.go covers).
	pol.Errors.Mode = ErrorModeGeneric
	generic := DefaultPolicy()
	generic.Errors.Mode = ErrorModeGeneric
	stack := "Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 42, in query\npsycopg2.errors.UndefinedTable: relation \"users\" does not exist\n"
	for _, tc := range []struct {
		name    string
		pol     *Policy
		schema  string
		in      string
		msg     string
		reason  string
		code    string
		source  string
		removed []string
		leaks   []string
	}{
		{name: caseAt("mapped code from structuredContent"), pol: pol,
			in:  `{"content":[{"type":"text","text":` + jsonString(stack) + `}],"structuredContent":{"code":"NOT_FOUND"},"isError":true}`,
			msg: pol.Errors.Map["NOT_FOUND"], reason: "mapped", code: "NOT_FOUND", source: "structuredContent.code",
			removed: []string{"stack-trace", "sql-error", "file-path"}, leaks: []string{"psycopg2", "/srv/app", "users"}},
		{name: caseAt("mapped code from a text prefix"), pol: pol,
			in:  `{"isError":true,"content":[{"type":"text","text":"NOT_FOUND: no row for id 42 in /var/lib/data.db"}]}`,
			msg: pol.Errors.Map["NOT_FOUND"], reason: "mapped", code: "NOT_FOUND", source: "text-prefix",
			removed: []string{"file-path"}, leaks: []string{"/var/lib", "row for id"}},
		{name: caseAt("unmapped code"), pol: pol,
			in:  `{"content":[{"type":"text","text":"E_DB: stderr: panic: token=` + gh + `"}],"isError":true}`,
			msg: CodeToolError.PublicMessage(), reason: "unmapped", code: "E_DB", source: "text-prefix",
			removed: []string{"stderr", "token"}, leaks: []string{gh, "REDACTED", "panic"}},
		{name: caseAt("no code, echoed input"), pol: generic,
			in:  `{"content":[{"type":"text","text":"Invalid input: {\"query\": \"DROP TABLE\"}"}],"isError":true}`,
			msg: CodeToolError.PublicMessage(), reason: "unmapped",
			removed: []string{"echoed-input"}, leaks: []string{"DROP", "query"}},
		{name: caseAt("plain message"), pol: generic,
			in:  `{"content":[{"type":"text","text":"Something went wrong."}],"isError":true}`,
			msg: CodeToolError.PublicMessage(), reason: "unmapped", removed: []string{"message"}, leaks: []string{"Something"}},
		{name: caseAt("java stack and windows path"), pol: generic,
			in:  `{"content":[{"type":"text","text":"java.lang.NullPointerException\n\tat com.acme.Svc.run(Svc.java:12)\nC:\\Users\\bob\\app.log"}],"isError":true}`,
			msg: CodeToolError.PublicMessage(), reason: "unmapped", removed: []string{"stack-trace", "file-path"}, leaks: []string{"acme", "bob"}},
		{name: caseAt("with a schema, no structuredContent needed"), pol: pol, schema: weatherSchema,
			in:  `{"content":[{"type":"text","text":"NOT_FOUND: city"}],"isError":true}`,
			msg: pol.Errors.Map["NOT_FOUND"], reason: "mapped", code: "NOT_FOUND", source: "text-prefix", removed: []string{"message"}, leaks: []string{"city"}},
		{name: caseAt("envelope keeps its id"), pol: pol,
			in:  `{"jsonrpc":"2.0","id":"q-1","result":{"content":[{"type":"text","text":"boom at /home/u/x.js:3:7"}],"isError":true}}`,
			msg: CodeToolError.PublicMessage(), reason: "unmapped", removed: []string{"stack-trace", "file-path"}, leaks: []string{"boom", "/home"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := toolInfo
			if tc.schema != "" {
				info.OutputSchema = mustSchema(t, tc.schema)
			}
			out, ev := run(t, tc.pol, info, tc.in)
			r := decodeResult(t, out)
			if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != label+tc.msg || r.Structured != nil {
				t.Fatalf("not the rewritten error: %s", out)
			}
			if ev.Outcome != OutcomeSanitized || ev.Code != CodeToolError || ev.Reason != tc.reason || ev.ToolError == nil {
				t.Fatalf("evidence %s %s %s %+v", ev.Outcome, ev.Code, ev.Reason, ev.ToolError)
			}
			te := ev.ToolError
			if te.Code != tc.code || te.Source != tc.source || te.Mapped != (tc.reason == "mapped") || strings.Join(te.Removed, ",") != strings.Join(tc.removed, ",") {
				t.Fatalf("tool error record %+v, want code %q source %q removed %v", te, tc.code, tc.source, tc.removed)
			}
			if r.Meta[MetaPrefix+"code"] != string(CodeToolError) || r.Meta[MetaPrefix+"reason"] != tc.reason {
				t.Fatalf("_meta %v", r.Meta)
			}
			evj, _ := json.Marshal(ev)
			for _, leak := range tc.leaks {
				if strings.Contains(out, leak) || strings.Contains(string(evj), leak) {
					t.Fatalf("%q leaked:\n%s\n%s", leak, out, evj)
				}
			}
			if strings.Contains(tc.in, `"jsonrpc"`) && !strings.HasPrefix(out, `{"jsonrpc":"2.0","id":"q-1","result":{`) {
				t.Fatalf("envelope lost: %s", out)
			}
		})
	}
	// Disabled: the error passes through, sanitized and labelled.
	dis := DefaultPolicy()
	dis.Errors.Disabled = true
	out, ev := run(t, dis, toolInfo, `{"content":[{"type":"text","text":"E: /etc/passwd"}],"isError":true}`)
	if ev.Code != "" || !strings.Contains(out, "/etc/passwd") {
		t.Fatalf("disabled rewriting still rewrote: %s %s", ev.Code, out)
	}
	// isError false, or isError of an envelope (not of its result), is no tool error.
	for _, in := range []string{`{"content":[{"type":"text","text":"a"}],"isError":false}`, `{"jsonrpc":"2.0","id":1,"isError":true,"result":{"content":[]}}`} {
		if _, ev := run(t, nil, toolInfo, in); ev.Code == CodeToolError {
			t.Fatalf("%s: rewritten", in)
		}
	}
}

func TestErrorsPolicyValidation(t *testing.T) {
	for _, bad := range []string{
		`{"errors":{"map":{"bad code":"x"}}}`,
		`{"errors":{"map":{"A":""}}}`,
		`{"errors":{"map":{"A":"a\u0007b"}}}`,
		`{"errors":{"default":"` + strings.Repeat("m", 1025) + `"}}`,
		`{"limits":{"structured-bytes":0}}`,
		`{"schema":{"projection":"yes"}}`,
	} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	p, err := ParsePolicy([]byte("errors:\n  map:\n    NOT_FOUND: \"Not found.\"\n  default: \"Failed.\"\nschema:\n  projection: false\nlimits:\n  structured-bytes: 1024\n"))
	if err != nil {
		t.Fatal(err)
	}
	if *p.Schema.Projection || p.Errors.Map["NOT_FOUND"] != "Not found." || p.Errors.Default != "Failed." {
		t.Fatalf("%+v", p)
	}
	if _, err := NewEngine(p); err != nil {
		t.Fatal(err)
	}
}

// The official examples pair a tool that declares an outputSchema with a
// result: the object result's text is its structuredContent serialized
// (with other spacing), so it is a mirror and is regenerated; the array
// result's text is a summary, so it stays.
func TestSchemaCorpusExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpora", "mcp-schema")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpora/mcp-schema is absent: the official example messages are not available here")
	}
	for _, rev := range []string{"2026-07-28", "draft"} {
		for _, tc := range []struct {
			tool, result string
			mirrors      int
		}{
			{"with-output-schema-for-structured-content.json", "result-with-structured-content.json", 1},
			{"tool-with-array-output-schema.json", "result-with-array-structured-content.json", 0},
		} {
			t.Run(rev+"/"+tc.result, func(t *testing.T) {
				toolJSON, err1 := os.ReadFile(filepath.Join(dir, rev, "examples", "Tool", tc.tool))
				in, err2 := os.ReadFile(filepath.Join(dir, rev, "examples", "CallToolResult", tc.result))
				if err1 != nil || err2 != nil {
					t.Skipf("example absent in %s: %v %v", rev, err1, err2)
				}
				var tool struct {
					OutputSchema json.RawMessage `json:"outputSchema"`
				}
				if err := json.Unmarshal(toolJSON, &tool); err != nil {
					t.Fatal(err)
				}
				info := toolInfo
				info.OutputSchema = mustSchema(t, string(tool.OutputSchema))
				out, ev := run(t, nil, info, string(in))
				if ev.Outcome == OutcomeRejected || ev.Schema.Outcome != "valid" || ev.Schema.Mirrors != tc.mirrors {
					t.Fatalf("%s %s %s %+v\n%s", ev.Outcome, ev.Code, ev.Reason, ev.Schema, out)
				}
				r := decodeResult(t, out)
				var want, got any
				json.Unmarshal(in, &want)
				json.Unmarshal(r.Structured, &got)
				if !reflect.DeepEqual(got, want.(map[string]any)["structuredContent"]) {
					t.Fatalf("structuredContent changed: %s", r.Structured)
				}
				if tc.mirrors == 1 && r.Content[0].Text != label+string(r.Structured) {
					t.Fatalf("mirror not regenerated: %q", r.Content[0].Text)
				}
				if tc.mirrors == 0 && !strings.HasPrefix(r.Content[0].Text, label+"Found 2 users") {
					t.Fatalf("summary changed: %q", r.Content[0].Text)
				}
			})
		}
	}
}

// Projection and a regenerated mirror change the message: the outcome is
// sanitized; a mirror that already was the exact JSON leaves it clean.
func TestStructuredOutcome(t *testing.T) {
	s := mustSchema(t, weatherSchema)
	info := MessageInfo{Kind: KindToolResult, Tool: "search", OutputSchema: s}
	w := `{"temperature":1,"conditions":"c","humidity":2}`
	for in, want := range map[string]Outcome{
		`{"content":[{"type":"text","text":` + jsonString(w) + `}],"structuredContent":` + w + `}`:                                     OutcomeClean,
		`{"content":[{"type":"text","text":` + jsonString(w+" ") + `}],"structuredContent":` + w + `}`:                                 OutcomeSanitized,
		`{"content":[],"structuredContent":{"temperature":1,"conditions":"c","humidity":2,"x":0}}`:                                     OutcomeSanitized,
		`{"content":[{"type":"text","text":"{\"humidity\":2,\"temperature\":1,\"conditions\":\"c\"}"}],"structuredContent":` + w + `}`: OutcomeSanitized,
	} {
		if _, ev := run(t, nil, info, in); ev.Outcome != want {
			t.Errorf("%s: outcome %s, want %s", in, ev.Outcome, want)
		}
	}
}
