package pipeline_test

import (
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestBinaryAfterUntypedBlock: a content block that closes without a type
// lets its output go, so the block after it is watched like any other: a
// disallowed binary there is replaced (fail narrow), not the whole result
// rejected, and the pass agrees with the reference model. Before, the
// untyped block stayed held and the next block went unwatched.
func TestBinaryAfterUntypedBlock(t *testing.T) {
	cases := []struct {
		name, in string
		outcome  pipeline.Outcome
		binaries int
	}{
		{"empty block then blob without type", `{"content":[{},{"resource":{"blob":""}}]}`, pipeline.OutcomeSanitized, 1},
		{"unknown member then blob", `{"content":[{"x":1},{"resource":{"blob":"AAAA"}}]}`, pipeline.OutcomeSanitized, 1},
		{"empty block then resource blob without mime", `{"content":[{},{"type":"resource","resource":{"blob":"AAAA"}}]}`, pipeline.OutcomeSanitized, 1},
		{"empty block then image without mime", `{"content":[{},{"type":"image","data":"AAAA"}]}`, pipeline.OutcomeSanitized, 1},
		{"two empty blocks then image", `{"content":[{},{"y":[]},{"type":"image","data":"AAAA"}]}`, pipeline.OutcomeSanitized, 1},
		{"truncated after the blob", `{"content":[{},{"resource":{"blob":""}`, pipeline.OutcomeRejected, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, pol := range refPolicies {
				for _, fr := range []pipeline.Framing{pipeline.FramingAuto, pipeline.FramingBare} {
					info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "diff", Framing: fr}
					_, _, ev := run(t, refEngine(t, pol), strings.NewReader(c.in), info, nil)
					if ev.Outcome != c.outcome {
						t.Fatalf("%s policy, framing %s: outcome %s %s %s, want %s", pol, fr, ev.Outcome, ev.Code, ev.Reason, c.outcome)
					}
					if c.outcome != pipeline.OutcomeRejected && len(ev.Binary) != c.binaries {
						t.Fatalf("%s policy, framing %s: %d binary records, want %d", pol, fr, len(ev.Binary), c.binaries)
					}
					if msg := compareWithReference(t, refEngine(t, pol), []byte(c.in), info); msg != "" {
						t.Fatalf("%s policy, framing %s: %s", pol, fr, msg)
					}
				}
			}
		})
	}
}
