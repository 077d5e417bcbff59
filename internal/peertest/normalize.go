package peertest

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Documented is the reference of what the default policy does to the text
// of a string that holds no secret and no tag (docs/pipeline.md, "What
// happens to a string"), written from the documentation rather than from
// the pipeline's code, so that Compare can tell a documented change from
// a lost character:
//
//   - terminal escape sequences (CSI ESC[…final, OSC ESC]… up to BEL or
//     ESC\) are removed whole;
//   - C0 and C1 controls but tab, newline and carriage return, DEL, and
//     Default_Ignorable_Code_Point characters are removed (the derived
//     property, computed from Go's unicode tables), except where issue 18
//     item 4 keeps them because they cannot hide anything: ZWJ between
//     two emoji, ZWNJ and ZWJ between two letters of a script that uses
//     them (Arabic, Syriac, N'Ko, Mongolian and the Brahmic scripts), and
//     U+FE0E / U+FE0F right after an emoji or a keycap base ([0-9#*]);
//   - then NFKC.
//
// It does not reproduce the confusable fold of mixed-script words or the
// decoding of invisible-character escapes inside JSON text; the test data
// holds neither outside the planted items.
func Documented(s string) string {
	return norm.NFKC.String(stripped(s))
}

// Lossless is the reference of the lossless policy (`normalization:
// lossless`, docs/normalization.md) for a string that holds no secret and
// no tag: the characters Documented removes are removed, every other
// character is written as it came (no NFKC, no look-alike folding).
func Lossless(s string) string { return stripped(s) }

// stripped is s without the removed characters of Documented.
func stripped(s string) string {
	rs := []rune(stripEscapes(s))
	var b strings.Builder
	for i, r := range rs {
		if removable(r) && !keptInContext(rs, i) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripEscapes removes CSI and OSC sequences (ECMA-48), and their C1 forms.
func stripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b\u009d") {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		csi := r == 0x9b || (r == 0x1b && i+1 < len(rs) && rs[i+1] == '[')
		osc := r == 0x9d || (r == 0x1b && i+1 < len(rs) && rs[i+1] == ']')
		switch {
		case csi:
			if r == 0x1b {
				i++
			}
			for i+1 < len(rs) && rs[i+1] >= 0x20 && rs[i+1] <= 0x3f {
				i++
			}
			if i+1 < len(rs) && rs[i+1] >= 0x40 && rs[i+1] <= 0x7e {
				i++
			}
		case osc:
			if r == 0x1b {
				i++
			}
			for i+1 < len(rs) {
				i++
				if rs[i] == 0x07 {
					break
				}
				if rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\' {
					i++
					break
				}
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// removable: a control but tab, newline and carriage return, DEL, or a
// Default_Ignorable_Code_Point (Other_Default_Ignorable_Code_Point, Cf,
// Variation_Selector, less White_Space, U+FFF9..U+FFFB, U+13430..U+1343F
// and the Prepended_Concatenation_Mark characters).
func removable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case unicode.Is(unicode.White_Space, r):
		return false
	case r >= 0xfff9 && r <= 0xfffb, r >= 0x13430 && r <= 0x1343f:
		return false
	case unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)
}

// joiningScripts use ZWNJ and ZWJ inside words.
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati,
	unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada,
	unicode.Malayalam, unicode.Sinhala, unicode.Khmer, unicode.Myanmar,
}

func keptInContext(rs []rune, i int) bool {
	r := rs[i]
	var prev, next rune = -1, -1
	if i > 0 {
		prev = rs[i-1]
	}
	if i+1 < len(rs) {
		next = rs[i+1]
	}
	switch r {
	case 0x200d: // ZWJ
		if emoji(before(rs, i)) && emoji(next) {
			return true
		}
		return joiningLetter(prev) && joiningLetter(next)
	case 0x200c: // ZWNJ
		return joiningLetter(prev) && joiningLetter(next)
	case 0xfe0e, 0xfe0f:
		return emoji(prev) || prev == '#' || prev == '*' || (prev >= '0' && prev <= '9')
	}
	return false
}

// before is the rune before i, looking through a variation selector and a
// skin-tone modifier (👩🏽‍💻, ❤️‍🔥).
func before(rs []rune, i int) rune {
	for j := i - 1; j >= 0; j-- {
		if r := rs[j]; r == 0xfe0f || (r >= 0x1f3fb && r <= 0x1f3ff) {
			continue
		}
		return rs[j]
	}
	return -1
}

// emoji approximates Extended_Pictographic (which Go's unicode package does
// not carry) by its main blocks; enough for the test data.
func emoji(r rune) bool {
	switch {
	case r >= 0x1f000 && r <= 0x1faff, r >= 0x2600 && r <= 0x27bf,
		r >= 0x2300 && r <= 0x23ff, r >= 0x2b00 && r <= 0x2bff,
		r == 0x00a9, r == 0x00ae, r == 0x203c, r == 0x2049, r == 0x2122:
		return true
	}
	return false
}

func joiningLetter(r rune) bool {
	if r < 0 || !(unicode.IsLetter(r) || unicode.IsMark(r)) {
		return false
	}
	for _, t := range joiningScripts {
		if unicode.Is(t, r) {
			return true
		}
	}
	return false
}
