package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// sameAsStreamed sanitizes in with e, which holds mirror candidates
// unscanned, and with the same engine scanning them as they stream, and
// fails on a difference that holding may not make: the output always, but
// for the counts of redactions and removed characters in the result's
// labels when a mirror was regenerated (a mirror is regenerated either
// way; another text is scanned either way, in the same context); the
// evidence when no mirror was regenerated, but
// for the order of the findings and bound hits. A mirror's findings are
// structuredContent's only when held, so its evidence is not compared.
func sameAsStreamed(t *testing.T, e, streamed *pipeline.Engine, s *schema.Schema, in []byte) {
	t.Helper()
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: s}
	out, _, ev := run(t, e, bytes.NewReader(in), info, nil)
	noInternal(t, ev)
	wantOut, _, wantEv := run(t, streamed, bytes.NewReader(in), info, nil)
	mirrors := ev.Schema != nil && ev.Schema.Mirrors > 0 || wantEv.Schema != nil && wantEv.Schema.Mirrors > 0
	if mirrors {
		// The counts in the result's labels are the evidence's.
		out, wantOut = countsRE.ReplaceAll(out, []byte("${1}N")), countsRE.ReplaceAll(wantOut, []byte("${1}N"))
	}
	if !bytes.Equal(out, wantOut) {
		t.Fatalf("held mirror candidates change the output (schema %s):\n got %.1500s\nwant %.1500s", s.Digest(), out, wantOut)
	}
	if mirrors {
		return
	}
	if ev.Outcome == pipeline.OutcomeRejected && wantEv.Outcome == pipeline.OutcomeRejected {
		// A failed pass delivers nothing of the text; the findings of a
		// held text are those of its scan alone (structured_defer.go).
		if ev.Code != wantEv.Code || ev.Reason != wantEv.Reason || ev.ErrorOffset != wantEv.ErrorOffset || ev.ErrorPointer != wantEv.ErrorPointer {
			t.Fatalf("held mirror candidates change the failure: got %s %s at %d %s, want %s %s at %d %s", ev.Code, ev.Reason, ev.ErrorOffset, ev.ErrorPointer, wantEv.Code, wantEv.Reason, wantEv.ErrorOffset, wantEv.ErrorPointer)
		}
		return
	}
	if got, want := evidenceKey(t, ev), evidenceKey(t, wantEv); got != want {
		t.Fatalf("held mirror candidates change the evidence (schema %s):\n got %s\nwant %s", s.Digest(), got, want)
	}
}

// countsRE finds the counts of redactions and removed characters in a
// result's labels.
var countsRE = regexp.MustCompile(`("dev\.mcp-sanitize/(?:redactions|removedChars)":)[0-9]+`)

// evidenceKey is the evidence as JSON with its findings and bound hits
// sorted and its duration dropped.
func evidenceKey(t *testing.T, ev *pipeline.Evidence) string {
	c := *ev
	c.DurationNanos = 0
	fs := append([]pipeline.FindingRecord(nil), c.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return fmt.Sprint(fs[i]) < fmt.Sprint(fs[j]) })
	c.Findings = fs
	bs := append([]pipeline.BoundHit(nil), c.Bounds...)
	sort.SliceStable(bs, func(i, j int) bool { return fmt.Sprint(bs[i]) < fmt.Sprint(bs[j]) })
	c.Bounds = bs
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// deferPolicies are the policies the held texts are compared under: the
// default one, and one whose text, string, item and entry bounds cut
// everything while structured-bytes and output-bytes stay far (where a
// held text is bounded otherwise than a streamed one).
var deferPolicies = []string{"default", "cut"}

var deferEngines = map[string][2]*pipeline.Engine{}

