package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// BenchmarkSanitizeBlocks is BenchmarkSanitize's Code corpus with its text
// written as many adjacent text blocks of about 1 KiB (the texts a tool
// returns one per file or record), which the pass reads joined
// (blockjoin.go).
func BenchmarkSanitizeBlocks(b *testing.B) {
	e := engine(b, polBig, 64<<10)
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "bench"}
	for _, sz := range benchSizes {
		b.Run("Code/"+sz.name, func(b *testing.B) {
			var c benchCorpus
			for _, x := range benchCorpora {
				if x.name == "Code" {
					c = x
				}
			}
			var r0 struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if err := json.Unmarshal(corpusDoc(c, sz.n), &r0); err != nil || len(r0.Content) == 0 {
				b.Fatalf("corpus: %v", err)
			}
			text := r0.Content[0].Text
			var items []string
			for len(text) > 0 {
				k := min(len(text), 1024)
				for k < len(text) && !utf8.RuneStart(text[k]) {
					k++
				}
				t, _ := json.Marshal(text[:k])
				items = append(items, `{"type":"text","text":`+string(t)+`}`)
				text = text[k:]
			}
			doc := []byte(`{"content":[` + strings.Join(items, ",") + `]}`)
			var out pipeline.Discarder
			r := bytes.NewReader(doc)
			ctx := context.Background()
			if ev, err := e.Sanitize(ctx, r, &out, info); err != nil || ev.Outcome == pipeline.OutcomeRejected {
				b.Fatalf("outcome %s %s %s (%v)", ev.Outcome, ev.Code, ev.Reason, err)
			}
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(doc)
				if _, err := e.Sanitize(ctx, r, &out, info); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
