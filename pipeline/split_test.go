package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// This file proves that a pass does not depend on how its input is split:
// for every case, reads of at most k bytes (k = 1..64) and read chunks of
// 512 B, 4 KiB and 64 KiB give byte-identical output and identical evidence
// (but for durationNanos).

// fpKeyEnv holds a fixed fingerprint key so that engines built for
// different chunk sizes fingerprint alike.
const fpKeyEnv = "MCP_SANITIZE_TEST_FINGERPRINT_KEY"

func init() {
	// A test-only key; fixed so fingerprints are comparable across engines.
	if err := os.Setenv(fpKeyEnv, "test-fingerprint-key-0123456789abcdef"); err != nil {
		panic(err)
	}
}

// policyName selects a policy of the tables.
type policyName string

const (
	polDefault policyName = "default"
	polSmall   policyName = "small"  // tiny bounds: every truncation path
	polReject  policyName = "reject" // reject everywhere, invalid UTF-8 rejected
	polBig     policyName = "big"    // bounds large enough that nothing is cut
)

// testPolicy returns the named policy with the fixed fingerprint key and
// the given read chunk (0: default).
func testPolicy(name policyName, chunk int) *pipeline.Policy {
	p := &pipeline.Policy{ChunkBytes: chunk, Fingerprint: pipeline.Fingerprint{KeyEnv: fpKeyEnv}}
	switch name {
	case polSmall:
		p.Limits = map[string]int64{
			"text-chars": 100, "string-chars": 40, "array-items": 4, "object-entries": 6,
			"key-chars": 24, "depth": 8, "nodes": 300, "binary-bytes": 64, "meta-bytes": 512,
			"structured-bytes": 256,
		}
		p.Actions.Structured = pipeline.ActionTruncate
	case polReject:
		p.Limits = map[string]int64{"text-chars": 100, "string-chars": 40, "array-items": 4, "object-entries": 6}
		p.Actions = pipeline.Actions{Text: pipeline.ActionReject, Structured: pipeline.ActionReject, Other: pipeline.ActionReject}
		p.InvalidUTF8 = "reject"
		p.Binary.Disallowed = pipeline.BinaryReject
	case polBig:
		p.Limits = map[string]int64{"text-chars": 1 << 31, "string-chars": 1 << 31, "output-bytes": 1 << 31}
	}
	return p
}

var engines = map[string]*pipeline.Engine{}

// engine returns a cached engine for a policy and chunk size.
func engine(t testing.TB, name policyName, chunk int) *pipeline.Engine {
	k := fmt.Sprintf("%s/%d", name, chunk)
	if e := engines[k]; e != nil {
		return e
	}
	e, err := pipeline.NewEngine(testPolicy(name, chunk))
	if err != nil {
		t.Fatal(err)
	}
	engines[k] = e
	return e
}

// kReader returns at most k bytes per Read; with eofData it returns the
// last bytes together with io.EOF (as iotest.DataErrReader does).
type kReader struct {
	b       []byte
	k       int
	eofData bool
	err     error // returned instead of io.EOF once b is consumed
}

func (r *kReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := min(len(p), r.k, len(r.b))
	copy(p, r.b[:n])
	r.b = r.b[n:]
	if len(r.b) == 0 && r.eofData && r.err == nil {
		return n, io.EOF
	}
	return n, nil
}

// run sanitizes in and returns the output and the evidence as JSON with
// durationNanos cleared.
func run(t testing.TB, e *pipeline.Engine, in io.Reader, info pipeline.MessageInfo, ctx context.Context) ([]byte, []byte, *pipeline.Evidence) {
	t.Helper()
	if ctx == nil {
		ctx = context.Background()
	}
	var out pipeline.Buffer
	ev, err := e.Sanitize(ctx, in, &out, info)
	if err != nil {
		t.Fatalf("Sanitize: %v", err)
	}
	ev.DurationNanos = 0
	evj, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(out.Bytes()), evj, ev
}

// named returns s followed by the file and line of the caller, so a failing
// case points to the line that defines it.
func named(s string) string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s(%s:%d)", s, filepath.Base(file), line)
}

