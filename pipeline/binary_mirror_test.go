package pipeline

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// structuredContent that repeats a content block's binary value is bounded
// as binary even when the bytes start with no known signature (a type the
// policy allows without one); a string that only resembles it, or comes
// before the block, keeps string-chars.
func TestBinaryMirroredInStructured(t *testing.T) {
	raw := make([]byte, 6000)
	rng := rand.New(rand.NewPCG(7, 9))
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	raw[0], raw[1] = 0x13, 0x37 // no signature of any known type
	data := base64.StdEncoding.EncodeToString(raw)
	other := base64.StdEncoding.EncodeToString(append([]byte{0x14}, raw[1:]...))
	block := `{"type":"image","mimeType":"image/x-custom","data":"` + data + `"}`
	pol := func() *Policy {
		p := DefaultPolicy()
		p.AllowedMIME = append(p.AllowedMIME, "image/x-custom")
		p.Limits = map[string]int64{"string-chars": 1000}
		return p
	}
	for _, tc := range []struct {
		name, in string
		rejected bool
	}{
		{"mirror after the block", `{"content":[` + block + `],"structuredContent":{"content":[{"data":"` + data + `"}]}}`, false},
		{"another value after the block", `{"content":[` + block + `],"structuredContent":{"d":"` + other + `"}}`, true},
		{"mirror before the block", `{"structuredContent":{"d":"` + data + `"},"content":[` + block + `]}`, true},
		{"no block", `{"content":[],"structuredContent":{"d":"` + data + `"}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, pol(), MessageInfo{Kind: KindToolResult, Tool: "read_media_file"}, tc.in)
			if got := ev.Outcome == OutcomeRejected; got != tc.rejected {
				t.Fatalf("rejected %v, want %v (%s %s)", got, tc.rejected, ev.Code, ev.Reason)
			}
			if tc.rejected {
				if ev.Reason != "string-chars" {
					t.Errorf("reason %s, want string-chars", ev.Reason)
				}
				return
			}
			if strings.Count(out, data) != 2 {
				t.Errorf("the block's data and its mirror are not both delivered whole")
			}
		})
	}
}
