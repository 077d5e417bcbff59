package scanners

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normCase is one table case; its name says what it shows.
type normCase struct {
	name    string
	in      string
	want    string
	removed map[NormClass]int64
	changed bool
	folded  int64 // confusables folded
}

var normCases = []normCase{
	{name: "Empty", in: "", want: ""},
	{name: "ASCII", in: "plain <system> text", want: "plain <system> text"},
	{name: "TabNewlineCRKept", in: "a\tb\nc\r\nd", want: "a\tb\nc\r\nd"},
	{name: "ZeroWidthSpace", in: "sys\u200btem", want: "system", removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "ZeroWidthJoinerNonJoiner", in: "a\u200cb\u200dc\u2060d\ufeffe", want: "abcde", removed: map[NormClass]int64{NormZeroWidth: 4}},
	{name: "InvisibleMath", in: "f\u2061x\u2062y\u2063z\u2064", want: "fxyz", removed: map[NormClass]int64{NormZeroWidth: 4}},
	{name: "BidiOverride", in: "abc\u202edcba\u202c", want: "abcdcba", removed: map[NormClass]int64{NormBidi: 2}},
	{name: "BidiMarksIsolates", in: "\u200ea\u200f\u061cb\u2066c\u2069", want: "abc", removed: map[NormClass]int64{NormBidi: 5}},
	{name: "TagChars", in: "hi\U000E0041\U000E0042\U000E007F", want: "hi", removed: map[NormClass]int64{NormTagChar: 3}},
	{name: "TagBlockUnassigned", in: "x\U000E0000\U000E0002y", want: "xy", removed: map[NormClass]int64{NormTagChar: 2}},
	{name: "VS16AfterEmoji", in: "\u2764\ufe0f ok", want: "\u2764\ufe0f ok"},
	{name: "VS16AfterLetter", in: "a\ufe0f ok", want: "a ok", removed: map[NormClass]int64{NormVariationSelector: 1}},
	{name: "VSSupplement", in: "\u845b\U000E0100", want: "\u845b", removed: map[NormClass]int64{NormVariationSelector: 1}},
	{name: "TerminalEscape", in: "\x1b[31mred\x1b[0m", want: "red", removed: map[NormClass]int64{NormControl: 2, NormEscapeSequence: 7}},
	{name: "C0Controls", in: "a\x00b\x07c\x0bd\x0ce\x7f", want: "abcde", removed: map[NormClass]int64{NormControl: 5}},
	{name: "C1CSIColour", in: "a\u009b31mb\u0085c", want: "abc", removed: map[NormClass]int64{NormControl: 2, NormEscapeSequence: 3}},
	{name: "SoftHyphen", in: "pass\u00adword", want: "password", removed: map[NormClass]int64{NormDefaultIgnorable: 1}},
	{name: "HangulFillers", in: "a\u3164b\uffa0c\u115fd\u1160e", want: "abcde", removed: map[NormClass]int64{NormDefaultIgnorable: 4}},
	{name: "MongolianAndCGJ", in: "a\u180bb\u180ec\u034fd", want: "abcd", removed: map[NormClass]int64{NormDefaultIgnorable: 3}},
	{name: "MusicalFormat", in: "a\U0001D173b\U0001BCA0c", want: "abc", removed: map[NormClass]int64{NormDefaultIgnorable: 2}},
	{name: "KeptFormatChars", in: "\u0600\u06dd\ufff9\U00013430", want: "\u0600\u06dd\ufff9\U00013430"},
	{name: "ReplacementCharKept", in: "a\ufffdb", want: "a\ufffdb"},
	{name: "FullWidth", in: "＜ｓｙｓｔｅｍ＞", want: "<system>", changed: true},
	{name: "Ligature", in: "ﬁle", want: "file", changed: true},
	{name: "Superscripts", in: "x² + y³ = zⁿ", want: "x2 + y3 = zn", changed: true},
	{name: "Compose", in: "e\u0301", want: "\u00e9", changed: true},
	{name: "AlreadyComposed", in: "caf\u00e9 na\u00efve", want: "caf\u00e9 na\u00efve"},
	{name: "StripThenCompose", in: "e\u200b\u0301", want: "\u00e9", changed: true, removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "ControlThenCompose", in: "e\x1b\u0301", want: "\u00e9", changed: true, removed: map[NormClass]int64{NormControl: 1}},
	{name: "Reorder", in: "a\u0301\u0323", want: "\u1ea1\u0301", changed: true},
	{name: "ComposedPlusMark", in: "\u00e9\u0323", want: "\u1eb9\u0301", changed: true},
	{name: "HangulJamo", in: "\u1100\u1161\u11a8", want: "\uac01", changed: true},
	{name: "HangulCompatJamo", in: "\u3131\u314f", want: "\uac00", changed: true},
	{name: "HangulLVPlusT", in: "\uac00\u11a8", want: "\uac01", changed: true},
	{name: "HangulSyllables", in: "\ud55c\uad6d\uc5b4", want: "\ud55c\uad6d\uc5b4"},
	{name: "Cyrillic", in: "\u0438\u0306 \u0439", want: "\u0439 \u0439", changed: true},
	{name: "Devanagari", in: "\u0915\u094d\u0937", want: "\u0915\u094d\u0937"},
	{name: "Nukta", in: "\u0928\u093c", want: "\u0929", changed: true},
	{name: "Spaces", in: "a\u00a0b\u2003c\u3000d", want: "a b c d", changed: true},
	{name: "EmojiZWJ", in: "\U0001F468\u200d\U0001F469\u200d\U0001F467", want: "\U0001F468\u200d\U0001F469\u200d\U0001F467"},
	{name: "ZWJBetweenEmojiAndLetter", in: "\U0001F468\u200dx", want: "\U0001F468x", removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "LeadingMark", in: "\u0301abc", want: "\u0301abc"},
	{name: "HalfwidthKatakanaVoiced", in: "\uff76\uff9e", want: "\u30ac", changed: true},
	{name: "ANSIColour", in: "\x1b[1;31mERROR\x1b[0m: disk", want: "ERROR: disk", removed: map[NormClass]int64{NormControl: 2, NormEscapeSequence: 9}},
	{name: "ANSIPrivateMode", in: "a\x1b[?25lb", want: "ab", removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 5}},
	{name: "OSCTitleBEL", in: "\x1b]0;title\x07text", want: "text", removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 9}},
	{name: "OSC8Hyperlink", in: "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", want: "click", removed: map[NormClass]int64{NormControl: 2, NormEscapeSequence: 33}},
	{name: "CharsetDesignation", in: "\x1b(Bx\x1b7y\x1b8", want: "xy", removed: map[NormClass]int64{NormControl: 3, NormEscapeSequence: 4}},
	{name: "C1CSI", in: "a\u009b2Jb", want: "ab", removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 2}},
	{name: "C1OSCWithST", in: "a\u009d0;t\u00e9\u009cb", want: "ab", removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 5}},
	{name: "StrayESCKeepsText", in: "a\x1b\u00e9b", want: "a\u00e9b", removed: map[NormClass]int64{NormControl: 1}},
	{name: "BrokenCSIKeepsRest", in: "a\x1b[31\nb", want: "a\nb", removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 3}},
	{name: "ESCESC", in: "\x1b\x1b[0mx", want: "x", removed: map[NormClass]int64{NormControl: 2, NormEscapeSequence: 3}},
	{name: "HomoglyphTag", in: "<\u0455ystem>", want: "<system>", folded: 1},
	{name: "HomoglyphAllConfusablesFirst", in: "\u0455\u0443\u0455tem", want: "system", folded: 3},
	{name: "HomoglyphLatinFirst", in: "p\u0430ssword=1", want: "password=1", folded: 1},
	{name: "HomoglyphGreekUpper", in: "\u0399MPORTANT", want: "IMPORTANT", folded: 1},
	{name: "RussianWordKept", in: "\u041c\u043e\u0441\u043a\u0432\u0430 \u043e\u0441\u0430", want: "\u041c\u043e\u0441\u043a\u0432\u0430 \u043e\u0441\u0430"},
	{name: "GreekFormulaKept", in: "\u03b1x + \u03b2", want: "\u03b1x + \u03b2"},
	{name: "MixedWithOtherLetterStops", in: "s\u0435\u0436\u0435", want: "se\u0436\u0435", folded: 1},
	{name: "OtherLetterFirstBlocks", in: "\u0436\u0435t", want: "\u0436\u0435t"},
	{name: "ConfusableBeforeMarkKept", in: "t\u0435\u0301st", want: "t\u0435\u0301st"},
	{name: "DigitsAreBoundaries", in: "ab1\u0455", want: "ab1\u0455"},
	{name: "FoldAfterAccentedWord", in: "caf\u00e9 \u0455ystem", want: "caf\u00e9 system", folded: 1},
	{name: "CJKWordBlocks", in: "\u65e5\u672c\u0455ystem", want: "\u65e5\u672c\u0455ystem"},
	{name: "AccentedLetterBlocks", in: "\u00e9\u0455t", want: "\u00e9\u0455t"},
	{name: "LatinWordAcrossCJKText", in: strings.Repeat("\u65e5\u672c ", 40) + "s\u0443stem", want: strings.Repeat("\u65e5\u672c ", 40) + "system", folded: 1},
	{name: "EscapedZeroWidth", in: `ghp_ab\u200bcd`, want: "ghp_abcd", removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "EscapedFullWidth", in: `\uff47\uFF48p_`, want: "ghp_", changed: true},
	{name: "EscapedOtherKept", in: `caf\u00e9 \u0022 \ud83d\ude00`, want: `caf\u00e9 \u0022 \ud83d\ude00`},
	// An even run of backslashes is an escape one level deeper (JSON
	// inside a string of the JSON in the text), issue 17.
	{name: "EscapedLevel2", in: `\\u200b`, want: ``, removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "OddBackslashRun", in: `\\\u200bx`, want: `\\x`, removed: map[NormClass]int64{NormZeroWidth: 1}},
	{name: "EscapedControlAndTerminal", in: `a\u001b[31mb\u000ac`, want: `ab\u000ac`, removed: map[NormClass]int64{NormControl: 1, NormEscapeSequence: 4}},
	{name: "ShortEscapeKept", in: `x\u20`, want: `x\u20`},
	{name: "ExpandingRune", in: "\ufdfa", want: "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064a\u0647 \u0648\u0633\u0644\u0645", changed: true},
}

