package pipeline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRuneCount(t *testing.T) {
	long := strings.Repeat(`{"id":12,"name":"a"}`, 5)
	cases := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"short ascii", "abc"},
		{"eight ascii", "abcdefgh"},
		{"long ascii", long},
		{"non-ascii first", "é" + long},
		{"non-ascii after a word", "abcdefgh" + "日本" + long},
		{"non-ascii in the tail", long + "ü"},
		{"non-ascii at a word's last byte", "abcdefg\xc3\xa9xyz"},
		{"invalid utf-8", long + "\xff\xfe" + long},
		{"cut rune", long + "\xe6\x97"},
		{"continuation bytes only", "\x80\x80\x80\x80\x80\x80\x80\x80\x80"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := runeCount([]byte(c.in)), utf8.RuneCount([]byte(c.in)); got != want {
				t.Fatalf("runeCount = %d, utf8.RuneCount = %d", got, want)
			}
		})
	}
}

func FuzzRuneCount(f *testing.F) {
	f.Add([]byte("abcdefgh\xc3\xa9"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := runeCount(b), utf8.RuneCount(b); got != want {
			t.Fatalf("runeCount = %d, utf8.RuneCount = %d", got, want)
		}
	})
}
