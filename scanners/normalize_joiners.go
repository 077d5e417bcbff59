package scanners

import (
	"unicode"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/normdata"
)

// Joiners and selectors that are kept. The Normalizer removes U+200C ZERO
// WIDTH NON-JOINER, U+200D ZERO WIDTH JOINER and the variation selectors
// U+FE0E and U+FE0F because they are invisible and can split a keyword
// ("g\u200Dhp_..." reads as "ghp_..." to a model and to no rule). But they are
// also part of correct text: Persian writes ZWNJ inside words, Indic scripts
// choose conjunct forms with ZWJ and ZWNJ after a virama, emoji ZWJ
// sequences (👨‍👩‍👧) and presentation selectors (❤️, keycaps 1️⃣) are made of
// them. Removing them misspells the text and breaks round trips (a file name
// read back no longer matches). So one of these four runes is kept, in every
// mode, exactly when its neighbours (the input runes just before and after
// it, whatever the normalizer does with them) are:
//
//  1. ZWJ: before, an emoji base (an Extended_Pictographic rune that NFKC
//     leaves unchanged), an emoji modifier (U+1F3FB..U+1F3FF) or U+FE0F;
//     after, an emoji base (an emoji ZWJ sequence);
//  2. ZWNJ or ZWJ: before, a letter or mark of a script in joinerScripts
//     (or a mark of script Inherited, such as the Arabic harakat); after, a
//     letter or mark of that same script (of any script of joinerScripts
//     after an Inherited mark);
//  3. U+FE0E or U+FE0F: before, an emoji base (an emoji presentation
//     sequence, ©️ included; not ™️, ℹ️, Ⓜ️ or ‼️, whose base NFKC folds
//     to ASCII);
//  4. U+FE0F: before, an ASCII digit, '#' or '*', and after, U+20E3
//     COMBINING ENCLOSING KEYCAP (a keycap sequence).
//
// They cannot hide anything there: on at least one side stands a rune that
// is neither ASCII nor a letter that confusable folding turns into one (an
// emoji, an Arabic or Indic letter, U+20E3), so no keyword, secret or tag
// the redactor looks for can run through the kept rune; removing it would
// not join two halves of one either. Everywhere else they are removed as
// before, and so is every other invisible rune (tag characters, bidi
// controls, ZWSP...), inside emoji sequences too: an emoji tag sequence
// (🏴 + tag letters, a subdivision flag) loses its tags, since tag
// characters are the known channel of hidden ASCII text.
//
// Streaming, a ZWJ or ZWNJ (or a keycap's U+FE0F) that ends a call whose
// rule needs the next rune is held (3 bytes) and decided by the next call,
// so the result does not depend on how the text is split into calls.

// joinerScripts are the scripts whose text uses ZWNJ and ZWJ between
// letters: the cursive scripts of ArabicShaping.txt (Joining_Type D, R or L
// letters), and the Brahmic scripts whose conjuncts ZWJ and ZWNJ control
// after a virama (The Unicode Standard, 12.2, "Rendering behaviour").
var joinerScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian, unicode.Mandaic,
	unicode.Manichaean, unicode.Psalter_Pahlavi, unicode.Hanifi_Rohingya, unicode.Adlam,
	unicode.Phags_Pa, unicode.Sogdian, unicode.Old_Uyghur, unicode.Chorasmian,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Khmer, unicode.Myanmar, unicode.Tibetan, unicode.Balinese, unicode.Javanese,
	unicode.Sundanese, unicode.Tirhuta, unicode.Grantha, unicode.Newa, unicode.Sharada,
	unicode.Kaithi, unicode.Chakma, unicode.Takri,
}

// Results of joinerScript besides an index into joinerScripts.
const (
	scriptNone      = -1 // not a letter or mark of a joiner script
	scriptInherited = -2 // a mark of script Inherited
)

// joinerScript returns the index in joinerScripts of the script of r when r
// is a letter or mark, scriptInherited for an Inherited mark, or
// scriptNone.
func joinerScript(r rune) int {
	if r < 0x300 || !unicode.In(r, unicode.L, unicode.M) {
		return scriptNone
	}
	for k, s := range joinerScripts {
		if unicode.Is(s, r) {
			return k
		}
	}
	if unicode.Is(unicode.Inherited, r) && unicode.Is(unicode.M, r) {
		return scriptInherited
	}
	return scriptNone
}

// isPictographic reports whether r is Extended_Pictographic.
func isPictographic(r rune) bool {
	return r >= 0xA9 && unicode.Is(normdata.ExtendedPictographic, r)
}

// isEmojiBase reports whether r is Extended_Pictographic and NFKC leaves it
// as it is: ™, ℹ, Ⓜ, ‼ and the squared CJK signs fold to ASCII or other
// text, where a kept selector would stand after a letter.
func isEmojiBase(r rune) bool { return normTab().isEmojiBase(r) }