// stripAll is the reference for removal: drop terminal escape sequences
// (refEscLen) and every other rune stripClass names, but the joiners that
// refKeepJoiner keeps.
func stripAll(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		if l := refEscLen(rs, i); l > 0 {
			i += l
			continue
		}
		if _, ok := stripClass(rs[i]); !ok || refKeepJoiner(rs, i) {
			b.WriteRune(rs[i])
		}
		i++
	}
	return b.String()
}

// refEscLen is the reference for escape sequences: the number of runes of
// the sequence that starts at rs[i], 0 if none does. It reads the rules of
// normalize_escape.go on whole runes, without states.
func refEscLen(rs []rune, i int) int {
	j, kind := i+1, byte(0)
	switch rs[i] {
	case 0x1B:
		if j == len(rs) {
			return 1
		}
		switch c := rs[j]; {
		case c == '[':
			kind = 'C'
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			kind = 'S'
		case 0x20 <= c && c <= 0x2F:
			kind = 'N'
		case 0x30 <= c && c <= 0x7E:
			return 2
		default:
			return 1
		}
		j++
	case 0x9B:
		kind = 'C'
	case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
		kind = 'S'
	default:
		return 0
	}
	count := 1 // runes after the ESC (the '[' of ESC [, or the C1 itself)
	for j < len(rs) {
		c := rs[j]
		if kind == 'S' {
			if count >= escMaxString {
				break
			}
			count++
			j++
			if c == 0x07 || c == 0x9C {
				break
			}
			if c == 0x1B {
				if j < len(rs) && rs[j] == '\\' {
					return j + 1 - i
				}
				// The ESC ends the string and opens a new sequence.
				return j - 1 - i + refEscLen(rs, j-1)
			}
			continue
		}
		if count >= escMaxSeq {
			break
		}
		if 0x20 <= c && c <= 0x2F || kind == 'C' && 0x30 <= c && c <= 0x3F {
			count++
			j++
			continue
		}
		if kind == 'C' && 0x40 <= c && c <= 0x7E || kind == 'N' && 0x30 <= c && c <= 0x7E {
			j++
		}
		break
	}
	return j - i
}

