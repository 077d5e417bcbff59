package scanners

import (
	"bytes"
	"math/bits"
	"unicode/utf8"
)

// Escaped characters in text. Tool output is often JSON written into a text
// block, and that JSON may hold JSON again in one of its strings: a secret,
// a tag or an invisible character may arrive escaped, the six characters
// "\u0067" rather than "g", at any of those levels. A model reading that
// JSON reads the character; the redactor and the normalizer, which see the
// text as written, would not. So before removal and NFKC the Normalizer
// decodes the escapes a model would read as a character of one of the
// strings, when that character is one the text can hold as itself at every
// level (so the text stays valid JSON at every level):
//
//   - printable ASCII but the quote and the backslash ("\u0067" is "g",
//     "\u003c" and "\/" are "<" and "/");
//   - a character the Normalizer changes: the removed classes (NormClass,
//     control characters but tab, newline and carriage return included),
//     characters NFKC changes (full-width forms among them) and the
//     look-alike letters it folds (ConfusableLatin);
//   - a surrogate pair (two escapes at the same level) of such a character
//     ("\udb40\udc20", a tag character).
//
// Every other escape ("\u00e9", "\u0022", "\n", an emoji's pair, a lone
// surrogate) stays as written.
//
// Levels. An escape is a run of backslashes followed by "u" and four hex
// digits (or by "/"). In text that is JSON, an odd run is an escape of that
// JSON (level 1) after (run-1)/2 escaped backslashes; an even run is run/2
// backslashes of that JSON, read again as a run one level deeper, where the
// same rule applies: the escape is at level 1 + the trailing zero bits of
// the run, and its own backslashes are the last 2^(level-1) of the run. The
// escape is replaced by its character and the backslashes before it stay,
// so "\\u0067" (level 2: JSON text inside a JSON string in the text) becomes
// "g" and "\\\u0067" (an escaped backslash, then a level-1 escape) becomes
// "\\g". Levels above MaxEscapeLevel are not decoded.
//
// A decoded character is then removed, folded and scanned like any other,
// and counted (NormStats.Unescaped).
//
// Streaming, a trailing run of backslashes (its last litRunHeld bytes, its
// length counted), an unfinished escape and a high surrogate's escape
// waiting for its pair are held (at most litMaxHeld bytes) and finished by
// the next call.

// MaxEscapeLevel is the deepest level of JSON in text whose escapes the
// Normalizer decodes: JSON in a text block (1), JSON inside a string of
// that JSON (2), and so on.
const MaxEscapeLevel = 4

const (
	litRunHeld = 1 << (MaxEscapeLevel - 1) // the backslashes of the deepest escape
	litMaxHeld = 2 * (litRunHeld + 5)      // a surrogate pair at the deepest level
)

// litState is the escape decoder's state between calls.
type litState struct {
	held [litMaxHeld]byte // the undecided tail of the last call
	n    int
	run  int   // backslashes of the held run written before held
	dec  int64 // escapes decoded since the Normalizer took the count
	buf  []byte
	tmp  []byte
}

func (l *litState) reset() { l.n, l.run = 0, 0 }

// literalTarget reports whether the escape of cp (not a surrogate) is
// decoded.
func literalTarget(cp rune) bool {
	if cp < 0x80 {
		if 0x20 <= cp && cp < 0x7F {
			return cp != '"' && cp != '\\'
		}
		if cp == '\t' || cp == '\n' || cp == '\r' {
			return false
		}
		return true // a removed control
	}
	if 0xD800 <= cp && cp <= 0xDFFF {
		return false
	}
	if _, ok := ConfusableLatin(cp); ok {
		return true
	}
	// Removed, changed by NFKC, or a combining mark (normTable's entry is
	// zero, trail bits aside, for a starter NFKC keeps as it is).
	return normTab().lookup(cp)&^entTrailMask != 0
}

// unescapeLiterals returns src with the escapes of literalTarget characters
// decoded, holding an undecided tail unless final. It returns src itself
// when there is nothing to do.
func (l *litState) unescapeLiterals(src []byte, final bool) []byte {
	if l.n == 0 && bytes.IndexByte(src, '\\') < 0 {
		l.run = 0
		return src
	}
	s := src
	if l.n > 0 {
		l.tmp = append(append(l.tmp[:0], l.held[:l.n]...), src...)
		s = l.tmp
	}
	out, same := l.scan(l.buf[:0], s, final)
	if same && l.n == 0 {
		// Nothing decoded and nothing held: the input as it is.
		l.run = 0
		if len(s) != len(src) {
			l.buf = append(out, s...)
			return l.buf
		}
		return src
	}
	l.buf = out
	return out
}