// splitCase is one input of the tables.
type splitCase struct {
	name   string
	in     []byte
	kind   pipeline.Kind // default tool-result
	pol    policyName    // default polDefault
	code   pipeline.Code // expected error code, "" for none; OUTPUT_TRUNCATED for a cut
	reason string        // expected reason of an error result, if set
	cancel bool          // run with a canceled context
	readEr bool          // the reader fails after the input instead of EOF
	anyEnd bool          // any outcome is fine (generated inputs under small bounds)
	schema string        // the tool's outputSchema, if any
}

var compiledSchemas = map[string]*schema.Schema{}

// compiledSchema compiles a schema of the tables once.
func compiledSchema(raw string) *schema.Schema {
	if s := compiledSchemas[raw]; s != nil {
		return s
	}
	s, err := schema.Compile([]byte(raw), schema.Limits{})
	if err != nil {
		panic("a schema of the tables does not compile: " + err.Error())
	}
	compiledSchemas[raw] = s
	return s
}

func (c splitCase) info() pipeline.MessageInfo {
	k := c.kind
	if k == "" {
		k = pipeline.KindToolResult
	}
	info := pipeline.MessageInfo{Kind: k, Tool: "split-test", Server: "srv", Tenant: "t1", RequestID: "r-1"}
	if c.schema != "" {
		info.OutputSchema = compiledSchema(c.schema)
	}
	return info
}

func (c splitCase) policy() policyName {
	if c.pol == "" {
		return polDefault
	}
	return c.pol
}

// tr wraps a text in a tool result.
func tr(text string) []byte {
	return []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
}

// esc JSON-escapes s (without HTML escaping) for use inside tr.
func esc(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:]
}