// refNormalize is the reference Normalizer: strip, norm.NFKC, then take out
// the U+034F norm inserts into runs of more than 30 non-starters.
func refNormalize(s string) string {
	return refFold(strings.ReplaceAll(norm.NFKC.String(stripAll(refUnescape(s))), "\u034f", ""))
}

// refUnescape is the reference of the decoding of escaped characters
// (normalize_literal.go), on the whole string: a run of n backslashes
// followed by "/" or by "u", four hex digits (and a low surrogate's escape
// after as many backslashes, for a high surrogate) is an escape at level
// 1 + trailing zeros of n, made of the run's last 2^(level-1) backslashes;
// at a level up to MaxEscapeLevel, with literalTarget accepting the
// character, the escape is replaced by the character.
func refUnescape(s string) string {
	var b strings.Builder
	hex := func(i int) (rune, bool) {
		if i+4 > len(s) {
			return 0, false
		}
		v, err := strconv.ParseUint(s[i:i+4], 16, 32)
		return rune(v), err == nil && !strings.ContainsAny(s[i:i+4], "+-xX_")
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		n := j - i
		level := 1 + bits.TrailingZeros(uint(n))
		w := 1 << (level - 1)
		b.WriteString(s[i : j-w])
		if level <= MaxEscapeLevel && j < len(s) {
			if s[j] == '/' {
				b.WriteByte('/')
				i = j + 1
				continue
			}
			if s[j] == 'u' {
				if cp, ok := hex(j + 1); ok {
					end := j + 5
					if 0xD800 <= cp && cp < 0xDC00 {
						low := strings.Repeat("\\", w) + "u"
						if lo, ok := hex(end + len(low)); ok && strings.HasPrefix(s[end:], low) && 0xDC00 <= lo && lo <= 0xDFFF {
							cp, end = 0x10000+(cp-0xD800)<<10+(lo-0xDC00), end+len(low)+4
						}
					}
					if (cp < 0xD800 || cp > 0xDFFF) && literalTarget(cp) {
						b.WriteRune(cp)
						i = end
						continue
					}
				}
			}
		}
		b.WriteString(s[j-w : j])
		i = j
	}
	return b.String()
}