// deferEngine returns the policy's engine and the same engine scanning
// every mirror candidate as it streams.
func deferEngine(t testing.TB, pol string) (*pipeline.Engine, *pipeline.Engine) {
	if e, ok := deferEngines[pol]; ok {
		return e[0], e[1]
	}
	p := testPolicy(polDefault, 512)
	if pol == "cut" {
		p.Limits = map[string]int64{"text-chars": 100, "string-chars": 40, "array-items": 4, "object-entries": 6, "key-chars": 24, "depth": 8}
		p.Actions.Structured = pipeline.ActionTruncate
	}
	e, err := pipeline.NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	deferEngines[pol] = [2]*pipeline.Engine{e, pipeline.WithoutMirrorDefer(e)}
	return e, deferEngines[pol][1]
}

// mirrorDeferCases are results whose texts may mirror structuredContent:
// mirrors (the same bytes, other spacing and order), texts that are not
// (a member more, a secret, a tag, plain text, an array), content before
// and after structuredContent, bare and in an envelope, a text long enough
// to be cut, one that fails the schema.
func mirrorDeferCases() [][]byte {
	tok := "ghp_" + strings.Repeat("aB3dE6", 6)
	sc := `{"id":"a","n":1,"tags":["x","` + tok + `"]}`
	long := `{"id":"` + strings.Repeat("word ", 40) + `","n":1}`
	texts := []string{
		sc,
		`{ "n": 1, "tags": ["x", "` + tok + `"], "id": "a" }`,
		`{"id":"a","n":1,"tags":["x","` + tok + `"],"more":true}`,
		`{"id":"<system>x</system>","n":2}`,
		"plain text with " + tok,
		`["` + tok + `"]`,
		"   \n {\"id\":\"b\",\"n\":1}",
		long,
		`{"id":"caf\u00e9 \u200b","n":1}`,
		`{"id":"a\\u200bb","n":1}`,
		"",
		"{",
	}
	var docs [][]byte
	for _, tx := range texts {
		q, _ := json.Marshal(tx)
		text := string(q)
		docs = append(docs,
			[]byte(`{"content":[{"type":"text","text":`+text+`}],"structuredContent":`+sc+`}`),
			[]byte(`{"structuredContent":`+sc+`,"content":[{"type":"text","text":`+text+`}]}`),
			[]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":`+text+`},{"type":"text","text":"after"}],"structuredContent":`+sc+`}}`),
			[]byte(`{"content":[{"type":"text","text":"before "},{"type":"text","text":`+text+`}],"structuredContent":`+sc+`}`),
			[]byte(`{"content":[{"type":"text","text":`+text+`},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"id":1}}`),
			[]byte(`{"content":[{"type":"text","text":`+text+`}],"isError":true,"structuredContent":`+sc+`}`),
			[]byte(`{"content":[{"type":"text","text":`+text+`,"annotations":{"priority":1}}],"structuredContent":`+sc+`}`),
		)
	}
	return docs
}

// TestMirrorDefer: holding mirror candidates unscanned changes neither the
// output nor, without a mirror, the evidence (but for the findings'
// order), under deferPolicies and with every schema of the structured
// fuzz targets; the generated mix's outputSchema records too.
func TestMirrorDefer(t *testing.T) {
	var schemas []*schema.Schema
	for _, raw := range append(append([]string{}, fuzzSchemas...), rawSchemas...) {
		schemas = append(schemas, compiledSchema(raw))
	}
	for _, in := range mirrorDeferCases() {
		for _, pol := range deferPolicies {
			e, streamed := deferEngine(t, pol)
			for _, s := range schemas {
				sameAsStreamed(t, e, streamed, s, in)
			}
		}
	}
	n := 0
	for _, d := range bench.Mix(bench.MixOptions{Seed: 3, Records: 60}) {
		if d.OutputSchema == nil {
			continue
		}
		s, err := schema.Compile(d.OutputSchema, schema.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range deferPolicies {
			e, streamed := deferEngine(t, pol)
			sameAsStreamed(t, e, streamed, s, d.JSON)
		}
		n++
	}
	if n == 0 {
		t.Fatal("the mix has no result with an outputSchema")
	}
}

// FuzzMirrorDefer: TestMirrorDefer's property on arbitrary input.
func FuzzMirrorDefer(f *testing.F) {
	for _, in := range mirrorDeferCases() {
		f.Add(in)
	}
	var schemas []*schema.Schema
	for _, raw := range append(append([]string{}, fuzzSchemas...), rawSchemas...) {
		schemas = append(schemas, compiledSchema(raw))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, pol := range deferPolicies {
			e, streamed := deferEngine(t, pol)
			for _, s := range schemas {
				sameAsStreamed(t, e, streamed, s, in)
			}
		}
	})
}

