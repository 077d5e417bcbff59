package scanners

import (
	"strings"
	"testing"
)

// escapeCases are JSON escapes in text that is itself JSON, one to four
// levels deep (issue 17, class 4): each decoded character reaches removal,
// NFKC and folding as the same character written as itself would; what
// JSON needs escaped, and levels past MaxEscapeLevel, stay as written.
var escapeCases = []struct {
	name, in, want string
	unescaped      int64
	removed        NormClass // a class that must have counted, or 0
}{
	{"letter-level1", `{"k":"\u0067hp_x"}`, `{"k":"ghp_x"}`, 1, 0},
	{"letter-level2", `{\"k\":\"\\u0067hp_x\"}`, `{\"k\":\"ghp_x\"}`, 1, 0},
	{"letter-level3", `\\\\u0067hp_x`, `ghp_x`, 1, 0},
	{"letter-level4", strings.Repeat(`\`, 8) + `u0067hp_x`, `ghp_x`, 1, 0},
	{"letter-level5-kept", strings.Repeat(`\`, 16) + `u0067hp_x`, strings.Repeat(`\`, 16) + `u0067hp_x`, 0, 0},
	{"escaped-backslash-then-escape", `\\\u0067`, `\\g`, 1, 0},
	{"two-escaped-backslashes-then-level2", `\\\\\\u0067`, `\\\\g`, 1, 0},
	{"all-letters", `\u0067\u0068\u0070\u005f`, `ghp_`, 4, 0},
	{"upper-hex", `\u0047\u0048`, `GH`, 2, 0},
	{"tag-letter", `<\u0073ystem>`, `<system>`, 1, 0},
	{"tag-slash", `<\/system>`, `</system>`, 1, 0},
	{"tag-slash-level2", `<\\/system>`, `</system>`, 1, 0},
	{"tag-angles", `\u003c\u003cSYS\u003e\u003e`, `<<SYS>>`, 4, 0},
	{"tag-angles-level2", `\\u003csystem\\u003e`, `<system>`, 2, 0},
	{"tag-char-pair", `a\udb40\udc20b`, `ab`, 1, NormTagChar},
	{"tag-char-pair-level2", `a\\udb40\\udc20b`, `ab`, 1, NormTagChar},
	{"tag-char-pair-mixed-levels-kept", `a\udb40\\udc20b`, `a\udb40\\udc20b`, 0, 0},
	{"zero-width-level3", `a\\\\u200bb`, `ab`, 1, NormZeroWidth},
	{"look-alike", `gh\u0440_x`, `ghp_x`, 1, 0},
	{"look-alike-level2", `gh\\u0440_x`, `ghp_x`, 1, 0},
	{"full-width", `\uff47hp_`, `ghp_`, 1, 0},
	{"quote-kept", `\u0022 \\u0022 \"`, `\u0022 \\u0022 \"`, 0, 0},
	{"backslash-kept", `\u005c \\u005C`, `\u005c \\u005C`, 0, 0},
	{"newline-kept", `\u000a \n \\n \t`, `\u000a \n \\n \t`, 0, 0},
	{"accent-kept", `caf\u00e9`, `caf\u00e9`, 0, 0},
	{"emoji-pair-kept", `\ud83d\ude00`, `\ud83d\ude00`, 0, 0},
	{"lone-surrogates-kept", `\ud83d x \ude00`, `\ud83d x \ude00`, 0, 0},
	{"bad-hex-kept", `\u00zz \u12`, `\u00zz \u12`, 0, 0},
	{"trailing-run", `x\\\\`, `x\\\\`, 0, 0},
}

func TestNormalizerEscapes(t *testing.T) {
	var n Normalizer
	for _, c := range escapeCases {
		t.Run(c.name, func(t *testing.T) {
			if got := refNormalize(c.in); got != c.want {
				t.Fatalf("reference: %q, want %q", got, c.want)
			}
			for size := 1; size <= len(c.in)+1; size++ {
				if got := normalizeSplit(&n, c.in, size); got != c.want {
					t.Fatalf("chunks of %d: %q, want %q", size, got, c.want)
				}
				st := n.Stats()
				if st.Unescaped != c.unescaped {
					t.Fatalf("chunks of %d: Unescaped %d, want %d", size, st.Unescaped, c.unescaped)
				}
				if c.removed != 0 && st.Removed[c.removed] == 0 {
					t.Fatalf("chunks of %d: nothing counted as %s", size, c.removed)
				}
				if (c.in != c.want) != n.Changed() {
					t.Fatalf("chunks of %d: Changed %v", size, n.Changed())
				}
			}
		})
	}
}