// refFold is the reference of confusable folding, on whole runes and whole
// words (runs of letters and combining marks). With L the word's first
// ASCII letter and O its first other non-ASCII letter, a confusable at i is
// folded when L < O, the next rune is not a mark, and either L < i < O, or
// i < L and the runes from the word's first confusable up to L take at most
// foldMaxHeld bytes.
func refFold(s string) string {
	rs := []rune(s)
	isMark := func(i int) bool { return i < len(rs) && unicode.In(rs[i], unicode.Mn, unicode.Me) }
	kind := func(r rune) int {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
			return 1
		case r < 0x80:
			return 0
		}
		if _, ok := confusables[r]; ok {
			return 2
		}
		if unicode.IsLetter(r) {
			return 3
		}
		if unicode.In(r, unicode.Mn, unicode.Me) {
			return 4
		}
		return 0
	}
	var b strings.Builder
	for i := 0; i < len(rs); {
		if kind(rs[i]) == 0 {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && kind(rs[j]) != 0 {
			j++
		}
		w := rs[i:j]
		L, O, c0 := len(w), len(w), -1
		for k, r := range w {
			switch kind(r) {
			case 1:
				L = min(L, k)
			case 3:
				O = min(O, k)
			case 2:
				if c0 < 0 {
					c0 = k
				}
			}
		}
		held := 0
		if c0 >= 0 && c0 < L {
			held = len(string(w[c0:L]))
		}
		for k, r := range w {
			if to, ok := confusables[r]; ok && L < O && !isMark(i+k+1) && held <= foldMaxHeld && (L < k && k < O || k < L) {
				b.WriteByte(to)
			} else {
				b.WriteRune(r)
			}
		}
		i = j
	}
	return b.String()
}

