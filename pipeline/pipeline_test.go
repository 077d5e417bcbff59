package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// run sanitizes in with pol (nil: defaults) and returns output and evidence.
func run(t testing.TB, pol *Policy, info MessageInfo, in string) (string, *Evidence) {
	t.Helper()
	e, err := NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	var out Buffer
	ev, err := e.Sanitize(context.Background(), strings.NewReader(in), &out, info)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out.Bytes()) {
		t.Fatalf("output is not valid JSON: %q", out.String())
	}
	if !utf8.Valid(out.Bytes()) {
		t.Fatalf("output is not valid UTF-8: %q", out.String())
	}
	return out.String(), ev
}

var toolInfo = MessageInfo{Kind: KindToolResult, Tool: "search"}

func textResult(s string) string {
	b, _ := json.Marshal(s)
	return `{"content":[{"type":"text","text":` + string(b) + `}]}`
}

// firstText decodes a tool result and returns content[0].text.
func firstText(t testing.TB, out string) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("no content in %q: %v", out, err)
	}
	return r.Content[0].Text
}

const label = "Untrusted tool output from search:\n"

func TestNormalizationClasses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"zero-width", "sys\u200btem\u200c\u200d\u2060\ufeff", "system"},
		{"bidi", "a\u202eb\u2066c\u2069\u200e\u200f\u061c", "abc"},
		{"tag-block", "ok\U000E0041\U000E0042\U000E007F", "ok"},
		{"variation-selector", "x\U000E0100y", "xy"},
		{"c0-terminal-escape", "\x1b[31mred\x07", "red"},
		{"c1", "a\u009bb\u0085c", "ac"}, // U+009B opens a CSI whose final byte is "b"
		{"osc8-hyperlink", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x07 here", "click here"},
		{"raw-del", "a\x7fb", "ab"},
		{"escaped-backspace", "a\bb\fc", "abc"},
		{"keep-tab-newline-cr", "a\tb\nc\rd", "a\tb\nc\rd"},
		{"nfkc-fullwidth", "ＡＢＣ１２３", "ABC123"},
		{"nfkc-ligature", "\ufb01le", "file"},
		{"strip-then-compose", "e\u200b\u0301", "\u00e9"},
		{"ascii-untouched", "plain text, {json} and <b>html</b>", "plain text, {json} and <b>html</b>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, toolInfo, textResult(tc.in))
			if got := firstText(t, out); got != label+tc.want {
				t.Fatalf("text = %q, want %q", got, label+tc.want)
			}
			if tc.in != tc.want && ev.Outcome != OutcomeSanitized {
				t.Fatalf("outcome %s, want sanitized", ev.Outcome)
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		n              int64
	}{
		{"lone-high", `{"a":"x\ud800y"}`, "x\uFFFDy", 1},
		{"lone-low", `{"a":"x\udc00y"}`, "x\uFFFDy", 1},
		{"high-at-end", `{"a":"x\ud800"}`, "x\uFFFD", 1},
		{"two-highs", `{"a":"\ud800\ud800\udc00"}`, "\uFFFD\U00010000", 1},
		{"pair", `{"a":"\ud83d\ude00"}`, "\U0001F600", 0},
		{"bad-byte", "{\"a\":\"x\xffy\"}", "x\uFFFDy", 1},
		{"truncated-seq", "{\"a\":\"x\xe2\x82y\"}", "x\uFFFD\uFFFDy", 2},
		{"surrogate-utf8", "{\"a\":\"\xed\xa0\x80\"}", "\uFFFD\uFFFD\uFFFD", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, MessageInfo{Kind: KindResourceResult}, tc.in)
			var m map[string]any
			json.Unmarshal([]byte(out), &m)
			if m["a"] != tc.want {
				t.Fatalf("a = %q, want %q", m["a"], tc.want)
			}
			if ev.InvalidUTF8 != tc.n {
				t.Fatalf("invalidUTF8 = %d, want %d", ev.InvalidUTF8, tc.n)
			}
		})
	}
	t.Run("reject-policy", func(t *testing.T) {
		pol := DefaultPolicy()
		pol.InvalidUTF8 = "reject"
		_, ev := run(t, pol, toolInfo, "{\"a\":\"x\xffy\"}")
		if ev.Code != CodeInvalidJSON || ev.Reason != "invalid-utf8" {
			t.Fatalf("code %s reason %s", ev.Code, ev.Reason)
		}
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     Code
		reason   string
	}{
		{"empty", "", CodeInvalidJSON, "empty-input"},
		{"whitespace", "  \n", CodeInvalidJSON, "empty-input"},
		{"truncated", `{"content":[`, CodeInvalidJSON, "unexpected-eof"},
		{"trailing", `{"a":1} {}`, CodeInvalidJSON, "trailing-data"},
		{"bad-literal", `{"a":nul}`, CodeInvalidJSON, "bad-literal"},
		{"leading-zero", `{"a":01}`, CodeInvalidJSON, "expected-comma-or-close"},
		{"bare-minus", `{"a":-}`, CodeInvalidJSON, "bad-number"},
		{"dot-end", `{"a":1.}`, CodeInvalidJSON, "bad-number"},
		{"exp-end", `{"a":1e}`, CodeInvalidJSON, "bad-number"},
		{"raw-control", "{\"a\":\"x\ny\"}", CodeInvalidJSON, "control-in-string"},
		{"bad-escape", `{"a":"\x"}`, CodeInvalidJSON, "bad-escape"},
		{"bad-unicode-escape", `{"a":"\u12g4"}`, CodeInvalidJSON, "bad-escape"},
		{"missing-colon", `{"a" 1}`, CodeInvalidJSON, "expected-colon"},
		{"trailing-comma", `{"a":1,}`, CodeInvalidJSON, "expected-key"},
		{"array-trailing-comma", `{"a":[1,]}`, CodeInvalidJSON, "expected-value"},
		{"single-quotes", `{'a':1}`, CodeInvalidJSON, "expected-key"},
		{"not-object", `[1,2]`, CodeInvalidContent, "result-not-object"},
		{"envelope-result-not-object", `{"jsonrpc":"2.0","id":1,"result":"done"}`, CodeInvalidContent, "result-not-object"},
		{"envelope-result-null", `{"jsonrpc":"2.0","id":1,"result":null}`, CodeInvalidContent, "result-not-object"},
		{"duplicate-key", `{"a":1,"a":2}`, CodeInvalidJSON, "duplicate-key"},
		{"duplicate-after-normalization", `{"a":1,"a\u200b":2}`, CodeInvalidJSON, "duplicate-key"},
		{"duplicate-many", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":3}`, CodeInvalidJSON, "duplicate-key"},
		{"proto", `{"x":{"__proto__":{}}}`, CodeBoundExceeded, "prototype-key"},
		{"constructor", `{"constructor":1}`, CodeBoundExceeded, "prototype-key"},
		{"prototype-fullwidth", `{"ｐｒｏｔｏｔｙｐｅ":1}`, CodeBoundExceeded, "prototype-key"},
		{"bad-base64", `{"content":[{"type":"image","mimeType":"image/png","data":"a$=="}]}`, CodeInvalidContent, "bad-base64"},
		{"base64-length", `{"content":[{"type":"image","mimeType":"image/png","data":"abc"}]}`, CodeInvalidContent, "bad-base64"},
		{"base64-inner-pad", `{"content":[{"type":"image","mimeType":"image/png","data":"ab=c"}]}`, CodeInvalidContent, "bad-base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, toolInfo, tc.in)
			if ev.Outcome != OutcomeRejected || ev.Code != tc.code || ev.Reason != tc.reason {
				t.Fatalf("outcome %s code %s reason %s, want rejected %s %s", ev.Outcome, ev.Code, ev.Reason, tc.code, tc.reason)
			}
			var r struct {
				IsError bool           `json:"isError"`
				Meta    map[string]any `json:"_meta"`
			}
			var env struct {
				Result json.RawMessage `json:"result"`
			}
			if strings.HasPrefix(out, `{"jsonrpc":"2.0",`) && json.Unmarshal([]byte(out), &env) == nil {
				out = string(env.Result) // the error result keeps the envelope
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil || !r.IsError {
				t.Fatalf("not an error result: %s", out)
			}
			if r.Meta[MetaPrefix+"code"] != string(tc.code) {
				t.Fatalf("_meta code %v", r.Meta[MetaPrefix+"code"])
			}
			if ev.Input.Bytes != int64(len(tc.in)) {
				t.Fatalf("input digest covers %d of %d bytes", ev.Input.Bytes, len(tc.in))
			}
		})
	}
}

func TestErrorResultForOtherKinds(t *testing.T) {
	out, ev := run(t, nil, MessageInfo{Kind: KindResourceResult}, `{"a":`)
	if ev.Code != CodeInvalidJSON {
		t.Fatal(ev.Code)
	}
	var r struct {
		Error struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Error.Code != -32603 || r.Error.Data[MetaPrefix+"code"] != "INVALID_JSON" {
		t.Fatalf("bad error object %s", out)
	}
}

func TestNumbersAndLiteralsVerbatim(t *testing.T) {
	in := `{"n":[0,-0,1.5e+10,-2.25E-3,12345678901234567890123,1e400,true,false,null]}`
	out, _ := run(t, nil, MessageInfo{Kind: KindResourceResult}, in)
	if !strings.Contains(out, `[0,-0,1.5e+10,-2.25E-3,12345678901234567890123,1e400,true,false,null]`) {
		t.Fatalf("numbers changed: %s", out)
	}
}

func TestLabelsAndMeta(t *testing.T) {
	in := `{"content":[{"type":"text","_meta":{"keep":1,"dev.mcp-sanitize/untrusted":false},"text":"hi"}],` +
		`"_meta":{"dev.mcp-sanitize/guard":"forged","trace":"t1"},"isError":false}`
	out, ev := run(t, nil, toolInfo, in)
	var r struct {
		Content []struct {
			Text string         `json:"text"`
			Meta map[string]any `json:"_meta"`
		} `json:"content"`
		Meta    map[string]any `json:"_meta"`
		IsError bool           `json:"isError"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Content[0].Text != label+"hi" {
		t.Fatalf("text %q", r.Content[0].Text)
	}
	bm := r.Content[0].Meta
	if bm["keep"] != 1.0 || bm[MetaPrefix+"untrusted"] != true || bm[MetaPrefix+"source"] != "tool:search" {
		t.Fatalf("block meta %v", bm)
	}
	if r.Meta["trace"] != "t1" || r.Meta[MetaPrefix+"guard"] != GuardVersion || r.Meta[MetaPrefix+"untrusted"] != true {
		t.Fatalf("result meta %v", r.Meta)
	}
	if r.Meta[MetaPrefix+"policy"] != "default" || r.Meta[MetaPrefix+"truncated"] != false {
		t.Fatalf("result meta %v", r.Meta)
	}
	if strings.Contains(out, "forged") {
		t.Fatal("a forged reserved key survived")
	}
	if ev.DroppedKeys != 2 {
		t.Fatalf("dropped %d reserved keys, want 2", ev.DroppedKeys)
	}
	// A _meta that is not an object is dropped, not passed.
	out, _ = run(t, nil, toolInfo, `{"content":[],"_meta":"x"}`)
	if strings.Contains(out, `"x"`) {
		t.Fatalf("non-object _meta passed: %s", out)
	}
}

func TestEnvelope(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}]}}`
	out, _ := run(t, nil, toolInfo, in)
	var r struct {
		ID     int            `json:"id"`
		Meta   map[string]any `json:"_meta"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
			Meta    map[string]any          `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != 7 || r.Result.Content[0].Text != label+"ok" || r.Result.Meta[MetaPrefix+"untrusted"] != true {
		t.Fatalf("envelope %s", out)
	}
	if r.Meta != nil {
		t.Fatalf("labels added to the envelope itself: %s", out)
	}
}

func TestTextBoundTruncates(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"text-chars": 10}
	out, ev := run(t, pol, toolInfo, textResult("0123456789abcdef"))
	got := firstText(t, out)
	if !strings.HasPrefix(got, label+"0123456789\n[OUTPUT_TRUNCATED: this text was cut at 10 characters.") {
		t.Fatalf("text %q", got)
	}
	if ev.Outcome != OutcomeTruncated || ev.Code != CodeOutputTruncated {
		t.Fatalf("outcome %s code %s", ev.Outcome, ev.Code)
	}
	if !strings.Contains(out, `"dev.mcp-sanitize/truncated":true`) || !strings.Contains(out, `"dev.mcp-sanitize/code":"OUTPUT_TRUNCATED"`) {
		t.Fatalf("no truncation flags: %s", out)
	}
	if len(ev.Bounds) != 1 || ev.Bounds[0].Bound != "text-chars" || ev.Bounds[0].Pointer != "/content/0/text" {
		t.Fatalf("bounds %+v", ev.Bounds)
	}
	// Characters, not bytes: a multi-byte text is cut on a rune boundary.
	out, _ = run(t, pol, toolInfo, textResult("ééééééééééé"))
	if got := firstText(t, out); !strings.HasPrefix(got, label+"éééééééééé\n[") {
		t.Fatalf("text %q", got)
	}
}

func TestStructuredBoundRejects(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"string-chars": 5}
	_, ev := run(t, pol, toolInfo, `{"content":[],"structuredContent":{"a":"0123456789"}}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "string-chars" || ev.ErrorPointer != "/structuredContent/a" {
		t.Fatalf("code %s reason %s pointer %s", ev.Code, ev.Reason, ev.ErrorPointer)
	}
	pol.Actions.Structured = ActionTruncate
	out, ev := run(t, pol, toolInfo, `{"content":[],"structuredContent":{"a":"0123456789"}}`)
	if ev.Outcome != OutcomeTruncated || !strings.Contains(out, `"a":"01234…[OUTPUT_TRUNCATED]"`) {
		t.Fatalf("outcome %s: %s", ev.Outcome, out)
	}
}

func TestContainerBounds(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"array-items": 2, "object-entries": 2}
	in := `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"text","text":"c"},{"type":"text","text":"d"}]}`
	out, ev := run(t, pol, toolInfo, in)
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal([]byte(out), &r)
	if len(r.Content) != 3 || !strings.Contains(r.Content[2].Text, "2 more content blocks were omitted") {
		t.Fatalf("content %+v", r.Content)
	}
	if ev.Outcome != OutcomeTruncated {
		t.Fatal(ev.Outcome)
	}
	_, ev = run(t, pol, toolInfo, `{"content":[],"structuredContent":[1,2,3]}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "array-items" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
	_, ev = run(t, pol, toolInfo, `{"content":[],"structuredContent":{"a":1,"b":2,"c":3}}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "object-entries" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
}

func TestDepthAndNodes(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"depth": 3, "nodes": 10}
	_, ev := run(t, pol, toolInfo, `{"a":{"b":{"c":{}}}}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "depth" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
	_, ev = run(t, pol, toolInfo, `{"a":[1,2,3,4,5,6,7,8,9,10]}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "nodes" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	_, ev = run(t, nil, MessageInfo{Kind: KindResourceResult}, deep)
	if ev.Code != CodeBoundExceeded || ev.Reason != "depth" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
}

func TestKeyBound(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"key-chars": 4}
	_, ev := run(t, pol, toolInfo, `{"abcde":1}`)
	if ev.Code != CodeBoundExceeded || ev.Reason != "key-chars" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
}

func TestBinaryBlocks(t *testing.T) {
	in := `{"content":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUg==","mimeType":"IMAGE/PNG; x=y"},` +
		`{"type":"resource","resource":{"uri":"file:///r","mimeType":"application/pdf","blob":"JVBERi0xLjQ="}}]}`
	out, ev := run(t, nil, toolInfo, in)
	if !strings.Contains(out, `"data":"iVBORw0KGgoAAAANSUhEUg=="`) || !strings.Contains(out, `"blob":"JVBERi0xLjQ="`) {
		t.Fatalf("binary changed: %s", out)
	}
	if ev.Outcome != OutcomeClean {
		t.Fatal(ev.Outcome)
	}
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"binary-bytes": 4}
	_, ev = run(t, pol, toolInfo, in)
	if ev.Code != CodeBoundExceeded || ev.Reason != "binary-bytes" {
		t.Fatalf("%s %s", ev.Code, ev.Reason)
	}
}

func TestOutputBytesBound(t *testing.T) {
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"output-bytes": 6000, "text-chars": 100000}
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":"` + strings.Repeat("x\\n", 300) + `"}`)
	}
	b.WriteString(`]}`)
	out, ev := run(t, pol, toolInfo, b.String())
	if len(out) > 6000 {
		t.Fatalf("output %d bytes over the 6000 bound", len(out))
	}
	if ev.Outcome != OutcomeTruncated {
		t.Fatal(ev.Outcome)
	}
	pol.Actions.Text = ActionReject
	_, ev = run(t, pol, toolInfo, b.String())
	if ev.Code != CodeBoundExceeded {
		t.Fatal(ev.Code)
	}
}

