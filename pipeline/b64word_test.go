package pipeline

import "testing"

// TestB64WordPairs checks b64Word against b64ok for every pair of byte
// values in every two neighbouring lanes (where carries between lanes
// could go wrong), the other lanes valid.
func TestB64WordPairs(t *testing.T) {
	var p [8]byte
	word := func() uint64 {
		var w uint64
		for k := 7; k >= 0; k-- {
			w = w<<8 | uint64(p[k])
		}
		return w
	}
	for i := 0; i < 7; i++ {
		p = [8]byte{'A', 'z', '0', '9', '+', '/', 'Q', 'q'}
		for a := 0; a < 256; a++ {
			for b := 0; b < 256; b++ {
				p[i], p[i+1] = byte(a), byte(b)
				if got, want := b64Word(word()), b64ok[a] && b64ok[b]; got != want {
					t.Fatalf("b64Word(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
}
