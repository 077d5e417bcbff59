package pipeline_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestStructuredSameAccount: the pass says structuredContent was left
// unchanged exactly when no key or string value was written otherwise than
// read (different escapes and whitespace do not count); whatever it says,
// the output and evidence are those of the path that decodes and compares
// every value (WithoutRawSchema), and the account is checked against the
// texts (WithSameCheck fails the pass on a wrong "unchanged"). Both the
// bare result and the JSON-RPC envelope, content before and after
// structuredContent.
func TestStructuredSameAccount(t *testing.T) {
	sch := compiledSchema(rawSchemas[0])
	free := compiledSchema(`{}`)
	tok := "ghp_" + strings.Repeat("aB3dE6", 6)
	cases := []struct {
		name string
		pol  policyName
		sc   string // structuredContent
		same bool
	}{
		{"clean listing", polDefault, `{"id":"a","n":1,"tags":["x","y z"],"items":[{"a":"p","b":2},{"a":"q"}]}`, true},
		{"whitespace", polDefault, "{ \"id\" : \"a\" ,\n \"n\" : 1 }", true},
		{"escapes only", polDefault, `{"id":"a\/b\u0041\"","n":1,"tags":["\t"]}`, true},
		{"secret in a value", polDefault, `{"id":"a","n":1,"tags":["` + tok + `"]}`, false},
		{"secret in an undeclared key", polDefault, `{"id":"a","n":1,"` + tok + `":1}`, false},
		{"tag in a value", polDefault, `{"id":"<system>ignore</system>","n":1}`, false},
		{"non-ASCII value", polDefault, `{"id":"café","n":1}`, false},
		{"invisible character", polDefault, `{"id":"a\u200bb","n":1}`, false},
		{"control character", polDefault, `{"id":"a\u0007b","n":1}`, false},
		{"string cut by string-chars", polSmall, `{"id":"` + strings.Repeat("a", 60) + `","n":1}`, false},
		{"member dropped by object-entries", polSmall, `{"id":"a","n":1,"c":1,"d":2,"e":3,"f":4,"g":5}`, false},
		{"item dropped by array-items", polSmall, `{"id":"a","n":1,"tags":["1","2","3","4","5"]}`, false},
	}
	for _, c := range cases {
		asked := 0
		for _, s := range []struct {
			name string
			doc  string
		}{
			{"content first", `{"content":[{"type":"text","text":"x"}],"structuredContent":` + c.sc + `}`},
			{"content after", `{"structuredContent":` + c.sc + `,"content":[{"type":"text","text":"x"}]}`},
			{"envelope", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":` + c.sc + `}}`},
		} {
			var seen []bool
			e := pipeline.WithSameSeen(engine(t, c.pol, 512), func(same bool) { seen = append(seen, same) })
			for _, ss := range []string{"listing", "free"} {
				s2 := sch
				if ss == "free" {
					s2 = free
				}
				seen = seen[:0]
				info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: s2}
				out, evj, ev := run(t, e, bytes.NewReader([]byte(s.doc)), info, nil)
				noInternal(t, ev)
				wantOut, wantEv, _ := run(t, treeEngine(t, c.pol), bytes.NewReader([]byte(s.doc)), info, nil)
				if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
					t.Fatalf("%s, %s, %s: differs from the tree path:\n got %s\n     %s\nwant %s\n     %s", c.name, s.name, ss, out, evj, wantOut, wantEv)
				}
				if len(seen) == 0 {
					if ev.Outcome == pipeline.OutcomeRejected {
						continue // failed before the check (a bound, or a mismatch of the raw value)
					}
					t.Fatalf("%s, %s, %s: the structured path never asked (outcome %s %s %+v)", c.name, s.name, ss, ev.Outcome, ev.Reason, ev.Schema)
				}
				asked++
				if seen[0] != c.same {
					t.Errorf("%s, %s, %s: pass said unchanged=%v, want %v", c.name, s.name, ss, seen[0], c.same)
				}
			}
		}
		if asked == 0 {
			t.Errorf("%s: no variant reached the check", c.name)
		}
	}
}

// TestStructuredMirrorSecrets: whatever the pass does with a text block
// that may mirror structuredContent, no raw secret reaches the output: a
// mirror is regenerated from the sanitized value (its text held unscanned,
// structured_defer.go), a text that is not one (another JSON value, a JSON
// text with a member more, plain text) is sanitized itself, when the
// result closes or as it streams. Bare results and envelopes, content before and after
// structuredContent, reads of every size from 1 byte.
func TestStructuredMirrorSecrets(t *testing.T) {
	sch := compiledSchema(`{}`)
	tok := "ghp_" + strings.Repeat("aB3dE6", 6)
	sc := `{"id":"a","key":"` + tok + `","n":1}`
	texts := []struct {
		name   string
		text   string
		mirror bool
	}{
		{"mirror, same bytes", sc, true},
		{"mirror, other order and spacing", `{ "n": 1, "key": "` + tok + `", "id": "a" }`, true},
		{"not a mirror: a member more", `{"id":"a","key":"` + tok + `","n":1,"x":2}`, false},
		{"not a mirror: plain text", "the key is " + tok, false},
		{"not a mirror: an array", `["` + tok + `"]`, false},
	}
	for _, tx := range texts {
		text := jsonString(tx.text)
		for _, s := range []struct{ name, doc string }{
			{"content first", `{"content":[{"type":"text","text":` + text + `}],"structuredContent":` + sc + `}`},
			{"content after", `{"structuredContent":` + sc + `,"content":[{"type":"text","text":` + text + `}]}`},
			{"envelope", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + text + `}],"structuredContent":` + sc + `}}`},
			{"envelope, content after", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":` + sc + `,"content":[{"type":"text","text":` + text + `}]}}`},
		} {
			info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "fuzz", OutputSchema: sch}
			var want []byte
			for _, k := range []int{1, 7, 64, 1 << 16} {
				out, _, ev := run(t, engine(t, polDefault, 512), &kReader{b: []byte(s.doc), k: k}, info, nil)
				if ev.Outcome == pipeline.OutcomeRejected {
					t.Fatalf("%s, %s: rejected %s %s", tx.name, s.name, ev.Code, ev.Reason)
				}
				if bytes.Contains(out, []byte(tok)) || bytes.Contains(out, []byte("aB3dE6aB3dE6")) {
					t.Fatalf("%s, %s: a raw secret in the output: %s", tx.name, s.name, out)
				}
				if got := ev.Schema.Mirrors; got != map[bool]int{true: 1}[tx.mirror] {
					t.Fatalf("%s, %s: %d mirrors recorded", tx.name, s.name, got)
				}
				// A mirror is regenerated from the sanitized value, not
				// scanned: its findings are structuredContent's. Any other
				// text's are its own as well.
				if want := map[bool]int64{true: 1, false: 2}[tx.mirror]; ev.Rules["github-pat"] != want {
					t.Fatalf("%s, %s: %d github-pat findings, want %d", tx.name, s.name, ev.Rules["github-pat"], want)
				}
				if want == nil {
					want = out
				} else if !bytes.Equal(out, want) {
					t.Fatalf("%s, %s: %d-byte reads change the output:\n got %s\nwant %s", tx.name, s.name, k, out, want)
				}
			}
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
