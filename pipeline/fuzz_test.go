package pipeline_test

import (
	"crypto/sha256"
	"encoding/hex"

	"bytes"
	"encoding/json"
	"fmt"
	"github.com/zeebo/blake3"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bench"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// fuzzOutputBytes is the output-bytes limit of the fuzz policy: small, so
// that arbitrary inputs reach the output bound.
const fuzzOutputBytes = 6 << 10

func fuzzEngine(t testing.TB) *pipeline.Engine {
	k := "fuzz"
	if e := engines[k]; e != nil {
		return e
	}
	p := testPolicy(polSmall, 512)
	p.Limits["output-bytes"] = fuzzOutputBytes
	e, err := pipeline.NewEngine(p)
	if err != nil {
		t.Fatal(err)
	}
	engines[k] = e
	return e
}

// addSeeds seeds a fuzz target with the split tables and generated
// documents.
func addSeeds(f *testing.F) {
	for _, c := range edgeCases() {
		f.Add(c.in)
	}
	for _, s := range bench.Shapes() {
		f.Add(bench.Generate(bench.Options{Seed: uint64(s), Shape: s, Size: 2 << 10, Secrets: 1, Tags: 1, Invisible: 1}).JSON)
	}
	for _, d := range genSeeds() {
		f.Add(d)
	}
}

// errorResults caches the error result of each (engine, kind, tool, code,
// reason): the
// whole output of a rejected pass must be exactly that, which proves that
// nothing of the input reaches it.
var errorResults = map[string][]byte{}

func errorResult(t testing.TB, e *pipeline.Engine, info pipeline.MessageInfo, code pipeline.Code, reason string) []byte {
	k := fmt.Sprintf("%p\x00%s\x00%s\x00%s\x00%s", e, info.Kind, info.Tool, code, reason)
	if info.OutputSchema != nil {
		k += "\x00" + info.OutputSchema.Digest()
	}
	if b, ok := errorResults[k]; ok {
		return b
	}
	var out pipeline.Buffer
	if _, err := e.Reject(nil, &out, info, code, reason); err != nil {
		t.Fatal(err)
	}
	errorResults[k] = bytes.Clone(out.Bytes())
	return errorResults[k]
}

// unwrapEnvelope returns the bare error result inside a JSON-RPC envelope
// error result ({"jsonrpc":"2.0","id":…,"result":R} gives R, …"error":E
// gives {"error":E}); other output comes back as it is. The id must be a
// number, a string or null: whatever else would be input leaking through.
func unwrapEnvelope(t testing.TB, out []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0","id":`)) {
		return out
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("envelope error result is not JSON: %s", out)
	}
	var id any
	if err := json.Unmarshal(env["id"], &id); err != nil {
		t.Fatalf("envelope id: %s", out)
	}
	switch id.(type) {
	case nil, float64, string:
	default:
		t.Fatalf("envelope id is not a number, string or null: %s", out)
	}
	if r, ok := env["result"]; ok && len(env) == 3 {
		return r
	}
	if e, ok := env["error"]; ok && len(env) == 3 {
		return append(append([]byte(`{"error":`), e...), '}')
	}
	t.Fatalf("envelope error result of another shape: %s", out)
	return nil
}

var stableCodes = map[pipeline.Code]bool{
	pipeline.CodeInvalidJSON: true, pipeline.CodeBoundExceeded: true, pipeline.CodeInvalidContent: true,
}

