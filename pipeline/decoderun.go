package pipeline

import "unsafe"

// runEscape maps the byte after a backslash to what it stands for, for the
// escapes decodeRun decodes itself: those the escaper writes the same way,
// so the escaped shadow (shadow.go) takes them as they are. \/ and the \u
// escapes are left to the lexer.
var runEscape = [256]byte{'"': '"', '\\': '\\', 'n': '\n', 'r': '\r', 't': '\t'}

// decodeRunGo is what the vector kernel (decoderun_amd64.s) does, in Go:
// it copies plain string bytes (0x20..0x7e but the quote and the backslash)
// from src[:n] to dst[:room] and decodes on the way the escapes esc maps,
// except a \\ followed by u (which marks the string, see lexEscape), until
// the first byte it does not take, or until fewer than 32 bytes of src or of
// dst are left. Whole 32-byte blocks of dst may be written past what it
// reports. It returns how many bytes of src it consumed and of dst it
// wrote.
func decodeRunGo(src *byte, n int, dst *byte, room int, esc *[256]byte) (int, int) {
	s := unsafe.Slice(src, n)
	d := unsafe.Slice(dst, room)
	i, k := 0, 0
	for n-i >= 32 && room-k >= 32 {
		copy(d[k:k+32], s[i:i+32])
		z := 0
		for z < 32 && strSafe[s[i+z]] {
			z++
		}
		i += z
		k += z
		if z == 32 {
			continue
		}
		if s[i] != '\\' || i+2 >= n {
			break
		}
		e := esc[s[i+1]]
		if e == 0 || s[i+1] == '\\' && s[i+2] == 'u' {
			break
		}
		d[k] = e
		i += 2
		k++
	}
	return i, k
}
