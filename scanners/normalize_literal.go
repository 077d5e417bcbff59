package scanners

import (
	"bytes"
	"unicode/utf8"
)

// Escaped characters in text. Tool output is often JSON written into a text
// block, where an invisible or full-width character may arrive escaped: the
// six characters "\u200b" rather than U+200B. A model reading that JSON
// reads the character; the normalizer, which removes U+200B and folds U+FF47
// to "g", would not see it. So before removal and NFKC the Normalizer
// decodes the \uXXXX escapes whose character it would change: the removed
// classes (NormClass, control characters but tab, newline and carriage
// return included) and the full-width forms of ASCII (U+FF01..U+FF5E).
// Every other escape ("\u00e9", "\u0022", surrogates) stays as written, and
// an escape whose backslash is itself escaped ("\\u200b": a backslash and
// the text u200b) is not one. A decoded character is then removed or folded
// and counted like any other, so "abc\u200bdef" becomes "abcdef" and the
// text stays valid JSON.
//
// Streaming, an escape cut by a call boundary is held (at most 5 bytes) and
// finished by the next call; the parity of a run of backslashes is carried
// too.

// litState is the escape decoder's state between calls.
type litState struct {
	held [5]byte // an unfinished escape: '\\', 'u' and up to 3 hex digits
	n    int
	odd  bool // the text so far ends in an odd run of backslashes (not in held)
	buf  []byte
}

func (l *litState) reset() { l.n, l.odd = 0, false }

// literalTarget reports whether the escape of cp is decoded.
func literalTarget(cp rune) bool {
	if 0xFF01 <= cp && cp <= 0xFF5E {
		return true
	}
	if cp == '\t' || cp == '\n' || cp == '\r' || 0xD800 <= cp && cp <= 0xDFFF {
		return false
	}
	_, strip := stripClass(cp)
	return strip
}

// unescapeLiterals returns src with the escapes of literalTarget characters
// decoded, holding an unfinished escape at the end unless final. It returns
// src itself when there is nothing to do.
func (l *litState) unescapeLiterals(src []byte, final bool) []byte {
	if l.n == 0 && !l.odd && bytes.IndexByte(src, '\\') < 0 {
		return src
	}
	out := l.buf[:0]
	in := src
	if l.n > 0 {
		// Finish the held escape with the first bytes of src.
		k := min(len(src), 6-l.n)
		var t [6]byte
		m := copy(t[:], l.held[:l.n])
		m += copy(t[m:], src[:k])
		in = src[k:]
		l.n = 0
		out = l.scan(out, t[:m], in, final)
		l.buf = out
		return out
	}
	out = l.scan(out, in, nil, final)
	l.buf = out
	return out
}

// scan decodes a (then b, which follows a directly) into out. It jumps
// from backslash to backslash (bytes.IndexByte) and copies only when it
// decodes or holds something: otherwise it returns the input as it is.
func (l *litState) scan(out, a, b []byte, final bool) []byte {
	// Work on one contiguous slice: a is at most 6 bytes.
	s := a
	if len(b) > 0 {
		s = append(append(make([]byte, 0, len(a)+len(b)), a...), b...)
	}
	lit := 0
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			l.odd = false
			k := bytes.IndexByte(s[i:], '\\')
			if k < 0 {
				break
			}
			i += k
		}
		if l.odd {
			l.odd = false // the second of a pair: a literal backslash
			continue
		}
		// An unescaped backslash: \uXXXX?
		if len(s)-i < 6 && !final {
			if rest := s[i:]; escapePrefix(rest) {
				out = append(out, s[lit:i]...)
				l.n = copy(l.held[:], rest)
				return out
			}
		}
		if len(s)-i >= 6 && s[i+1] == 'u' {
			if cp, ok := hex4(s[i+2 : i+6]); ok && literalTarget(cp) {
				out = append(out, s[lit:i]...)
				out = utf8.AppendRune(out, cp)
				i += 5
				lit = i + 1
				changed = true
				continue
			}
		}
		l.odd = true
	}
	if !changed && len(out) == 0 {
		return s
	}
	return append(out, s[lit:]...)
}

// escapePrefix reports whether b (shorter than an escape) may begin
// "\uXXXX".
func escapePrefix(b []byte) bool {
	if len(b) >= 2 && b[1] != 'u' {
		return false
	}
	for _, c := range b[min(2, len(b)):] {
		if !setHex[c] {
			return false
		}
	}
	return true
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		if !setHex[c] {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}