func normalizeOnce(n *Normalizer, s string) string {
	n.Reset()
	return string(n.Append(nil, []byte(s), true))
}

// normalizeSplit feeds s in chunks of about size bytes, each extended to
// the next rune boundary.
func normalizeSplit(n *Normalizer, s string, size int) string {
	n.Reset()
	var out []byte
	for len(s) > 0 {
		k := min(size, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = n.Append(out, []byte(s[:k]), false)
		if n.carryLen() > MaxNormCarry {
			panic("carry over MaxNormCarry")
		}
		s = s[k:]
	}
	return string(n.Append(out, nil, true))
}

func TestNormClassString(t *testing.T) {
	want := []string{"zero-width", "bidi", "tag-char", "variation-selector", "control", "default-ignorable", "escape-sequence"}
	for c := range NumNormClasses {
		if got := c.String(); got != want[c] {
			t.Errorf("NormClass(%d).String() = %q, want %q", c, got, want[c])
		}
	}
	if got := NumNormClasses.String(); got != "unknown" {
		t.Errorf("NumNormClasses.String() = %q", got)
	}
}

func TestNormalizer(t *testing.T) {
	for _, tc := range normCases {
		t.Run(tc.name, func(t *testing.T) {
			var n Normalizer
			if got := normalizeOnce(&n, tc.in); got != tc.want {
				t.Errorf("Append(%+q) = %+q, want %+q", tc.in, got, tc.want)
			}
			st := n.Stats()
			for c := range NumNormClasses {
				if st.Removed[c] != tc.removed[c] {
					t.Errorf("Removed[%v] = %d, want %d", c, st.Removed[c], tc.removed[c])
				}
			}
			if st.Folded != tc.folded {
				t.Errorf("Folded = %d, want %d", st.Folded, tc.folded)
			}
			if st.NFKCChanged != tc.changed {
				t.Errorf("NFKCChanged = %v, want %v", st.NFKCChanged, tc.changed)
			}
			if ref := refNormalize(tc.in); ref != tc.want {
				t.Errorf("reference(%+q) = %+q, want %+q", tc.in, ref, tc.want)
			}
		})
	}
}

func TestNormalizerDisableNFKC(t *testing.T) {
	n := Normalizer{DisableNFKC: true}
	in := "＜ｓｙｓ\u200bｔｅｍ＞ e\u0301\x1b[0m"
	n.Reset()
	got := string(n.Append(nil, []byte(in), false))
	got = string(n.Append([]byte(got), []byte("\u202e!"), true))
	if want := "＜ｓｙｓｔｅｍ＞ e\u0301!"; got != want {
		t.Errorf("got %+q, want %+q", got, want)
	}
	st := n.Stats()
	if st.Removed[NormZeroWidth] != 1 || st.Removed[NormControl] != 1 || st.Removed[NormBidi] != 1 || st.NFKCChanged {
		t.Errorf("Stats = %+v", st)
	}
}

func TestNormalizerInvalidUTF8(t *testing.T) {
	for _, disable := range []bool{false, true} {
		n := Normalizer{DisableNFKC: disable}
		n.Reset()
		got := string(n.Append(nil, []byte("a\xffb\xe2\x80"), true))
		if want := "a\ufffdb\ufffd\ufffd"; got != want {
			t.Errorf("DisableNFKC=%v: got %+q, want %+q", disable, got, want)
		}
	}
}

// trickyInputs mix scripts, combining sequences, long runs of non-starters,
// emoji sequences and Hangul jamo.
func trickyInputs() []string {
	in := []string{
		"Hello, мир! 你好 (こんにちは) 안녕하세요 مرحبا שלום नमस्ते",
		// A look-alike right after another non-ASCII character, in one run of
		// unchanged starters: a guillemet or an em dash, then a mixed-script word.
		"p\u00e9\u0430ss \u00ab\u0430dmin\u00bb \u2014\u0455ystem \u00e9\u00e9\u0399MPORTANT",
		"e\u0301a\u0308o\u0302\u0323 \u1e9b\u0323 \u0344\u0301 \u0f73\u0f75 \u00e9\u0323\u0301",
		"\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 \U0001F3F3\ufe0f\u200d\U0001F308 \U0001F44D\U0001F3FD",
		"\u1100\u1161\u11a8\u1100\u1161 \uac00\u11a8\u11a8 \u115f\u1160\u1100",
		"\uff76\uff9e\uff8a\uff9f \uff21\uff42\uff43\uff10 \ufb01\ufb02 \u2460 \u33a1 \u00bd",
		"\x1b[1;31mERROR\x1b[0m\u009b2J \u202eevil\u202c \U000E0049\U000E0047\U000E004E",
		"s\u200by\u00ads\u2060t\ufeffe\u034fm \u0301\u200b\u0301 e\u034f\u0301",
		"a" + strings.Repeat("\u0301", 100) + "b",
		"a" + strings.Repeat("\u0323\u0301", 70) + "\u0915\u094d\u0937",
		strings.Repeat("\u0344", 47) + "x" + strings.Repeat("\u0f73", 33),
		"\uac01" + strings.Repeat("\u0301", 40) + "\u00e9" + strings.Repeat("\u0316", 29) + "\u0301",
		strings.Repeat("\u0301\u200b", 45) + "\uff9e" + strings.Repeat("\u0300", 31),
		"\ufdfa\u0301 \u0958\u093c ṩ \u212b \u2126",
	}
	for _, tc := range normCases {
		in = append(in, tc.in)
	}
	return in
}

func TestNormalizerSplitInvariance(t *testing.T) {
	var n Normalizer
	for _, in := range trickyInputs() {
		want := normalizeOnce(&n, in)
		wantStats := n.Stats()
		if ref := refNormalize(in); want != ref {
			t.Errorf("Append(%+q) = %+q, reference %+q", in, want, ref)
		}
		for size := 1; size <= 64; size++ {
			if got := normalizeSplit(&n, in, size); got != want {
				t.Errorf("split %d: Append(%+q) = %+q, want %+q", size, in, got, want)
			}
			if got := n.Stats(); got != wantStats {
				t.Errorf("split %d: Stats(%+q) = %+v, want %+v", size, in, got, wantStats)
			}
		}
	}
}

// TestNormalizerMatchesNFKC checks against plain norm.NFKC, with no cut of
// long non-starter runs, for inputs that have none (confusable folding off:
// it is checked against refFold; escaped characters decoded as refUnescape
// does).
func TestNormalizerMatchesNFKC(t *testing.T) {
	n := Normalizer{DisableConfusableFold: true}
	for _, in := range trickyInputs() {
		want := norm.NFKC.String(stripAll(refUnescape(in)))
		if strings.Contains(want, "\u034f") {
			continue // a run of more than 30 non-starters
		}
		if got := normalizeOnce(&n, in); got != want {
			t.Errorf("Append(%+q) = %+q, want %+q", in, got, want)
		}
	}
}

// TestNormalizerCodePoints checks every code point: NFKC never yields a
// removed rune from a kept one, and the table agrees with norm.
func TestNormalizerCodePoints(t *testing.T) {
	tab := normTab()
	var n Normalizer
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		s := string(r)
		e := tab.lookup(r)
		if c, ok := stripClass(r); ok {
			if e != entStrip|uint8(c) {
				t.Errorf("%U: entry %#x, want removed in class %v", r, e, c)
			}
			if got := normalizeOnce(&n, s); got != "" {
				t.Errorf("%U: Append = %+q, want removed", r, got)
			}
			continue
		}
		out := norm.NFKC.String(s)
		for _, x := range out {
			if c, ok := stripClass(x); ok {
				t.Errorf("NFKC(%U) = %+q contains %U of class %v", r, out, x, c)
			}
		}
		switch {
		case e&entLeadMask != 0:
		case e&entChanged != 0:
			if got := tab.single(r); got != out {
				t.Errorf("%U: single = %+q, want %+q", r, got, out)
			}
		default:
			if out != s {
				t.Errorf("%U: marked unchanged but NFKC gives %+q", r, out)
			}
		}
		if got := normalizeOnce(&n, s); got != out {
			t.Errorf("%U: Append = %+q, want %+q", r, got, out)
		}
	}
}