// FuzzSanitize feeds arbitrary bytes to a pass under small bounds. The
// output is always valid JSON and UTF-8 within the output-bytes limit; an
// input that is not JSON is rejected with a stable code, and a rejected
// pass writes exactly the fixed error result; a JSON input is never called
// invalid JSON. Each input also runs in 7-byte reads, which must give the
// same output and the same evidence, for a rejected pass too.
func FuzzSanitize(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		e := fuzzEngine(t)
		for _, kind := range []pipeline.Kind{pipeline.KindToolResult, pipeline.KindResourceResult} {
			info := pipeline.MessageInfo{Kind: kind, Tool: "fuzz"}
			out, evj, ev := run(t, e, bytes.NewReader(in), info, nil)
			noInternal(t, ev)
			if !json.Valid(out) || !utf8.Valid(out) {
				t.Fatalf("%s: output is not valid JSON or UTF-8: %q", kind, out)
			}
			if len(out) > fuzzOutputBytes {
				t.Fatalf("%s: output of %d bytes over the %d limit", kind, len(out), fuzzOutputBytes)
			}
			if ev.Output.Bytes != int64(len(out)) || ev.Input.Bytes != int64(len(in)) {
				t.Fatalf("%s: evidence digests %d/%d bytes for %d/%d", kind, ev.Input.Bytes, ev.Output.Bytes, len(in), len(out))
			}
			if ev.Input.Digest != autoDigest(in) || ev.Output.Digest != autoDigest(out) {
				t.Fatalf("%s: evidence digests do not match the bytes read and written", kind)
			}
			if !json.Valid(in) {
				if ev.Outcome != pipeline.OutcomeRejected || !stableCodes[ev.Code] {
					t.Fatalf("%s: invalid JSON gave outcome %s code %q", kind, ev.Outcome, ev.Code)
				}
			} else if ev.Code == pipeline.CodeInvalidJSON && ev.Reason != "duplicate-key" {
				// encoding/json takes a member name twice; the pass does not.
				t.Fatalf("%s: valid JSON rejected as invalid (%s at %d)", kind, ev.Reason, ev.ErrorOffset)
			}
			if ev.Outcome == pipeline.OutcomeRejected {
				if want := errorResult(t, e, info, ev.Code, ev.Reason); !bytes.Equal(unwrapEnvelope(t, out), want) {
					t.Fatalf("%s: error result is not the fixed one:\n got %s\nwant %s", kind, out, want)
				}
			}
			out7, evj7, _ := run(t, e, &kReader{b: in, k: 7}, info, nil)
			if !bytes.Equal(out7, out) {
				t.Fatalf("%s: 7-byte reads give another output:\n got %.3000s\nwant %.3000s", kind, out7, out)
			}
			if !bytes.Equal(evj7, evj) {
				t.Fatalf("%s: 7-byte reads give other evidence:\n got %s\nwant %s", kind, evj7, evj)
			}
		}
	})
}

// plantSecrets and plantTags are what FuzzPlanted inserts.
var (
	plantSecrets = bench.SecretNames()
	plantTags    = bench.TagVariants()
)

// FuzzPlanted inserts a secret and a tag, from the tables, at random places
// of random string values of a generated message, re-encodes it (with or
// without HTML escapes) and checks that neither survives in the output nor
// in the evidence.
func FuzzPlanted(f *testing.F) {
	for i := range 24 {
		f.Add(uint64(i), uint8(i), uint8(i), uint32(i*7919), uint32(i*104729), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, seed uint64, secretIx, tagIx uint8, pos1, pos2 uint32, html bool) {
		shape := bench.Shapes()[seed%uint64(len(bench.Shapes()))]
		d := bench.Generate(bench.Options{Seed: seed, Shape: shape, Size: 2 << 10})
		sText, sNeedles, _ := bench.Secret(plantSecrets[int(secretIx)%len(plantSecrets)], seed)
		tName := plantTags[int(tagIx)%len(plantTags)]
		tText, tNeedles, _ := bench.Tag(tName)
		plants := []bench.Plant{
			{Kind: bench.PlantSecret, Text: sText, Needles: sNeedles},
			{Kind: bench.PlantTag, Name: tName, Text: tText, Needles: tNeedles},
		}
		in := plantAt(t, d.JSON, []string{sText, tText}, []uint32{pos1, pos2}, html || tName == "escaped")
		e := engine(t, polBig, 64<<10)
		out, evj, ev := run(t, e, bytes.NewReader(in), pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: d.Tool}, nil)
		noInternal(t, ev)
		for _, doc := range [][]byte{out, evj} {
			surv, err := bench.Survivors(doc, plants)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range surv {
				t.Errorf("%s %q survived (outcome %s):\n%.2000s", p.Kind, p.Text, ev.Outcome, doc)
			}
		}
		if bytes.Contains(evj, []byte(sNeedles[0])) {
			t.Fatal("the secret is in the evidence")
		}
	})
}