// scan decodes s into out. It jumps from backslash to backslash
// (bytes.IndexByte). same reports that out is empty and s is the result
// (nothing decoded, nothing held); otherwise the result is out, and the
// undecided tail is in held. On entry l.run counts backslashes written
// before s that continue a run at the start of s.
func (l *litState) scan(out, s []byte, final bool) ([]byte, bool) {
	pre := l.run
	l.run, l.n = 0, 0
	lit, i := 0, 0
	changed := false
	for i < len(s) {
		if s[i] != '\\' {
			k := bytes.IndexByte(s[i:], '\\')
			if k < 0 {
				break
			}
			i += k
			pre = 0
		}
		if pre == 0 && i+1 < len(s) {
			if c := s[i+1]; c != '\\' && c != 'u' && c != '/' {
				// One backslash escaping a character that is never
				// decoded (\" \n ...): the common case, skipped at once.
				i += 2
				continue
			}
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		n := pre + j - i
		pre = 0
		if j == len(s) && !final {
			// A run at the end: hold its last backslashes.
			h := min(j-i, litRunHeld)
			out = append(out, s[lit:j-h]...)
			l.n = copy(l.held[:], s[j-h:])
			l.run = n - h
			return out, false
		}
		i = j
		level := 1 + bits.TrailingZeros(uint(n))
		if level > MaxEscapeLevel || j == len(s) {
			continue
		}
		w := 1 << (level - 1) // the escape's own backslashes: s[j-w:j]
		if j-w < lit {
			continue // cannot happen: a run keeps litRunHeld backslashes
		}
		if s[j] == '/' {
			out = append(append(out, s[lit:j-w]...), '/')
			i = j + 1
			lit, changed = i, true
			l.dec++
			continue
		}
		if s[j] != 'u' {
			continue
		}
		cp, end, st := escapeAt(s, j, w, final)
		switch st {
		case litMore:
			out = append(out, s[lit:j-w]...)
			l.n = copy(l.held[:], s[j-w:])
			l.run = n - w
			return out, false
		case litNo:
			continue
		}
		if !literalTarget(cp) {
			continue
		}
		out = utf8.AppendRune(append(out, s[lit:j-w]...), cp)
		i = end
		lit, changed = i, true
		l.dec++
	}
	if !changed {
		return out, true
	}
	return append(out, s[lit:]...), false
}

// The outcomes of escapeAt.
const (
	litNo   = iota // not an escape that is decoded
	litYes         // an escape of cp, up to end
	litMore        // maybe an escape: the input ends first
)

// escapeAt reads the \u escape whose 'u' is s[j] and whose w backslashes
// end at j, and a low surrogate's escape after a high one (the same w
// backslashes, then u and four hex digits). It returns the character and
// the end of the escape.
func escapeAt(s []byte, j, w int, final bool) (rune, int, int) {
	cp, st := hexAt(s, j+1, final)
	if st != litYes {
		return 0, 0, st
	}
	end := j + 5
	switch {
	case cp < 0xD800 || cp > 0xDFFF:
		return cp, end, litYes
	case cp >= 0xDC00:
		return 0, 0, litNo // a lone low surrogate
	}
	// A high surrogate: its pair must follow at the same level.
	k := end
	for ; k < end+w; k++ {
		if k == len(s) {
			return 0, 0, more(final)
		}
		if s[k] != '\\' {
			return 0, 0, litNo
		}
	}
	if k == len(s) {
		return 0, 0, more(final)
	}
	if s[k] != 'u' {
		return 0, 0, litNo
	}
	lo, st := hexAt(s, k+1, final)
	if st != litYes || lo < 0xDC00 || lo > 0xDFFF {
		if st == litMore {
			return 0, 0, litMore
		}
		return 0, 0, litNo
	}
	return 0x10000 + (cp-0xD800)<<10 + (lo - 0xDC00), k + 5, litYes
}

func more(final bool) int {
	if final {
		return litNo
	}
	return litMore
}

// hexAt reads four hex digits at s[i:].
func hexAt(s []byte, i int, final bool) (rune, int) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(s) {
			return 0, more(final)
		}
		c := s[k]
		if !setHex[c] {
			return 0, litNo
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, litYes
}
