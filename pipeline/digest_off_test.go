package pipeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestNoDigests: MessageInfo.NoDigests changes nothing but the two
// digests of the evidence, which are empty; the byte counts stay.
func TestNoDigests(t *testing.T) {
	var cases []splitCase
	cases = append(cases, edgeCases()...)
	cases = append(cases, structuredCases()...)
	n := 0
	for _, c := range cases {
		if c.cancel || c.readEr {
			continue
		}
		info := c.info()
		e := engine(t, c.pol, 512)
		want, _, wantEv := run(t, e, bytes.NewReader(c.in), info, nil)
		info.NoDigests = true
		got, _, gotEv := run(t, e, bytes.NewReader(c.in), info, nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: output differs with NoDigests:\n got %.500s\nwant %.500s", c.name, got, want)
		}
		if gotEv.Input.Digest != "" || gotEv.Output.Digest != "" {
			t.Fatalf("%s: digests computed with NoDigests: %q %q", c.name, gotEv.Input.Digest, gotEv.Output.Digest)
		}
		if !strings.Contains(wantEv.Input.Digest, ":") || !strings.Contains(wantEv.Output.Digest, ":") {
			t.Fatalf("%s: digests missing without NoDigests: %q %q", c.name, wantEv.Input.Digest, wantEv.Output.Digest)
		}
		gotEv.Input.Digest, gotEv.Output.Digest = wantEv.Input.Digest, wantEv.Output.Digest
		a, _ := json.Marshal(gotEv)
		b, _ := json.Marshal(wantEv)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: evidence differs beyond the digests:\n got %s\nwant %s", c.name, a, b)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d cases ran", n)
	}
	// A rejected record read to the end only for its digest (Reject).
	e := engine(t, polDefault, 512)
	var out pipeline.Buffer
	ev, err := e.Reject(strings.NewReader("some input"), &out, pipeline.MessageInfo{Kind: pipeline.KindToolResult, NoDigests: true}, pipeline.CodeBoundExceeded, "record-too-long")
	if err != nil || ev.Input.Digest != "" || ev.Input.Bytes != int64(len("some input")) {
		t.Fatalf("Reject with NoDigests: %v %+v", err, ev.Input)
	}
}