// isEmojiBase is isEmojiBase with the two blocks that hold most emoji looked
// up in a bitmap built with the table.
func (t *normTable) isEmojiBase(r rune) bool {
	switch {
	case r < 0xA9:
		return false
	case emojiLo <= r && r < emojiLo+emojiN:
		x := r - emojiLo
		return t.emoji[x>>6]&(1<<(x&63)) != 0
	case symLo <= r && r < symLo+symN:
		x := r - symLo + emojiN
		return t.emoji[x>>6]&(1<<(x&63)) != 0
	}
	return slowEmojiBase(t, r)
}

func slowEmojiBase(t *normTable, r rune) bool {
	return isPictographic(r) && t.lookup(r)&entChanged == 0
}

// The bitmap of isEmojiBase: U+1F000..U+1FFFF, then U+2000..U+2BFF.
const (
	emojiLo, emojiN = 0x1F000, 0x1000
	symLo, symN     = 0x2000, 0xC00
)

type emojiBitmap [(emojiN + symN) / 64]uint64

func buildEmojiBits(t *normTable) *emojiBitmap {
	var b emojiBitmap
	for x := rune(0); x < emojiN+symN; x++ {
		r := emojiLo + x
		if x >= emojiN {
			r = symLo + x - emojiN
		}
		if slowEmojiBase(t, r) {
			b[x>>6] |= 1 << (x & 63)
		}
	}
	return &b
}

// isJoiner reports whether the rule above applies to r at all.
func isJoiner(r rune) bool { return r == 0x200C || r == 0x200D || r == 0xFE0E || r == 0xFE0F }

// joinerNeedsNext reports whether the decision on the joiner r after prev
// depends on the next rune (otherwise keepJoiner ignores next).
func joinerNeedsNext(prev, r rune) bool {
	switch r {
	case 0x200C, 0x200D:
		return true
	case 0xFE0F:
		return prev < utf8.RuneSelf
	}
	return false
}

// keepJoiner reports whether the joiner r (isJoiner) between the input runes
// prev and next is kept; either is 0 where the string has none.
func keepJoiner(prev, r, next rune) bool { return normTab().keepJoiner(prev, r, next) }

// keepJoiner is keepJoiner with the table at hand.
func (t *normTable) keepJoiner(prev, r, next rune) bool {
	switch r {
	case 0x200D:
		if (t.isEmojiBase(prev) || 0x1F3FB <= prev && prev <= 0x1F3FF || prev == 0xFE0F) && t.isEmojiBase(next) {
			return true
		}
		fallthrough
	case 0x200C:
		p := joinerScript(prev)
		if p == scriptNone {
			return false
		}
		q := joinerScript(next)
		return q >= 0 && (p == q || p == scriptInherited)
	case 0xFE0F:
		if '0' <= prev && prev <= '9' || prev == '#' || prev == '*' {
			return next == 0x20E3
		}
		fallthrough
	case 0xFE0E:
		return t.isEmojiBase(prev)
	}
	return false
}

// joinerAt decides the joiner r at src[i:i+size]: keep reports whether it
// is kept, hold whether it ends src (not final) and the rule needs the next
// rune, which the next call brings.
func (n *Normalizer) joinerAt(t *normTable, src []byte, i, size int, r rune, final bool) (keep, hold bool) {
	prev := n.prev
	if i > 0 {
		prev = lastRune(src[:i])
	}
	if !joinerNeedsNext(prev, r) {
		return t.keepJoiner(prev, r, 0), false
	}
	if i+size == len(src) {
		if !final {
			return false, true
		}
		return t.keepJoiner(prev, r, 0), false
	}
	next, _ := decodeRune(src, i+size)
	return t.keepJoiner(prev, r, next), false
}

// lastRune decodes the last rune of the non-empty s (utf8.RuneError where it
// is not valid UTF-8), the common cases without a call.
func lastRune(s []byte) rune {
	k := len(s) - 1
	if s[k] < utf8.RuneSelf {
		return rune(s[k])
	}
	for j := k; j > 0 && j > k-3; {
		j--
		if utf8.RuneStart(s[j]) {
			if r, size := decodeRune(s, j); j+size == len(s) {
				return r
			}
			break
		}
	}
	r, _ := utf8.DecodeLastRune(s)
	return r
}

// holdJoiner keeps the joiner at src[i:] for the next call.
func (n *Normalizer) holdJoiner(src []byte, i int) {
	n.npend = uint8(copy(n.pend[:], src[i:]))
}

// withHeld returns src behind a joiner held by the last call, if any.
func (n *Normalizer) withHeld(src []byte) []byte {
	if n.npend == 0 {
		return src
	}
	n.pendBuf = append(append(n.pendBuf[:0], n.pend[:n.npend]...), src...)
	n.npend = 0
	return n.pendBuf
}

// notePrev records the last input rune of src, the neighbour before the
// first rune of the next call.
func (n *Normalizer) notePrev(src []byte) {
	if len(src) > 0 {
		n.prev, _ = utf8.DecodeLastRune(src)
	}
}
