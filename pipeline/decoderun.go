package pipeline

import (
	"unicode/utf8"
	"unsafe"
)

// runEscape maps the byte after a backslash to what it stands for, for the
// two-byte escapes decodeRunSh decodes itself: those the escaper writes the same way,
// so the escaped shadow (shadow.go) takes them as they are. \/ and the \u
// escapes are left to the lexer.
var runEscape = [256]byte{'"': '"', '\\': '\\', 'n': '\n', 'r': '\r', 't': '\t'}

// runTables are the tables of decodeRunSh: esc as runEscape, and hex the
// value of a hex digit (0xF0 for any other byte).
type runTables struct {
	esc [256]byte
	hex [256]byte
}

var runTabs = func() (t runTables) {
	t.esc = runEscape
	for c := range t.hex {
		t.hex[c] = 0xF0
	}
	for c := '0'; c <= '9'; c++ {
		t.hex[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t.hex[c] = byte(c-'a') + 10
		t.hex[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// decodeRunShGo is what the vector kernel decodeRunShAVX2 does, in Go, and
// what the lexer's fast path does (lexer.go), 32 bytes at a time: it decodes
// plain bytes and escapes from src[:n] into dst[:room] and writes the
// escaped shadow of what it decoded (shadow.go) into sh[:shRoom]: plain
// bytes and the escapes the escaper writes the same way (\" \\ \n \r \t) as
// they are, \/ as /, a \u escape of printable ASCII but the backslash as
// its character (a quote as \"), a \u escape of a character from U+0080 up,
// outside the surrogates, as its UTF-8 in both. It reports dirty when the
// string now needs the normalizer (non-ASCII, or a decoded u that may
// complete a \u spelled in the text). It stops at the first byte it does
// not take (a quote, a control, raw non-ASCII, another escape, \\ then u,
// an escape the input cuts) and when fewer than 32 bytes of src or 40 of
// dst or sh are left. Whole 32-byte blocks of dst and sh may be written past
// what it reports.
func decodeRunShGo(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool) {
	s := unsafe.Slice(src, n)
	d := unsafe.Slice(dst, room)
	h := unsafe.Slice(sh, shRoom)
	i, k, o := 0, 0, 0
	for n-i >= 32 && room-k >= 40 && shRoom-o >= 40 {
		copy(d[k:k+32], s[i:i+32])
		copy(h[o:o+32], s[i:i+32])
		z := 0
		for z < 32 && strSafe[s[i+z]] {
			z++
		}
		i, k, o = i+z, k+z, o+z
		if z == 32 {
			continue
		}
		if s[i] != '\\' || i+2 >= n {
			break
		}
		switch e := s[i+1]; e {
		case '/':
			d[k], h[o] = '/', '/'
			i, k, o = i+2, k+1, o+1
			continue
		case 'u':
			if i+6 > n {
				return i, k, o, dirty
			}
			h0, h1, h2, h3 := t.hex[s[i+2]], t.hex[s[i+3]], t.hex[s[i+4]], t.hex[s[i+5]]
			if (h0|h1|h2|h3)&0xF0 != 0 {
				return i, k, o, dirty
			}
			v := rune(h0)<<12 | rune(h1)<<8 | rune(h2)<<4 | rune(h3)
			switch {
			case v >= 0x20 && v < 0x7f && v != '\\':
				d[k] = byte(v)
				if v == '"' {
					h[o], h[o+1] = '\\', '"'
					o += 2
				} else {
					h[o] = byte(v)
					o++
				}
				dirty = dirty || v == 'u'
				i, k = i+6, k+1
			case v >= 0x80 && (v < 0xD800 || v > 0xDFFF):
				w := utf8.EncodeRune(d[k:], v)
				copy(h[o:], d[k:k+w])
				dirty = true
				i, k, o = i+6, k+w, o+w
			default:
				return i, k, o, dirty
			}
			continue
		}
		c := t.esc[s[i+1]]
		if c == 0 || s[i+1] == '\\' && s[i+2] == 'u' {
			break
		}
		d[k] = c
		h[o], h[o+1] = '\\', s[i+1]
		i, k, o = i+2, k+1, o+2
	}
	return i, k, o, dirty
}

// escapeRunGo is what the vector kernel escapeRunAVX2 does, in Go: it
// copies src[:n] to dst[:room] escaped as the inside of a JSON string (a
// quote, a backslash, a newline, a carriage return and a tab as their
// two-byte escapes), 32 bytes at a time, until another control byte (the
// caller writes its six-byte escape) or until fewer than 32 bytes of src or
// 64 of dst are left. Whole 32-byte blocks of dst may be written past what
// it reports. It returns how many bytes of src it consumed and of dst it
// wrote.
func escapeRunGo(src *byte, n int, dst *byte, room int) (consumed, written int) {
	s := unsafe.Slice(src, n)
	d := unsafe.Slice(dst, room)
	i, k := 0, 0
	for n-i >= 32 && room-k >= 64 {
		copy(d[k:k+32], s[i:i+32])
		z := 0
		for z < 32 && !escTable[s[i+z]] {
			z++
		}
		i, k = i+z, k+z
		if z == 32 {
			continue
		}
		var e byte
		switch c := s[i]; c {
		case '"', '\\':
			e = c
		case '\n':
			e = 'n'
		case '\r':
			e = 'r'
		case '\t':
			e = 't'
		default:
			return i, k
		}
		d[k], d[k+1] = '\\', e
		i, k = i+1, k+2
	}
	return i, k
}