func TestTimeout(t *testing.T) {
	e, _ := NewEngine(nil)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	var out Buffer
	ev, err := e.Sanitize(ctx, strings.NewReader(textResult("x")), &out, toolInfo)
	if err != nil || ev.Code != CodeTimeout {
		t.Fatalf("err %v code %s", err, ev.Code)
	}
}

type failReader struct{ n int }

func (f *failReader) Read(b []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("backend exploded: /srv/secret/path")
	}
	f.n--
	return copy(b, `{"content":[`), nil
}

func TestReadErrorFailsClosed(t *testing.T) {
	e, _ := NewEngine(nil)
	var out Buffer
	ev, err := e.Sanitize(context.Background(), &failReader{n: 1}, &out, toolInfo)
	if err != nil || ev.Code != CodeInternal || ev.Reason != "read-error" {
		t.Fatalf("err %v code %s", err, ev.Code)
	}
	if strings.Contains(out.String(), "exploded") || strings.Contains(out.String(), "/srv") {
		t.Fatal("backend error text leaked")
	}
}

type failOutput struct{ Buffer }

func (f *failOutput) Write(b []byte) (int, error) { return 0, errors.New("disk full") }

func TestOutputErrorIsReturned(t *testing.T) {
	e, _ := NewEngine(nil)
	_, err := e.Sanitize(context.Background(), strings.NewReader(textResult("x")), &failOutput{}, toolInfo)
	if err == nil || !IsOutputError(err) {
		t.Fatalf("err %v", err)
	}
}

