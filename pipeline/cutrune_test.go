package pipeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestCutRunePieces: a text cut at text-chars keeps whole runes, whatever
// the rules' look-back. The redactor writes a long text in pieces and holds
// back, in bytes, what a match could still cover (the catalog's longest
// look-back, 141 bytes today; a policy's custom rule sees 256), so a piece
// may end inside a rune and the next begin with its last bytes. The text is
// longer than one 32 KiB decode batch; an ASCII run of every length from 0
// to 1200 before the multi-byte runes moves the first piece's end across
// every rune and every byte of one, so that for any look-back up to about
// 1 KiB some length puts the text-chars cut exactly there. The kept text
// must be valid UTF-8, a prefix of the input of exactly text-chars runes
// (as the reference model cuts it). Before, cutRunes counted a piece's
// leading continuation bytes as runes and the cut split a rune (its lead
// bytes before the truncation note).
func TestCutRunePieces(t *testing.T) {
	longBack := []pipeline.CustomRule{{ID: "long-look-back", Keywords: []string{"zq"}, Pattern: `zq[0-9]{30}`, Description: "a synthetic rule: a custom rule's window looks 256 bytes back"}}
	for _, tc := range []struct {
		name   string
		custom []pipeline.CustomRule
		unit   string // repeated after the ASCII run
		lim    int64
	}{
		{"catalog/emoji", nil, "😀", 8500},
		{"long-look-back/emoji", longBack, "😀", 8500},
		{"long-look-back/cjk", longBack, "中", 11200},
		{"long-look-back/mixed", longBack, "é😀中", 9000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy(polBig, 4096)
			p.Limits["text-chars"] = tc.lim
			p.Rules.Custom = tc.custom
			e, err := pipeline.NewEngine(p)
			if err != nil {
				t.Fatal(err)
			}
			runes := strings.Repeat(tc.unit, 40<<10/len(tc.unit))
			step := 1
			if raceEnabled() {
				step = 5 // prime to 2, 3 and 4: still every byte of a rune, a fifth of the look-backs
			}
			for k := 0; k <= 1200; k += step {
				text := strings.Repeat("a", k) + runes
				in := tr(text)
				out, _, ev := run(t, e, bytes.NewReader(in), pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "t"}, nil)
				if ev.Code != pipeline.CodeOutputTruncated {
					t.Fatalf("ASCII run %d: %s, want a cut", k, ev.Code)
				}
				var res struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
					t.Fatalf("ASCII run %d: output %.200q: %v", k, out, err)
				}
				got := res.Content[0].Text
				got = got[strings.IndexByte(got, '\n')+1:] // the label
				got = got[:strings.LastIndex(got, "\n[OUTPUT_TRUNCATED")]
				if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) {
					t.Fatalf("ASCII run %d: the cut splits a rune: …%q", k, got[max(0, len(got)-8):])
				}
				if !strings.HasPrefix(text, got) || int64(utf8.RuneCountInString(got)) != tc.lim {
					t.Fatalf("ASCII run %d: kept %d runes, not a prefix of %d", k, utf8.RuneCountInString(got), tc.lim)
				}
				if k%200 == 0 {
					if msg := compareWithReference(t, e, in, splitCase{}.info()); msg != "" {
						t.Fatalf("ASCII run %d: %s", k, msg)
					}
				}
			}
		})
	}
}
