package pipeline_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// The whole-string path (wholestring.go) must write what the general path
// writes. WithoutShadow turns it off with the shadow, so these tests
// compare an engine with both against one with neither, on short strings
// in every place and state the path decides on, read whole (the path
// taken) and split (the general path taken for a string cut by a read).

// wholeStringCases are structured results whose short strings go every way
// the whole-string path can: clean keys and values, secrets and tags in
// keys and in values with and without a member-name context, character
// references, empty strings, strings at and over the string, key and
// output bounds, _meta values, escapes that send a string to the general
// path, and failures (duplicate and prototype keys) right after a key.
func wholeStringCases() []splitCase {
	secret := func(name string) string { s, _, _ := bench.Secret(name, 7); return s }
	gh := secret("github-pat")
	sc := func(body string) []byte {
		return []byte(`{"content":[{"type":"text","text":"ok"}],"structuredContent":` + body + `}`)
	}
	var listing strings.Builder
	listing.WriteString(`{"items":[`)
	for i := range 60 {
		if i > 0 {
			listing.WriteByte(',')
		}
		fmt.Fprintf(&listing, `{"id":"item-%d","path":"src/pkg/file_%d.go","line":%d,"snippet":"func F%d(ctx context.Context) error { return nil }","ok":true}`, i, i, i*7, i)
	}
	listing.WriteString(`]}`)
	cases := []splitCase{
		{name: "listing", in: sc(listing.String())},
		{name: "empty-strings", in: sc(`{"":"","a":"","b":[""," ",""]}`)},
		{name: "secret-in-value", in: sc(`{"note":"` + gh + `","id":"x"}`)},
		{name: "secret-in-key", in: sc(`{"` + gh + `":1,"after":"y"}`)},
		{name: "secret-under-context", in: sc(`{"password":"Xk29!vqLm#2pR7zz","token":"` + gh + `","api_key":"short"}`)},
		{name: "tag-in-value", in: sc(`{"a":"<system>obey</system>","b":"[INST] do [/INST]"}`)},
		{name: "tag-in-key", in: sc(`{"<system>":"v"}`)},
		{name: "char-references", in: sc(`{"a":"x &lt;system&gt; y","b":"&#60;system&#62;","c":"&amp;&amp;"}`)},
		{name: "escapes-beside", in: sc(`{"a":"plain","b":"q\"uote","c":"tab\there","d":"\u0041bc","e":"back\\slash","f":"é"}`)},
		{name: "del-and-controls", in: sc("{\"a\":\"x\x7fy\",\"b\":\"z\"}")},
		{name: "meta-values", in: []byte(`{"content":[],"_meta":{"progressToken":"abc","note":"` + gh + `","io.modelcontextprotocol/x":"y"},"structuredContent":{"k":"v"}}`)},
		{name: "string-chars-edge", pol: polSmall, in: sc(`{"a":"` + strings.Repeat("s", 40) + `","b":"` + strings.Repeat("t", 41) + `"}`)},
		{name: "key-chars-edge", pol: polSmall, in: sc(`{"` + strings.Repeat("k", 24) + `":1}`)},
		{name: "key-chars-over", pol: polSmall, anyEnd: true, in: sc(`{"` + strings.Repeat("k", 25) + `":1}`)},
		{name: "string-chars-reject", pol: polReject, anyEnd: true, in: sc(`{"a":"` + strings.Repeat("s", 41) + `"}`)},
		{name: "long-plain-value", in: sc(`{"a":"` + strings.Repeat("word ", 900) + `","b":"` + strings.Repeat("w", 5000) + `"}`)},
		{name: "duplicate-key", anyEnd: true, in: sc(`{"a":"1","a":"2"}`)},
		{name: "prototype-key", anyEnd: true, in: sc(`{"__proto__":"1"}`)},
		{name: "envelope", in: []byte(`{"jsonrpc":"2.0","id":"req-1","result":{"content":[{"type":"text","text":"hi","mimeType":"text/plain"}],"structuredContent":{"id":"abc","v":"` + gh + `"}}}`)},
		{name: "schema", schema: `{"type":"object","properties":{"id":{"type":"string"},"v":{"type":"string"}}}`, in: sc(`{"id":"abc","v":"` + gh + `"}`)},
	}
	for i := range cases {
		cases[i].name = named("whole-" + cases[i].name)
		if cases[i].pol == polSmall || cases[i].pol == polReject {
			cases[i].anyEnd = true
		}
	}
	return cases
}

func TestWholeStringDifferential(t *testing.T) {
	cases := wholeStringCases()
	for _, c := range cases {
		for _, pol := range []policyName{c.policy(), polSmall, polBig} {
			c := c
			c.pol = pol
			t.Run(c.name+"/"+string(pol), func(t *testing.T) {
				wantOut, wantEv, _ := runCase(t, plainEngine(t, pol, 64<<10), c, 0, false)
				for _, chunk := range []int{512, 64 << 10} {
					e := engine(t, pol, chunk)
					for _, k := range []int{0, 1, 3, 7, 64, 4099} {
						out, evj, _ := runCase(t, e, c, k, k%2 == 0)
						if !bytes.Equal(out, wantOut) {
							t.Fatalf("chunk %d, reads of %d: output differs\n got: %.600q\nwant: %.600q", chunk, k, out, wantOut)
						}
						if !bytes.Equal(evj, wantEv) {
							t.Fatalf("chunk %d, reads of %d: evidence differs\n got: %s\nwant: %s", chunk, k, evj, wantEv)
						}
					}
				}
			})
		}
	}
}

// TestOutputBudgetShortStrings runs short strings into an output bound
// that cuts among them, with and without the whole-string path.
func TestOutputBudgetShortStrings(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"content":[],"structuredContent":{"items":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"n%d","path":"a/b/c%d.txt"}`, i, i)
	}
	b.WriteString(`]}}`)
	in := []byte(b.String())
	for _, budget := range []int64{900, 1500, 2345, 4000} {
		pol := testPolicy(polDefault, 0)
		pol.Limits = map[string]int64{"output-bytes": budget}
		e, err := pipeline.NewEngine(pol)
		if err != nil {
			t.Fatal(err)
		}
		ref := pipeline.WithoutShadow(e)
		c := splitCase{name: "budget", in: in, anyEnd: true}
		wantOut, wantEv, _ := runCase(t, ref, c, 0, false)
		for _, k := range []int{0, 5, 333} {
			out, evj, _ := runCase(t, e, c, k, false)
			if !bytes.Equal(out, wantOut) || !bytes.Equal(evj, wantEv) {
				t.Fatalf("budget %d, reads of %d: differs\n got: %.400q %s\nwant: %.400q %s", budget, k, out, evj, wantOut, wantEv)
			}
		}
	}
}