func TestSpoolSpills(t *testing.T) {
	s := &Spool{MemBytes: 16, Dir: t.TempDir()}
	s.Write([]byte("0123456789"))
	s.Write([]byte("0123456789"))
	if !s.s.Spilled() || s.Len() != 20 {
		t.Fatal("no spill")
	}
	var w bytes.Buffer
	if err := s.Commit(&w); err != nil || w.String() != "01234567890123456789" {
		t.Fatalf("%v %q", err, w.String())
	}
	s.Write([]byte("x"))
	s.Discard()
	w.Reset()
	s.Commit(&w)
	if w.Len() != 0 {
		t.Fatal("discard kept data")
	}
}

func TestPolicyFiles(t *testing.T) {
	dir := t.TempDir()
	y := filepath.Join(dir, "p.yaml")
	os.WriteFile(y, []byte("version: team-a.3\nlimits:\n  text-chars: 500\nactions:\n  structured: truncate\n"), 0o600)
	p, err := LoadPolicy(y)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "team-a.3" || p.Limits["text-chars"] != 500 || p.Actions.Structured != ActionTruncate || p.Actions.Text != ActionTruncate {
		t.Fatalf("%+v", p)
	}
	for _, bad := range []string{
		`{"limits":{"nope":1}}`,
		`{"limits":{"depth":0}}`,
		`{"actions":{"text":"explode"}}`,
		`{"invalidUTF8":"ignore"}`,
		`{"unknownField":1}`,
		`{"version":"has space"}`,
		`{"chunkBytes":10}`,
		`{"allowedMIME":["png"]}`,
		`{"fingerprint":{"keyEnv":"A","keyFile":"b"}}`,
		`{"fingerprint":{"keyEnv":"MCP_SANITIZE_TEST_UNSET_VAR"}}`,
		`not: [valid`,
	} {
		p, err := ParsePolicy([]byte(bad))
		if err == nil {
			_, err = NewEngine(p)
		}
		if !errors.Is(err, ErrPolicy) {
			t.Errorf("policy %s: err %v, want ErrPolicy", bad, err)
		}
	}
}