// TestNormalizerNonStarterCounts checks the Stream-Safe counts in the table
// against where norm itself inserts U+034F.
func TestNormalizerNonStarterCounts(t *testing.T) {
	tab := normTab()
	hasCGJ := func(s string) bool { return strings.Contains(norm.NFKC.String(s), "\u034f") }
	mark := "\u0301"
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		e := tab.lookup(r)
		if e&entStrip != 0 {
			continue
		}
		lead, trail := int(e&entLeadMask), int(e&entTrailMask>>entTrailShift)
		p := norm.NFKC.Properties([]byte(string(r)))
		if lead == 0 && trail == 0 && p.BoundaryBefore() && p.Decomposition() == nil {
			continue
		}
		s := string(r)
		if lead > 0 {
			if lead != trail {
				t.Errorf("%U: lead %d != trail %d", r, lead, trail)
			}
			if hasCGJ("a"+strings.Repeat(mark, 30-lead)+s) || !hasCGJ("a"+strings.Repeat(mark, 31-lead)+s) {
				t.Errorf("%U: lead count %d disagrees with norm", r, lead)
			}
			continue
		}
		if !p.BoundaryBefore() {
			t.Errorf("%U: lead 0 but no boundary before", r)
		}
		if hasCGJ(s+strings.Repeat(mark, 30-trail)) || !hasCGJ(s+strings.Repeat(mark, 31-trail)) {
			t.Errorf("%U: trail count %d disagrees with norm", r, trail)
		}
	}
}