// edgeCases are hand-written inputs for the corners of the lexer and chain.
func edgeCases() []splitCase {
	secret := func(name string) string { s, _, _ := bench.Secret(name, 42); return s }
	tag := func(name string) string { s, _, _ := bench.Tag(name); return s }
	cases := []splitCase{
		// Escapes of every kind, split anywhere by small reads.
		{name: named("escapes"), in: tr(`a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4e2d\u0000\u001f\u007f`)},
		{name: named("escape-run"), in: tr(strings.Repeat(`\\\"\n\u00e9`, 300))},
		// Surrogate pairs and lone surrogates.
		{name: named("surrogate-pair"), in: tr(`x\ud83d\ude00y\uD83D\uDE00`)},
		{name: named("lone-high"), in: tr(`a\ud83d`)},
		{name: named("lone-high-then-char"), in: tr(`a\ud83db`)},
		{name: named("lone-high-then-escape"), in: tr(`a\ud83d\n`)},
		{name: named("high-high-low"), in: tr(`\ud83d\ud83d\ude00`)},
		{name: named("lone-low"), in: tr(`\ude00x`)},
		{name: named("lone-high-reject"), in: tr(`a\ud83db`), pol: polReject, code: pipeline.CodeInvalidJSON, reason: "invalid-utf8"},
		{name: named("lone-high-at-end-reject"), in: tr(`a\ud83d`), pol: polReject, code: pipeline.CodeInvalidJSON, reason: "invalid-utf8"},
		// Multi-byte UTF-8, NFKC and invisible characters.
		{name: named("multibyte"), in: tr("é中😀👨\u200d👩\u200d👧 ﬁ ｆｕｌｌ e\u0301 Å")},
		{name: named("confusables"), in: tr(strings.Repeat("<\u0455\u0443\u0455tem> p\u0430ssword=Xk39fLq2mZ8vN1 \u041c\u043e\u0441\u043a\u0432\u0430 t\u0435\u0301st \u0455\u0430", 40))},
		{name: named("multibyte-run"), in: tr(strings.Repeat("日本語テキスト😀é", 200))},
		{name: named("invisibles"), in: tr("a\u200bb\u202ec\U000E0041d\u00ade\\u001bf\ufe0fg")},
		{name: named("combining-run"), in: tr("a" + strings.Repeat("\u0301", 70) + "b")},
		// Invalid UTF-8.
		{name: named("invalid-utf8"), in: tr("a\xffb\xc0\xafc\xed\xa0\x80d\xf4\x90\x80\x80e")},
		{name: named("truncated-utf8-at-quote"), in: tr("abc\xe2\x82")},
		{name: named("truncated-utf8-mid"), in: tr("abc\xf0\x9f\x98x")},
		{name: named("invalid-utf8-key"), in: []byte("{\"k\xff\":1,\"content\":[]}")},
		{name: named("invalid-utf8-reject"), in: tr("a\xffb"), pol: polReject, code: pipeline.CodeInvalidJSON, reason: "invalid-utf8"},
		// Secrets and tags, split by small reads.
		{name: named("secrets"), in: tr(esc(strings.Join([]string{secret("github-pat"), secret("aws-access-key-id"),
			secret("openai"), secret("slack"), secret("anthropic"), secret("google-api-key"), secret("jwt"), secret("stripe")}, "\n")))},
		{name: named("private-key"), in: tr(esc("before\n" + secret("private-key") + "\nafter"))},
		{name: named("tags"), in: tr(esc(strings.Join([]string{tag("system"), tag("im-start"), tag("inst"), tag("full-width")}, " ")))},
		{name: named("escaped-tag"), in: tr(`\u003csystem\u003e hi \u003c/system\u003e`)},
		{name: named("mixed-escape-tag"), in: tr(`<sys\u0074em>x</sys\u0074em>`)},
		{name: named("go-html-escaped"), in: tr(`if a \u003c b \u0026\u0026 c \u003E d \u0022q\u0022 \u007e \u005c \u007f \u001f \u00e9`)},
		// Python's json.dumps: every non-ASCII character as \uXXXX; the
		// decoded text crosses the 32 KiB batch boundary inside a rune.
		{name: named("ascii-escaped-cjk"), pol: polBig, in: tr("xy" + strings.Repeat(`\u4e2d\u6587 abc \u00e9\ud83d\ude00 `, 2500))},
		{name: named("escaped-u-spells-escape"), in: tr(`ab\\\u0075200bcd \\\u0075ff21 \\\u0055200b`)},
		{name: named("zero-width-in-tag"), in: tr("<sys\u200btem>x")},
		{name: named("secret-in-key"), in: []byte(`{"` + esc(secret("github-pat")) + `":1,"content":[]}`)},
		{name: named("secret-in-structured"), in: []byte(`{"content":[],"structuredContent":{"a":["` + esc(secret("gitlab-pat")) + `"]}}`)},
		// Truncation at the text bound, with multi-byte runes at the cut.
		{name: named("text-cut"), in: tr(strings.Repeat("abcdé", 40)), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("text-cut-emoji"), in: tr(strings.Repeat("😀", 150)), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("text-cut-exact"), in: tr(strings.Repeat("x", 100)), pol: polSmall},
		{name: named("text-cut-secret"), in: tr(esc(strings.Repeat("y", 90) + " " + secret("github-pat"))), pol: polSmall, code: pipeline.CodeOutputTruncated},
		// The cut falls in the first 32 KiB decode batch; the secret and U+200B
		// lie beyond that batch, so they are never scanned nor counted, whatever
		// the split.
		{name: named("text-cut-long-secret-after"), in: tr(esc(strings.Repeat("a ", 20000) + secret("github-pat") + " \u200b")), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("string-cut"), in: []byte(`{"content":[],"note":"` + strings.Repeat("q", 100) + `"}`), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("blocks-cut"), in: []byte(`{"content":[` + strings.Repeat(`{"type":"text","text":"t"},`, 9) + `{"type":"text","text":"t"}]}`), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("entries-cut"), in: []byte(`{"content":[],"structuredContent":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}`), pol: polSmall, code: pipeline.CodeOutputTruncated},
		{name: named("resource-text-cut"), in: []byte(`{"content":[{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"` + strings.Repeat("r", 150) + `"}}]}`), pol: polSmall, code: pipeline.CodeOutputTruncated},
		// _meta handling.
		{name: named("meta"), in: []byte(`{"content":[{"type":"text","text":"a","_meta":{"x":1,"dev.mcp-sanitize/untrusted":false}}],"_meta":{"dev.mcp-sanitize/guard":"fake","k":[1,{"_meta":{"dev.mcp-sanitize/a":1,"b":2}}]}}`)},
		{name: named("meta-not-object"), in: []byte(`{"content":[],"_meta":"x"}`)},
		{name: named("envelope"), in: []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}],"_meta":{"a":1}}}`)},
		{name: named("envelope-meta-after-result"), in: []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"_meta":{"a":1}},"_meta":{"b":2}}`)},
		{name: named("image"), in: []byte(`{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`)},
		{name: named("image-escaped-b64"), in: []byte(`{"content":[{"type":"image","data":"iVBO\/\u0077\u0030KGgo=","mimeType":"IMAGE/PNG; q=1"}]}`)},
		// Literals, numbers and whitespace.
		{name: named("literals-numbers"), in: []byte(" {\n\t\"content\" : [ ] , \"a\" : [ true , false , null , 0 , -0.5e+10 , 12345678901234567890 , 1E-7 ] } \r\n")},
		{name: named("top-number"), in: []byte(`-12.5e3`), kind: pipeline.KindResourceResult},
		{name: named("top-literal"), in: []byte(` null `), kind: pipeline.KindCompletionResult},
		{name: named("generic-kind"), in: []byte(`{"contents":[{"uri":"a","text":"` + esc(tag("system")) + `"}],"_meta":{"z":1}}`), kind: pipeline.KindResourceResult},
		// Every error class.
		{name: named("empty"), in: nil, code: pipeline.CodeInvalidJSON, reason: "empty-input"},
		{name: named("only-space"), in: []byte(" \n "), code: pipeline.CodeInvalidJSON, reason: "empty-input"},
		{name: named("eof-in-string"), in: []byte(`{"content":[{"type":"text","text":"abc`), code: pipeline.CodeInvalidJSON, reason: "unexpected-eof"},
		{name: named("eof-in-escape"), in: []byte(`{"content":[{"type":"text","text":"abc\u00`), code: pipeline.CodeInvalidJSON, reason: "unexpected-eof"},
		{name: named("trailing-data"), in: []byte(`{"content":[]} {}`), code: pipeline.CodeInvalidJSON, reason: "trailing-data"},
		{name: named("expected-key"), in: []byte(`{"content":[],}`), code: pipeline.CodeInvalidJSON, reason: "expected-key"},
		{name: named("expected-colon"), in: []byte(`{"content" []}`), code: pipeline.CodeInvalidJSON, reason: "expected-colon"},
		{name: named("expected-comma"), in: []byte(`{"content":[] "a":1}`), code: pipeline.CodeInvalidJSON, reason: "expected-comma-or-close"},
		{name: named("expected-value"), in: []byte(`{"content":[,]}`), code: pipeline.CodeInvalidJSON, reason: "expected-value"},
		{name: named("bad-literal"), in: []byte(`{"content":[],"a":tru}`), code: pipeline.CodeInvalidJSON, reason: "bad-literal"},
		{name: named("bad-number"), in: []byte(`{"content":[],"a":-x}`), code: pipeline.CodeInvalidJSON, reason: "bad-number"},
		{name: named("bad-number-frac"), in: []byte(`{"content":[],"a":1.}`), code: pipeline.CodeInvalidJSON, reason: "bad-number"},
		{name: named("leading-zero"), in: []byte(`{"content":[],"a":01}`), code: pipeline.CodeInvalidJSON},
		{name: named("bad-escape"), in: tr(`a\x`), code: pipeline.CodeInvalidJSON, reason: "bad-escape"},
		{name: named("bad-unicode-escape"), in: tr(`a\u12g4`), code: pipeline.CodeInvalidJSON, reason: "bad-escape"},
		{name: named("control-in-string"), in: tr("a\nb"), code: pipeline.CodeInvalidJSON, reason: "control-in-string"},
		{name: named("depth"), in: []byte(`{"content":[],"a":` + strings.Repeat("[", 10) + strings.Repeat("]", 10) + `}`), pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "depth"},
		{name: named("nodes"), in: []byte(`{"content":[],"a":{"b":[` + strings.Repeat("1,", 400) + `1]}}`), pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "nodes"},
		{name: named("key-chars"), in: []byte(`{"content":[],"` + strings.Repeat("k", 30) + `":1}`), pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "key-chars"},
		{name: named("duplicate-key"), in: []byte(`{"content":[],"a":1,"a":2}`), code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: named("duplicate-key-after-normalization"), in: []byte(`{"content":[],"ａ":1,"a\u200b":2}`), code: pipeline.CodeInvalidJSON, reason: "duplicate-key"},
		{name: named("prototype-key"), in: []byte(`{"content":[],"__proto__":{}}`), code: pipeline.CodeBoundExceeded, reason: "prototype-key"},
		{name: named("number-length"), in: []byte(`{"content":[],"a":` + strings.Repeat("9", 5000) + `}`), code: pipeline.CodeBoundExceeded, reason: "number-length"},
		{name: named("meta-bytes"), in: []byte(`{"content":[],"_meta":{"a":[` + strings.Repeat(`"abcdefghij",`, 60) + `"x"]}}`), pol: polSmall, code: pipeline.CodeBoundExceeded},
		{name: named("binary-bytes-then-invalid-utf8"), in: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + strings.Repeat("A", 131) + "\xff\x7f\xff\xff" + strings.Repeat("A", 25) + `"}]}`),
			pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "binary-bytes"},
		{name: named("binary-bytes-then-bad-char"), in: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + strings.Repeat("A", 131) + `$"}]}`),
			pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "binary-bytes"},
		{name: named("binary-bytes"), in: []byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + strings.Repeat("AAAA", 40) + `"}]}`), pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "binary-bytes"},
		{name: named("structured-reject"), in: []byte(`{"content":[],"structuredContent":{"s":"` + strings.Repeat("s", 50) + `"}}`), pol: polReject, code: pipeline.CodeBoundExceeded, reason: "string-chars"},
		{name: named("text-reject"), in: tr(strings.Repeat("t", 150)), pol: polReject, code: pipeline.CodeBoundExceeded, reason: "text-chars"},
		{name: named("meta-string-reject"), in: []byte(`{"content":[],"_meta":{"s":"` + strings.Repeat("m", 50) + `"}}`), pol: polSmall, code: pipeline.CodeBoundExceeded, reason: "string-chars"},
		{name: named("result-not-object"), in: []byte(`[1,2]`), code: pipeline.CodeInvalidContent, reason: "result-not-object"},
		{name: named("envelope-result-not-object"), in: []byte(`{"jsonrpc":"2.0","id":7,"result":[{"content":[]}]}`), code: pipeline.CodeInvalidContent, reason: "result-not-object"},
		{name: named("bad-base64"), in: []byte(`{"content":[{"type":"image","data":"a$==","mimeType":"image/png"}]}`), code: pipeline.CodeInvalidContent, reason: "bad-base64"},
		{name: named("bad-base64-length"), in: []byte(`{"content":[{"type":"image","data":"abcde","mimeType":"image/png"}]}`), code: pipeline.CodeInvalidContent, reason: "bad-base64"},
		{name: named("mime-not-allowed"), in: []byte(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/x-unknown"}]}`), pol: polReject, code: pipeline.CodeInvalidContent, reason: "mime-not-allowed"},
		{name: named("mime-missing"), in: []byte(`{"content":[{"type":"image","data":"AAAA"}]}`), pol: polReject, code: pipeline.CodeInvalidContent, reason: "mime-not-allowed"},
		{name: named("timeout"), in: tr("abc"), cancel: true, code: pipeline.CodeTimeout, reason: "deadline"},
		{name: named("read-error"), in: tr("abc"), readEr: true, code: pipeline.CodeInternal, reason: "read-error"},
		{name: named("error-other-kind"), in: []byte(`{"a":`), kind: pipeline.KindPromptResult, code: pipeline.CodeInvalidJSON},
	}
	return append(cases, structuredCases()...)
}