// plantAt inserts each text, padded with spaces, into a string value of doc
// chosen by pos (value index, then rune offset in the original value, so a
// later text never lands inside an earlier one), and re-encodes it.
func plantAt(t testing.TB, doc []byte, texts []string, pos []uint32, html bool) []byte {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var leaves []*string
	v = collect(v, &leaves)
	type ins struct {
		leaf *string
		at   int
		text string
	}
	var all []ins
	for i, text := range texts {
		s := leaves[int(pos[i])%len(leaves)]
		offs := []int{}
		for j := range *s {
			offs = append(offs, j)
		}
		offs = append(offs, len(*s))
		all = append(all, ins{s, offs[int(pos[i]/7)%len(offs)], text})
	}
	// Insert from the end so earlier offsets stay valid.
	slices.SortStableFunc(all, func(a, b ins) int { return b.at - a.at })
	for _, x := range all {
		*x.leaf = (*x.leaf)[:x.at] + " " + x.text + " " + (*x.leaf)[x.at:]
	}
	v = rebuild(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// box is a string leaf that can be changed in place.
type box struct{ s string }

// collect replaces every string leaf by a *box and lists them, in a
// deterministic order (sorted keys).
func collect(v any, out *[]*string) any {
	switch x := v.(type) {
	case string:
		b := &box{s: x}
		*out = append(*out, &b.s)
		return b
	case *box:
		*out = append(*out, &x.s)
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			x[k] = collect(x[k], out)
		}
	case []any:
		for i := range x {
			x[i] = collect(x[i], out)
		}
	}
	return v
}

// rebuild turns boxes back into strings.
func rebuild(v any) any {
	switch x := v.(type) {
	case *box:
		return x.s
	case map[string]any:
		for k := range x {
			x[k] = rebuild(x[k])
		}
	case []any:
		for i := range x {
			x[i] = rebuild(x[i])
		}
	}
	return v
}

// TestPlantedGenerated runs the generated corpus with everything planted
// through the default policy and a big one: nothing planted survives.
func TestPlantedGenerated(t *testing.T) {
	for seed := range uint64(48) {
		shape := bench.Shapes()[seed%uint64(len(bench.Shapes()))]
		d := bench.Generate(bench.Options{Seed: seed, Shape: shape, Size: 6 << 10, Secrets: 4, Tags: 3, Invisible: 3})
		for _, pol := range []policyName{polDefault, polBig} {
			out, evj, ev := run(t, engine(t, pol, 64<<10), bytes.NewReader(d.JSON), pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: d.Tool}, nil)
			if ev.Outcome == pipeline.OutcomeRejected {
				t.Fatalf("seed %d %s: rejected %s %s", seed, shape, ev.Code, ev.Reason)
			}
			for _, doc := range [][]byte{out, evj} {
				surv, err := bench.Survivors(doc, d.Planted)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range surv {
					t.Errorf("seed %d %s %s: %s %s %q survived at %s", seed, shape, pol, p.Kind, p.Name, p.Text, p.Pointer)
				}
			}
		}
	}
}

// autoDigest is the default policy's digest: SHA-256 up to 4 KiB, BLAKE3
// above.
func autoDigest(b []byte) string {
	if len(b) <= 4096 {
		s := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(s[:])
	}
	s := blake3.Sum256(b)
	return "blake3:" + hex.EncodeToString(s[:])
}