// TestNormalizerCarryBound feeds 10 MB of combining marks in small chunks and
// checks the carry never exceeds MaxNormCarry.
func TestNormalizerCarryBound(t *testing.T) {
	chunk := []byte(strings.Repeat("\u0301\u0323\u0344", 5)) // 30 bytes
	for _, start := range []string{"", "a", "\uac01", "\u0344"} {
		var n Normalizer
		out := n.Append(nil, []byte(start), false)
		total, maxCarry := 0, 0
		for total < 10<<20 {
			out = n.Append(out[:0], chunk, false)
			maxCarry = max(maxCarry, n.carryLen())
			total += len(chunk)
			if strings.Contains(string(out), "\u034f") {
				t.Fatalf("start %+q: output contains U+034F", start)
			}
		}
		out = n.Append(out[:0], nil, true)
		if n.carryLen() != 0 {
			t.Errorf("start %+q: carry %d after final", start, n.carryLen())
		}
		if maxCarry > MaxNormCarry {
			t.Errorf("start %+q: carry reached %d > MaxNormCarry %d", start, maxCarry, MaxNormCarry)
		}
	}
}

func TestNormalizerAllocs(t *testing.T) {
	in := []byte(strings.Join(trickyInputs(), " "))
	var n Normalizer
	dst := make([]byte, 0, 8*len(in))
	n.Append(dst, in, true) // build the table
	allocs := testing.AllocsPerRun(20, func() {
		n.Reset()
		out := n.Append(dst[:0], in[:len(in)/2], false)
		n.Append(out, in[len(in)/2:], true)
	})
	if allocs != 0 {
		t.Errorf("Append allocates %v times per run, want 0", allocs)
	}
}

