package records

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/valyala/fastjson"
)

// envelopeLines are record lines for the envelope tests and the seeds of
// FuzzEnvelopeDifferential: plain records, whitespace, escapes, and what
// the scan leaves to the general way.
var envelopeLines = []struct {
	name, line string
	direct     bool // scanEnvelope takes it
}{
	{"plain", `{"tool":"t","outputSchema":null,"result":{"content":[{"type":"text","text":"ok"}]}}`, true},
	{"no-schema", `{"tool":"t","result":{"content":[]}}`, true},
	{"result-only", `{"result":{"content":[]}}`, true},
	{"result-first", `{"result":{"content":[{"type":"text","text":"a\"b\\"}]},"tool":"t"}`, true},
	{"spaces", ` { "tool" : "t" , "outputSchema" : { "type" : "object" , "properties" : { "n" : { "type" : "integer" } } } , "result" : { "content" : [ ] , "structuredContent" : { "n" : 1 } } } `, true},
	{"tabs-newlines-in-strings", `{"tool":"t","result":{"content":[{"type":"text","text":"a b\tc \n"}]}}`, true},
	{"schema", `{"tool":"t","outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"result":{"content":[],"structuredContent":{"n":3,"x":1}}}`, true},
	{"schema-invalid", `{"tool":"x","outputSchema":{"type":7},"result":{"content":[]}}`, true},
	{"schema-collision", `{"tool":"t","outputSchema":{"type":"object","properties":{"a\u200bb":{},"ab":{}}},"result":{"content":[],"structuredContent":{}}}`, true},
	{"framing-jsonrpc", `{"framing":"jsonrpc","result":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`, true},
	{"framing-unknown", `{"framing":"xml","result":{"content":[]}}`, true},
	{"framing-number", `{"framing":1,"result":{"content":[]}}`, true},
	{"tool-number", `{"tool":7,"result":{"content":[]}}`, true},
	{"unknown-members", `{"x":[1,2,{"y":null}],"z":true,"result":{"content":[]}}`, true},
	{"context", `{"context":{"principal":"alice","scopes":["a","b"],"requestParams":{"uri":"https://x/a"}},"result":{"content":[]}}`, true},
	{"context-spaces-escapes", `{"context": { "principal" : "\u0061lice" , "requestParams" : { "u" : "\u00e9 x" } } ,"result":{"content":[]}}`, true},
	{"context-null", `{"context":null,"result":{"content":[]}}`, true},
	{"context-bad-principal", `{"context":{"principal":"a b"},"result":{"content":[]}}`, true},
	{"context-unknown-member", `{"context":{"who":"a"},"result":{"content":[]}}`, true},
	{"context-duplicate-member", `{"context":{"principal":"a","principal":"b"},"result":{"content":[]}}`, true},
	{"context-lenient-number", `{"context":{"requestParams":{"n":1.2.3}},"result":{"content":[]}}`, true},
	{"lenient-numbers", `{"result":{"content":[],"n":1.2.3,"m":-,"e":e}}`, false},
	{"lenient-number-run", `{"result":{"content":[],"n":1.2.3,"e":e,"p":+1}}`, true},
	{"result-string", `{"result":"text"}`, true},
	{"result-null", `{"result":null}`, true},
	{"nested-escaped-key", `{"result":{"cont\u0065nt":[]}}`, true},
	{"result-invalid-escape", `{"result":{"content":[{"type":"text","text":"\q"}]}}`, true},
	{"control-in-string", "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x01b\"}]}}", true},
	{"escaped-top-key", `{"tool":"t","res\u0075lt":{"content":[]}}`, false},
	{"escaped-tool", `{"tool":"t\u0031","result":{"content":[]}}`, false},
	{"escaped-framing", `{"framing":"b\u0061re","result":{"content":[]}}`, false},
	{"duplicate", `{"tool":"a","tool":"b","result":{"content":[]}}`, false},
	{"duplicate-by-escape", `{"result":{"content":[]},"res\u0075lt":{"content":[]}}`, false},
	{"no-result", `{"tool":"x"}`, false},
	{"empty-object", `{}`, false},
	{"array", `[1,2]`, false},
	{"not-json", `{not json`, false},
	{"truncated", `{"tool":"x","result":`, false},
	{"trailing", `{"result":{}} x`, false},
	{"trailing-comma", `{"result":{"a":1,}}`, false},
	{"nan", `{"result":{"n":NaN}}`, false},
	{"nan-lower", `{"result":{"n":nan}}`, false},
	{"inf", `{"result":{"n":-Inf}}`, false},
	{"lone-sign", `{"result":[-]}`, false},
	{"unterminated-string", `{"result":"abc\"}`, false},
	{"bad-literal", `{"result":tru}`, false},
	{"deep", `{"result":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, false},
	{"deep-ok", `{"result":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, true},
	{"many-members", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"result":{}}`, false},
}

func TestScanEnvelope(t *testing.T) {
	for _, tc := range envelopeLines {
		t.Run(tc.name, func(t *testing.T) {
			env, ok := scanEnvelope([]byte(tc.line))
			if ok != tc.direct {
				t.Fatalf("scanEnvelope ok = %v, want %v", ok, tc.direct)
			}
			if ok {
				checkEnvelope(t, []byte(tc.line), env)
			}
		})
	}
}

// checkEnvelope compares what scanEnvelope read from line with what the
// general way reads from a fastjson parse of it.
func checkEnvelope(t *testing.T, line []byte, env envelope) {
	t.Helper()
	var p fastjson.Parser
	v, err := p.ParseBytes(line)
	if err != nil {
		t.Fatalf("scanned a line fastjson rejects: %v", err)
	}
	for _, m := range []struct {
		name string
		raw  []byte
		ws   bool
	}{{"tool", env.tool, true}, {"framing", env.framing, true}, {"outputSchema", env.schema, env.schemaWS}, {"result", env.result, env.resultWS}} {
		mv := v.Get(m.name)
		if (mv == nil) != (m.raw == nil) {
			t.Fatalf("%s: present %v, fastjson %v", m.name, m.raw != nil, mv != nil)
		}
		if mv == nil {
			continue
		}
		got := appendCompact(nil, m.raw)
		if want := mv.MarshalTo(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s: compacted %q, fastjson writes %q", m.name, got, want)
		}
		if !m.ws && !bytes.Equal(got, m.raw) {
			t.Fatalf("%s: %q reported without whitespace", m.name, m.raw)
		}
	}
	if s, ok := stringContent(env.tool); ok != (v.Get("tool") != nil && v.Get("tool").Type() == fastjson.TypeString) ||
		ok && string(s) != string(v.GetStringBytes("tool")) {
		t.Fatalf("tool %q", env.tool)
	}
}

var durationNanos = regexp.MustCompile(`"durationNanos":[0-9]+`)

// differentialWorkers are two workers alike but for the way they take:
// one the direct way where it can, one always the general way.
func differentialWorkers(t testing.TB) (direct, general *recordWorker) {
	eng := testEngine(t)
	mk := func() *recordWorker {
		return &recordWorker{eng: eng, kind: pipeline.KindToolResult, timeout: DefaultTimeout, evidence: true,
			outBufs: &bufPool{maxBuf: maxPooledBuf, maxKeep: maxPooledBytes}, schemas: schema.NewCache(0, schema.Limits{}),
			red: eng.Catalog().NewRedactor(bytes.Repeat([]byte{7}, 32))}
	}
	direct, general = mk(), mk()
	general.generalOnly = true
	return direct, general
}

// compareWays answers line on both workers and demands the same line and
// evidence (durations aside).
func compareWays(t *testing.T, direct, general *recordWorker, line []byte) {
	t.Helper()
	ctx := context.Background()
	a := direct.sanitize(ctx, record{line: line})
	b := general.sanitize(ctx, record{line: line})
	if (a.err == nil) != (b.err == nil) {
		t.Fatalf("direct err %v, general err %v", a.err, b.err)
	}
	if !bytes.Equal(append(a.head, a.line...), append(b.head, b.line...)) {
		t.Fatalf("lines differ:\ndirect  %s\ngeneral %s", a.line, b.line)
	}
	ea := durationNanos.ReplaceAll(a.evidence, nil)
	eb := durationNanos.ReplaceAll(b.evidence, nil)
	if !bytes.Equal(ea, eb) {
		t.Fatalf("evidence differs:\ndirect  %s\ngeneral %s", ea, eb)
	}
	if env, ok := scanEnvelope(line); ok {
		checkEnvelope(t, line, env)
	}
}

func TestEnvelopeWaysAgree(t *testing.T) {
	direct, general := differentialWorkers(t)
	for _, tc := range envelopeLines {
		t.Run(tc.name, func(t *testing.T) {
			// Twice: the second time the outputSchema comes from the memo.
			compareWays(t, direct, general, []byte(tc.line))
			compareWays(t, direct, general, []byte(tc.line))
		})
	}
}

// FuzzEnvelopeDifferential: any line is answered alike the direct way and
// the general way (a fastjson parse of the whole line).
func FuzzEnvelopeDifferential(f *testing.F) {
	for _, tc := range envelopeLines {
		f.Add([]byte(tc.line))
	}
	direct, general := differentialWorkers(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) > 1<<16 {
			return
		}
		compareWays(t, direct, general, line)
	})
}

// The records of the generated mix, as written and re-indented (the
// direct way then compacts the result), are answered alike both ways.
func TestEnvelopeWaysAgreeOnMix(t *testing.T) {
	direct, general := differentialWorkers(t)
	var recs []bench.Record
	for _, d := range bench.Mix(bench.MixOptions{Seed: 3, Records: 120}) {
		recs = append(recs, d.Record())
	}
	for i, l := range bytes.Split(bytes.TrimRight(bench.JSONL(recs), "\n"), []byte("\n")) {
		if _, ok := scanEnvelope(l); !ok {
			t.Fatalf("record %d of the mix goes the general way", i)
		}
		compareWays(t, direct, general, l)
		if i%10 == 0 {
			var ind bytes.Buffer
			if err := json.Indent(&ind, l, "", " "); err != nil {
				t.Fatal(err)
			}
			spaced := bytes.ReplaceAll(ind.Bytes(), []byte("\n"), []byte("\t"))
			if env, ok := scanEnvelope(spaced); !ok || !env.resultWS {
				t.Fatalf("record %d re-indented: direct %v, whitespace %v", i, ok, env.resultWS)
			}
			compareWays(t, direct, general, spaced)
		}
	}
}
