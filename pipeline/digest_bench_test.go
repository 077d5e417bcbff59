package pipeline

import (
	"fmt"
	"testing"
)

// BenchmarkDigest measures the evidence digest of one stream, written in
// 4 KiB pieces, for each Policy.Digest mode and size: the figures behind
// the auto mode's 4 KiB switch (docs/performance.md).
//
//	go test -run '^$' -bench BenchmarkDigest ./pipeline/
func BenchmarkDigest(b *testing.B) {
	for _, size := range []int{512, 2048, 4096, 8192, 65536, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for _, mode := range []string{DigestSHA256, DigestBLAKE3, DigestAuto} {
			b.Run(fmt.Sprintf("%s/%d", mode, size), func(b *testing.B) {
				d := newDigester(mode)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					d.Reset()
					for i := 0; i < size; i += 4096 {
						d.Write(data[i:min(i+4096, size)])
					}
					_ = d.String()
				}
			})
		}
	}
}
