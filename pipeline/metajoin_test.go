package pipeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// metaJoinCases are tool results whose _meta holds a secret split over two
// adjacent string values (metajoin.go), and neighbours that are not
// adjacent. want: the secret's bytes must all be gone (true) or the _meta
// must come out as it went in (false).
func metaJoinCases() []struct {
	c      splitCase
	secret string
	want   bool
} {
	_, ghn, _ := bench.Secret("github-pat", 42)
	_, awsn, _ := bench.Secret("aws-access-key-id", 42)
	gh, aws := ghn[0], awsn[0]
	h1, h2 := gh[:12], gh[12:]
	a1, a2 := aws[:4], aws[4:]
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	body := `{"content":[{"type":"text","text":"ok"}],"_meta":`
	type tc = struct {
		c      splitCase
		secret string
		want   bool
	}
	return []tc{
		{splitCase{name: named("meta-join-members"), in: []byte(body + `{"a":` + q("token "+h1) + `,"b":` + q(h2+" end") + `}}`)}, gh, true},
		{splitCase{name: named("meta-join-block"), in: []byte(`{"content":[{"type":"text","text":"ok","_meta":{"p":` + q(h1) + `,"q":` + q(h2) + `}}]}`)}, gh, true},
		{splitCase{name: named("meta-join-nested"), in: []byte(body + `{"n":{"x":1,"a":` + q(h1) + `,"b":` + q(h2) + `}}}`)}, gh, true},
		{splitCase{name: named("meta-join-array"), in: []byte(body + `{"l":[1,` + q(a1) + `,` + q(a2) + `]}}`)}, aws, true},
		{splitCase{name: named("meta-join-reserved-between"), in: []byte(body + `{"a":` + q(h1) + `,"dev.mcp-sanitize/x":1,"b":` + q(h2) + `}}`)}, gh, true},
		{splitCase{name: named("meta-join-envelope"), in: []byte(`{"jsonrpc":"2.0","id":1,"result":` + body + `{"a":` + q(h1) + `,"b":` + q(h2) + `}}}`)}, gh, true},
		{splitCase{name: named("meta-join-number-between"), in: []byte(body + `{"a":` + q(h1) + `,"n":1,"b":` + q(h2) + `}}`)}, gh, false},
		{splitCase{name: named("meta-join-other-objects"), in: []byte(body + `{"x":{"a":` + q(h1) + `},"y":{"b":` + q(h2) + `}}}`)}, gh, false},
		{splitCase{name: named("meta-join-key-value"), in: []byte(body + `{` + q(h1) + `:` + q(h2) + `}}`)}, gh, false},
		{splitCase{name: named("meta-join-plain"), in: []byte(body + `{"a":"build 1234","b":"cache hit","c":"ghp_","d":"notes"}}`)}, "", false},
	}
}

// TestMetaJoin: a secret split over two adjacent string values of a held
// _meta is redacted whole, with one finding from the first value's pointer
// to the second's; values that are not adjacent (another member between,
// other objects, a key and its value) are left as they are. The output is
// the same for every read size and chunk, and what the reference model
// gives.
func TestMetaJoin(t *testing.T) {
	for _, x := range metaJoinCases() {
		t.Run(x.c.name, func(t *testing.T) {
			e := engine(t, polDefault, 4096)
			out, _, ev := runCase(t, e, x.c, 0, false)
			if msg := compareWithReference(t, e, x.c.in, x.c.info()); msg != "" {
				t.Fatal(msg)
			}
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			if r, ok := doc["result"].(map[string]any); ok {
				doc = r
			}
			if x.want {
				for i := 0; i+8 <= len(x.secret); i++ {
					if bytes.Contains(out, []byte(x.secret[i:i+8])) {
						t.Fatalf("the secret's bytes %q survive: %s", x.secret[i:i+8], out)
					}
				}
				if len(ev.Findings) != 1 || ev.Findings[0].EndPointer == "" || ev.Findings[0].EndPointer == ev.Findings[0].Pointer {
					t.Fatalf("findings %+v, want one across two values", ev.Findings)
				}
			} else {
				var in map[string]any
				if err := json.Unmarshal(x.c.in, &in); err != nil {
					t.Fatal(err)
				}
				got, _ := json.Marshal(stripReserved(doc["_meta"]))
				want, _ := json.Marshal(in["_meta"])
				if !bytes.Equal(got, want) && !strings.Contains(x.c.name, "reserved") {
					t.Fatalf("_meta changed:\n got %s\nwant %s", got, want)
				}
				if len(ev.Findings) != 0 {
					t.Fatalf("findings %+v, want none", ev.Findings)
				}
			}
			wantOut, wantEv, _ := runCase(t, engine(t, polDefault, 64<<10), x.c, 0, false)
			for _, chunk := range []int{512, 4096} {
				for _, k := range []int{1, 2, 7, 64} {
					o, evj, _ := runCase(t, engine(t, polDefault, chunk), x.c, k, k%2 == 0)
					if !bytes.Equal(o, wantOut) || !bytes.Equal(evj, wantEv) {
						t.Fatalf("chunk %d, reads of %d: output or evidence differs", chunk, k)
					}
				}
			}
		})
	}
}

// TestMetaJoinOff: block-join-bytes 0 turns the join across members off
// too.
func TestMetaJoinOff(t *testing.T) {
	x := metaJoinCases()[0]
	p := testPolicy(polDefault, 4096)
	p.Limits = map[string]int64{pipeline.BlockJoinBytesLimit: 0}
	e, err := pipeline.NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ev := runCase(t, e, x.c, 0, false)
	if len(ev.Findings) != 0 {
		t.Fatalf("findings %+v with the join off", ev.Findings)
	}
	if msg := compareWithReference(t, e, x.c.in, x.c.info()); msg != "" {
		t.Fatal(msg)
	}
}

// stripReserved drops the sanitizer's own members of a _meta.
func stripReserved(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if !strings.HasPrefix(k, pipeline.MetaPrefix) {
			out[k] = x
		}
	}
	return out
}