func TestFingerprintKeyFromEnv(t *testing.T) {
	t.Setenv("MCP_SANITIZE_TEST_FP", "0123456789abcdef0123")
	p, err := ParsePolicy([]byte(`{"fingerprint":{"keyEnv":"MCP_SANITIZE_TEST_FP"}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(p)
	if err != nil || e.RandomFingerprintKey() {
		t.Fatalf("%v %v", err, e.RandomFingerprintKey())
	}
}

func TestExamplesFromSchemaCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpora", "mcp-schema")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpora/mcp-schema is absent: the official example messages are not available here")
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		for _, sub := range []string{"CallToolResult", "CallToolResultResponse"} {
			files, _ := filepath.Glob(filepath.Join(dir, rev, "examples", sub, "*.json"))
			for _, f := range files {
				t.Run(rev+"/"+sub+"/"+filepath.Base(f), func(t *testing.T) {
					in, _ := os.ReadFile(f)
					out, ev := run(t, nil, toolInfo, string(in))
					if ev.Outcome == OutcomeRejected {
						t.Fatalf("official example rejected: %s %s", ev.Code, ev.Reason)
					}
					if !strings.Contains(out, "Untrusted tool output from search:") {
						t.Fatalf("no label: %s", out)
					}
					// Everything the example had is still there, labels aside.
					var a, b map[string]any
					json.Unmarshal(in, &a)
					json.Unmarshal([]byte(out), &b)
					if r, ok := a["result"].(map[string]any); ok {
						a = r
						b = b["result"].(map[string]any)
					}
					for k := range a {
						if _, ok := b[k]; !ok {
							t.Errorf("member %q lost", k)
						}
					}
				})
			}
		}
	}
}

func TestEnvelopeErrorResult(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		kind     Kind
		id       any
		member   string
	}{
		{"number-id", `{"jsonrpc":"2.0","id":7,"result":{"content":[` + strings.Repeat("[", 100) + `]}}`, KindToolResult, 7.0, "result"},
		{"string-id", `{"jsonrpc":"2.0","id":"req\u200b-1","result":{"content":[{"type":"text","text":"x"}],"a":1,"a":2}}`, KindToolResult, "req-1", "result"},
		{"id-after-failure", `{"jsonrpc":"2.0","result":{"x":1,"x":2},"id":9}`, KindToolResult, 9.0, "result"},
		{"other-kind", `{"jsonrpc":"2.0","id":"r2","result":{"contents":[}}`, KindResourceResult, "r2", "error"},
		{"long-id", `{"jsonrpc":"2.0","id":"` + strings.Repeat("z", 300) + `","result":{"a":1,"a":1}}`, KindToolResult, nil, "result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, MessageInfo{Kind: tc.kind, Tool: "search"}, tc.in)
			if ev.Outcome != OutcomeRejected {
				t.Fatalf("outcome %s", ev.Outcome)
			}
			var env map[string]any
			if err := json.Unmarshal([]byte(out), &env); err != nil {
				t.Fatal(err)
			}
			if env["jsonrpc"] != "2.0" || env["id"] != tc.id || env[tc.member] == nil || len(env) != 3 {
				t.Fatalf("envelope %s", out)
			}
		})
	}
	// A bare result fails as a bare error result.
	out, _ := run(t, nil, toolInfo, `{"content":[`)
	if strings.Contains(out, "jsonrpc") {
		t.Fatalf("bare input, enveloped error: %s", out)
	}
}