func TestAsciiSpan(t *testing.T) {
	kept := func(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' }
	for _, s := range []string{"", "abc", "abcdefgh", "abcdefghijklmnopq", "abc\x00", "abcdefgh\x7f",
		"abcdefghij\x1f", "abcdefghijkl\x80", "~~~~~~~~ ~~~\n", "\ta\n\r\tb\ncdefghijklmn\x0bop"} {
		want := 0
		for want < len(s) && kept(s[want]) {
			want++
		}
		for i := 0; i <= want; i++ {
			if got := asciiSpan([]byte(s), i); got != want {
				t.Errorf("asciiSpan(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
	for b := range 256 {
		for pos := range 16 {
			s := []byte("aaaaaaa\naaaaaaaaaaaaaaaaaaaa")
			s[pos] = byte(b)
			want := len(s)
			if !kept(byte(b)) {
				want = pos
			}
			if got := asciiSpan(s, 0); got != want {
				t.Errorf("asciiSpan with byte %#x at %d = %d, want %d", b, pos, got, want)
			}
		}
		// Long enough for the vector kernel, from several starts.
		for pos := 0; pos < 140; pos += 3 {
			s := []byte(strings.Repeat("abc def\tghi\r\n~!", 10))
			s[pos] = byte(b)
			want := len(s)
			if !kept(byte(b)) {
				want = pos
			}
			for _, i := range []int{0, 1, 7, 31, 33} {
				if i > want {
					continue
				}
				if got := asciiSpan(s, i); got != want {
					t.Errorf("asciiSpan(%d bytes, %d) with byte %#x at %d = %d, want %d", len(s), i, b, pos, got, want)
				}
			}
		}
	}
}

// TestLeadLanes checks the eight-byte test of confusable lead bytes against
// a byte compare, for every byte value in every lane among every kind of
// neighbour.
func TestLeadLanes(t *testing.T) {
	fill := []byte{0x00, 0x41, 0x7F, 0x80, 0xCC, 0xCD, 0xD6, 0xD7, 0xE3, 0xFF}
	for v := 0; v < 256; v++ {
		for lane := 0; lane < 8; lane++ {
			for _, f := range fill {
				var w [8]byte
				for k := range w {
					w[k] = f
				}
				w[lane] = byte(v)
				var want uint64
				for k, c := range w {
					if confusableLead <= c && c <= confusableLast {
						want |= 0x80 << (8 * k)
					}
				}
				if got := leadLanes(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Fatalf("%x: leadLanes %016x, want %016x", w, got, want)
				}
			}
		}
	}
}

// TestNextConfusableLead compares nextConfusableLead (with the vector kernel
// where there is one, from 64 bytes) with a byte loop: each byte value at
// each place of long text, from several starts.
func TestNextConfusableLead(t *testing.T) {
	ref := func(b []byte, from int) int {
		for i := from; i < len(b); i++ {
			if b[i] >= confusableLead && b[i] <= confusableLast {
				return i
			}
		}
		return -1
	}
	for c := range 256 {
		for pos := 0; pos < 150; pos += 1 + pos/16 {
			b := []byte(strings.Repeat("text é ß → ", 14))[:150]
			b[pos] = byte(c)
			for _, from := range []int{0, 1, 5, 32, 40, 90} {
				if got, want := nextConfusableLead(b, from), ref(b, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: %d, want %d", c, pos, from, got, want)
				}
			}
		}
	}
}