// Schemas of the structured cases.
const (
	splitWeather = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"},"humidity":{"type":"number"}},"required":["temperature","conditions","humidity"]}`
	splitID      = `{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Za-z0-9_]+$"}},"required":["id"]}`
	splitUsers   = `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"}},"required":["id"]}}`
)

// structuredCases cover the outputSchema path (held members, raw capture
// across reads, mirror texts collected across decode batches) and tool
// errors.
func structuredCases() []splitCase {
	secret := func(name string) string { s, _, _ := bench.Secret(name, 42); return s }
	weather := `{"temperature":22.5,"conditions":"Partly cloudy é​","humidity":65}`
	mirror := esc(`{"temperature": 22.5, "conditions": "Partly cloudy é​", "humidity": 65}`)
	long := strings.Repeat("cloudy é ", 5000) // 50 KiB: more than one decode batch
	return []splitCase{
		{name: named("schema-mirror-first"), schema: splitWeather, in: []byte(`{"content":[{"type":"text","text":"` + mirror + `"}],"structuredContent":` + weather + `}`)},
		{name: named("schema-content-after"), schema: splitWeather, in: []byte(`{"structuredContent":` + weather + `,"content":[{"type":"text","text":"summary"},{"type":"text","text":"` + mirror + `","_meta":{"k":1}}],"_meta":{"m":2}}`)},
		{name: named("schema-projection"), schema: splitWeather, in: []byte(`{"content":[{"type":"text","text":"` + esc(`{"temperature":1,"conditions":"c","humidity":2,"host":"db-7"}`) + `"}],"structuredContent":{"temperature":1,"conditions":"c","humidity":2,"host":"db-7","nested":{"x":[1,2]}}}`)},
		{name: named("schema-big-mirror"), schema: splitWeather, pol: polBig, in: []byte(`{"content":[{"type":"text","text":"` + esc(`{"temperature":1,"conditions":"`+long+`","humidity":2}`) + `"}],"structuredContent":{"temperature":1,"conditions":"` + long + `","humidity":2}}`)},
		{name: named("schema-array"), schema: splitUsers, in: []byte(`{"content":[{"type":"text","text":"2 users"}],"structuredContent":[{"id":"1","name":"` + esc(secret("github-pat")) + `"},{"id":"2","name":"<system>b</system>"}]}`)},
		{name: named("schema-envelope"), schema: splitWeather, in: []byte(`{"jsonrpc":"2.0","id":"s1","result":{"structuredContent":` + weather + `,"content":[{"type":"text","text":"` + mirror + `"}]}}`)},
		{name: named("schema-mismatch"), schema: splitWeather, in: []byte(`{"content":[],"structuredContent":{"temperature":22.5,"conditions":"x","humidity":"high"}}`), code: pipeline.CodeSchemaMismatch, reason: "type"},
		{name: named("schema-after-redaction"), schema: splitID, in: []byte(`{"content":[],"structuredContent":{"id":"` + strings.SplitN(secret("github-pat"), "=", 2)[1] + `"}}`), code: pipeline.CodeSchemaMismatchAfterRedaction, reason: "pattern"},
		{name: named("schema-missing"), schema: splitWeather, in: []byte(`{"content":[{"type":"text","text":"22.5"}],"isError":false}`), code: pipeline.CodeSchemaMismatch, reason: "structured-content-missing"},
		{name: named("schema-structured-bytes"), schema: splitWeather, pol: polSmall, in: []byte(`{"content":[],"structuredContent":{"temperature":1,"conditions":"` + strings.Repeat("c ", 200) + `","humidity":2}}`), code: pipeline.CodeBoundExceeded, reason: "structured-bytes"},
		{name: named("schema-invalid-raw"), schema: splitWeather, in: []byte("{\"content\":[],\"structuredContent\":{\"temperature\":1,\"conditions\":\"\xff\",\"humidity\":2}}"), code: pipeline.CodeSchemaMismatch, reason: "structured-content-invalid"},
		{name: named("tool-error-stack"), in: []byte(`{"content":[{"type":"text","text":"` + esc("E_DB: Traceback (most recent call last):\n  File \"/srv/x.py\", line 3\nSQLSTATE 42P01 token="+secret("github-pat")) + `"}],"structuredContent":{"code":"E_DB"},"isError":true}`), code: pipeline.CodeToolError},
		{name: named("tool-error-schema"), schema: splitWeather, in: []byte(`{"isError":true,"content":[{"type":"text","text":"NOT_FOUND: no city"}]}`), code: pipeline.CodeToolError},
		{name: named("tool-error-envelope"), in: []byte(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"at f (/a/b.js:1:2)"}],"isError":true}}`), code: pipeline.CodeToolError},
	}
}

// generatedCases are documents of every shape with everything planted.
func generatedCases(size int) []splitCase {
	var cases []splitCase
	for _, s := range bench.Shapes() {
		d := bench.Generate(bench.Options{Seed: uint64(size) + uint64(s), Shape: s, Size: size, Secrets: 3, Tags: 3, Invisible: 3})
		cases = append(cases, splitCase{name: fmt.Sprintf("gen-%s-%d", s, size), in: d.JSON, pol: polBig})
		cases = append(cases, splitCase{name: fmt.Sprintf("gen-%s-%d-small", s, size), in: d.JSON, pol: polSmall, anyEnd: true})
	}
	return cases
}

// runCase runs c through e with a reader of at most k bytes per Read
// (k <= 0: one Read for everything).
func runCase(t testing.TB, e *pipeline.Engine, c splitCase, k int, eofData bool) ([]byte, []byte, *pipeline.Evidence) {
	t.Helper()
	if k <= 0 {
		k = len(c.in) + 1
	}
	r := &kReader{b: c.in, k: k, eofData: eofData}
	if c.readEr {
		r.err = errors.New("connection reset")
	}
	var ctx context.Context
	if c.cancel {
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		ctx = cctx
	}
	return run(t, e, r, c.info(), ctx)
}

func TestSplitInvariance(t *testing.T) {
	cases := append(edgeCases(), generatedCases(3<<10)...)
	cases = append(cases, memberContextCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := engine(t, c.policy(), 64<<10)
			wantOut, wantEv, ev := runCase(t, base, c, 0, false)
			if msg := checkExpectation(c, wantOut, ev); msg != "" {
				t.Fatalf("%s", msg)
			}
			for _, chunk := range []int{512, 4096, 64 << 10} {
				e := engine(t, c.policy(), chunk)
				for k := 1; k <= 64; k++ {
					out, evj, _ := runCase(t, e, c, k, k%2 == 0)
					if !bytes.Equal(out, wantOut) {
						t.Fatalf("chunk %d, reads of %d: output differs\n got: %.400q\nwant: %.400q", chunk, k, out, wantOut)
					}
					if !bytes.Equal(evj, wantEv) {
						t.Fatalf("chunk %d, reads of %d: evidence differs\n got: %s\nwant: %s", chunk, k, evj, wantEv)
					}
				}
			}
		})
	}
}

// TestSplitInvarianceLarge covers strings longer than the decode and emit
// flush sizes (32 KiB) with fewer read sizes.
func TestSplitInvarianceLarge(t *testing.T) {
	for _, c := range generatedCases(96 << 10) {
		if c.pol != polBig {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			wantOut, wantEv, _ := runCase(t, engine(t, c.pol, 64<<10), c, 0, false)
			for _, chunk := range []int{512, 4096, 64 << 10} {
				e := engine(t, c.pol, chunk)
				for _, k := range []int{1, 3, 61, 1000, 40000} {
					if testing.Short() && k == 1 {
						continue
					}
					out, evj, _ := runCase(t, e, c, k, true)
					if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
						t.Fatalf("chunk %d, reads of %d: output or evidence differs", chunk, k)
					}
				}
			}
		})
	}
}

// checkExpectation checks the outcome a case states, the validity of the
// output, and that an error result carries the code; it returns what is
// wrong, or "".
func checkExpectation(c splitCase, out []byte, ev *pipeline.Evidence) string {
	if !json.Valid(out) {
		return fmt.Sprintf("output is not valid JSON: %q", out)
	}
	switch {
	case c.anyEnd:
	case c.code == "":
		if ev.Outcome == pipeline.OutcomeRejected || ev.Outcome == pipeline.OutcomeTruncated {
			return fmt.Sprintf("outcome %s (%s %s), want success", ev.Outcome, ev.Code, ev.Reason)
		}
	case c.code == pipeline.CodeToolError:
		if ev.Outcome != pipeline.OutcomeSanitized || ev.Code != c.code || ev.ToolError == nil {
			return fmt.Sprintf("outcome %s code %s (%s), want a rewritten tool error", ev.Outcome, ev.Code, ev.Reason)
		}
	case c.code == pipeline.CodeOutputTruncated:
		if ev.Outcome != pipeline.OutcomeTruncated || ev.Code != c.code {
			return fmt.Sprintf("outcome %s code %s (%s), want truncated", ev.Outcome, ev.Code, ev.Reason)
		}
	default:
		if ev.Outcome != pipeline.OutcomeRejected || ev.Code != c.code || c.reason != "" && ev.Reason != c.reason {
			return fmt.Sprintf("outcome %s code %s reason %s, want rejected %s %s", ev.Outcome, ev.Code, ev.Reason, c.code, c.reason)
		}
		var r struct {
			Meta map[string]any `json:"_meta"`
			Err  *struct {
				Data map[string]any
			} `json:"error"`
		}
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0",`)) && json.Unmarshal(out, &env) == nil && env.Result != nil {
			out = env.Result // a tool error result keeps the envelope
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return err.Error()
		}
		meta := r.Meta
		if r.Err != nil {
			meta = r.Err.Data
		}
		if meta[pipeline.MetaPrefix+"code"] != string(c.code) {
			return fmt.Sprintf("error result without code %s: %s", c.code, out)
		}
	}
	return ""
}
