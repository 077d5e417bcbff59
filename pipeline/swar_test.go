package pipeline

import (
	"testing"
	"unicode/utf8"
)

func TestCountRunes(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld", "日本語のテキストです", "😀😀😀 emoji and ascii text together", string([]byte{0xff, 0x80})} {
		want := int64(utf8.RuneCountInString(s))
		if !utf8.ValidString(s) {
			continue
		}
		if got := countRunes([]byte(s)); got != want {
			t.Errorf("countRunes(%q) = %d, want %d", s, got, want)
		}
	}
}
