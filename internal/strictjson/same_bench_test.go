package strictjson

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkSameTokens compares a structured result of code-search matches
// with itself as the pass writes it back ("\/" unescaped).
func BenchmarkSameTokens(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"query":"target_pipeline","total":76,"matches":[`)
	for i := 0; i < 40; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"path":"internal/recordVector.ts","line":2165,"column":21,"snippet":"const state_token = await target_pipeline({ packet_kernel: 'prefix' }); \/\/ order \"x\"","score":0.116}`)
	}
	sb.WriteString(`],"truncated":false}`)
	raw := []byte(sb.String())
	san := bytes.ReplaceAll(raw, []byte(`\/`), []byte(`/`))
	if !SameTokens(raw, san) {
		b.Fatal("not the same tokens")
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		SameTokens(raw, san)
	}
}

// BenchmarkDecodeMatches decodes the same text, for comparison.
func BenchmarkDecodeMatches(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"query":"target_pipeline","total":76,"matches":[`)
	for i := 0; i < 40; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"path":"internal/recordVector.ts","line":2165,"column":21,"snippet":"const state_token = await target_pipeline({ packet_kernel: 'prefix' }); \/\/ order \"x\"","score":0.116}`)
	}
	sb.WriteString(`],"truncated":false}`)
	raw := []byte(sb.String())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(raw, 64); err != nil {
			b.Fatal(err)
		}
	}
}