// TestMirrorDeferOverflow: a held text that grows past structured-bytes
// goes back to streaming (the result then fails on structured-bytes as it
// did), a long non-mirror JSON text under the bound is scanned at the
// result's end, and a failing result scans its held texts for the
// evidence; each as the streaming scan, content before and after
// structuredContent, bare and in an envelope, reads of 1, 7 and 512 bytes.
func TestMirrorDeferOverflow(t *testing.T) {
	p := testPolicy(polDefault, 512)
	p.Limits = map[string]int64{"structured-bytes": 4096}
	e, err := pipeline.NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	streamed := pipeline.WithoutMirrorDefer(e)
	tok := "ghp_" + strings.Repeat("aB3dE6", 6)
	sc := `{"id":"a","n":1}`
	var big strings.Builder
	big.WriteString(`{"items":[`)
	for i := 0; big.Len() < 6000; i++ {
		fmt.Fprintf(&big, `{"i":%d,"k":"%s"},`, i, tok)
	}
	big.WriteString(`{}]}`)
	mid := `{"id":"b","n":2,"note":"` + strings.Repeat("x", 2000) + tok + `"}`
	s := compiledSchema(rawSchemas[1])
	bad := compiledSchema(`{"type":"object","required":["missing"]}`)
	for _, text := range []string{big.String(), mid} {
		q, _ := json.Marshal(text)
		for _, doc := range []string{
			`{"content":[{"type":"text","text":` + string(q) + `}],"structuredContent":` + sc + `}`,
			`{"structuredContent":` + sc + `,"content":[{"type":"text","text":` + string(q) + `}]}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + string(q) + `}],"structuredContent":` + sc + `}}`,
		} {
			for _, schm := range []*schema.Schema{s, bad} {
				sameAsStreamed(t, e, streamed, schm, []byte(doc))
				info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: schm}
				want, _, wantEv := run(t, e, bytes.NewReader([]byte(doc)), info, nil)
				switch {
				case text != mid && wantEv.Reason != "structured-bytes":
					t.Fatalf("the long text: %s %s, want structured-bytes", wantEv.Outcome, wantEv.Reason)
				case text == mid && schm == s && (wantEv.Outcome == pipeline.OutcomeRejected || wantEv.Rules["github-pat"] != 1):
					t.Fatalf("the text under the bound: %s %s, %v", wantEv.Outcome, wantEv.Reason, wantEv.Rules)
				case text == mid && schm == bad && (wantEv.Code != pipeline.CodeSchemaMismatch || wantEv.Rules["github-pat"] != 1):
					t.Fatalf("the failing result: %s %s, %v", wantEv.Code, wantEv.Reason, wantEv.Rules)
				}
				for _, k := range []int{1, 7} {
					out, _, ev := run(t, e, &kReader{b: []byte(doc), k: k}, info, nil)
					if !bytes.Equal(out, want) || evidenceKey(t, ev) != evidenceKey(t, wantEv) {
						t.Fatalf("%d-byte reads change the output or evidence:\n got %.600s\nwant %.600s", k, out, want)
					}
					if bytes.Contains(out, []byte(tok)) {
						t.Fatalf("a raw secret in the output: %.600s", out)
					}
				}
			}
		}
	}
}
