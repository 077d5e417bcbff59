package scanners

import "testing"

// TestFoldTabMatchesSlowFoldClass checks every entry of the table built
// from the Unicode ranges against slowFoldClass, the rune-by-rune
// definition.
func TestFoldTabMatchesSlowFoldClass(t *testing.T) {
	for r := rune(0); r < foldTabLen; r++ {
		c, to := slowFoldClass(r)
		if e := foldTab[r]; int(e.cls) != c || e.to != to {
			t.Fatalf("U+%04X: table says class %d to %q, slowFoldClass %d to %q", r, e.cls, e.to, c, to)
		}
	}
}
