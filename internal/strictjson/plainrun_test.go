package strictjson

import "testing"

// FuzzPlainRun compares plainRun with a byte loop: the same end, and the
// same answer to "a byte outside ASCII before it".
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", "abc", "abcdefgh\"", "abcdefghijklmnop\\x", "é\"", "abcdefg\x1fhij", "\x00", "abcdefgh\x80\"", "0123456789abcdef0123456789abcdef\"\xff"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, start uint8) {
		i := int(start) % (len(data) + 1)
		want, high := i, false
		for ; want < len(data); want++ {
			c := data[want]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			high = high || c >= 0x80
		}
		got, gotHigh := plainRun(data, i)
		if got != want || gotHigh != high {
			t.Fatalf("plainRun(%q, %d) = %d, %v; want %d, %v", data, i, got, gotHigh, want, high)
		}
	})
}
