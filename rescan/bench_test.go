package rescan

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkRun re-scans a corpus of short tool results, a tenth with a
// secret, under two policies (the custom rule of engines and the default).
func BenchmarkRun(b *testing.B) {
	pe, be := engines(b)
	var in strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 2000; i++ {
		text := fmt.Sprintf("row %d of the listing: file-%d.txt 4096 bytes modified yesterday", i, i)
		switch i % 10 {
		case 3:
			text += " key acme_0123abcd"
		case 7:
			text += " GITHUB_TOKEN=ghp_R8nQ2vXk7LmP4sT9wYz1aBcD3eFgH5iJ6kLm"
		}
		in.WriteString(record(fmt.Sprintf("t%d", i%4), t0.Add(time.Duration(i)*time.Minute), text))
	}
	data := in.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), strings.NewReader(data), pe, be, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
