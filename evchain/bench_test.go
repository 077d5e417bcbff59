package evchain

import (
	"fmt"
	"testing"
)

// evidenceRecord is a typical evidence record of a sanitized tool result
// (about 700 bytes).
var evidenceRecord = []byte(`{"version":"mcp-sanitize.evidence/1","kind":"tool-result","tool":"read_file","server":"files","tenant":"acme","requestId":"req-1","policyVersion":"team-a.7","guardVersion":"mcp-sanitize/1","normalization":"nfkc","outcome":"sanitized","input":{"bytes":4096,"digest":"sha256:7d41c3dd2a7576c69ef36f2b476055eb48286c7adf5bbab5141c515872f323ae"},"output":{"bytes":4120,"digest":"sha256:07f740a238410c93f44b830e4490c2686c3ad0403b2a051c9a3bc9177c9b1533"},"nodes":5,"depth":3,"strings":5,"rules":{"github-pat":1},"findings":[{"rule":"github-pat","kind":"secret","pointer":"/content/0/text","inputOffset":40,"offset":12,"length":40,"fingerprint":"0123456789abcdef0123456789abcdef"}],"durationNanos":51234,"path":"inline"}`)

func BenchmarkSeal(b *testing.B) {
	s, _ := NewSealer("w1.bench", "k1", testKey)
	buf := make([]byte, 0, 2048)
	b.SetBytes(int64(len(evidenceRecord)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _, _ = s.Seal(buf[:0], evidenceRecord)
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, _ := NewSealer("w1.bench", "k1", testKey)
			lines := make([][]byte, n)
			var size int64
			for i := range lines {
				lines[i], _, _ = s.Seal(nil, evidenceRecord)
				size += int64(len(lines[i]))
			}
			refs := make([]string, n)
			for i := range refs {
				refs[i] = fmt.Sprintf("line %d", i+1)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				v := NewVerifier(Options{Keys: keys})
				for i, l := range lines {
					v.Add(refs[i], l)
				}
				if r := v.Finish(); !r.OK() {
					b.Fatal(r.Problems)
				}
			}
		})
	}
}
