package errsan

import (
	"strings"
	"testing"
)

// BenchmarkSanitize runs the sanitizer over the SDK table (short errors)
// and over a long Node stack trace.
func BenchmarkSanitize(b *testing.B) {
	s, _ := New(Options{})
	var short []string
	n := 0
	for _, tc := range sdkCases {
		short = append(short, tc.in)
		n += len(tc.in)
	}
	long := "Error: boom\n" + strings.Repeat("    at handler (/app/dist/tools/add.js:42:17)\n", 400)
	b.Run("sdk-table", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range short {
				s.Sanitize(in)
			}
		}
	})
	b.Run("stack-20KiB", func(b *testing.B) {
		b.SetBytes(int64(len(long)))
		b.ReportAllocs()
		for b.Loop() {
			s.Sanitize(long)
		}
	})
}
