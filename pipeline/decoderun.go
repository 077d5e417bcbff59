package pipeline

import (
	"math/bits"
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
	// nrt maps the low nibble of n, r and t to the control each escapes
	// (a VPSHUFB table, in both 16-byte lanes), for decodeRunShVBMI2.
	nrt [32]byte
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
	for _, c := range []byte("nrt") {
		t.nrt[c&15], t.nrt[16+c&15] = runEscape[c], runEscape[c]
	}
	return t
}()

// decodeRunShGo is what the vector kernel decodeRunShAVX2 does, in Go, and
// what the string chain's fast path does (decode.go), 32 bytes at a time: it
// decodes plain bytes and escapes from src[:n] into dst[:room] and writes the
// escaped shadow of what it decoded (shadow.go) into sh[:shRoom]: plain
// bytes and the escapes the escaper writes the same way (\" \\ \n \r \t) as
// they are, \/ as /, a \u escape of printable ASCII but the backslash as
// its character (a quote as \"), a \u escape of a character from U+0080 up,
// outside the surrogates, as its UTF-8 in both. It reports dirty when the
// string now needs the normalizer (non-ASCII, a decoded u that may
// complete a \u spelled in the text, or an escaped / it decoded after a
// decoded backslash: \/ in text that is JSON). It stops at the first byte
// it does not take (a quote, a control, raw non-ASCII, another escape, \\
// then u or /, an escape the input cuts) and when fewer than 32 bytes of src or 40 of
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
		var ok bool
		i, k, o, dirty, ok = decodeOneEscape(s, d, h, i, k, o, dirty, t)
		if !ok {
			break
		}
	}
	return i, k, o, dirty
}

// decodeOneEscape is how decodeRunShGo takes the byte at s[i] when it is
// not plain (the assembly kernels' ESCAPE_ONE): a backslash with at least
// two bytes after it that begins \/, a \u escape of printable ASCII but
// the backslash or of a character from U+0080 up outside the surrogates,
// or an escape of runEscape but \\ followed by u or /. ok is false, and
// nothing taken, for any other byte. A / it decodes from \/ or \u002f
// right after a decoded backslash (d[k-1], when k > 0) sets dirty.
func decodeOneEscape(s, d, h []byte, i, k, o int, dirty bool, t *runTables) (int, int, int, bool, bool) {
	n := len(s)
	if s[i] != '\\' || i+2 >= n {
		return i, k, o, dirty, false
	}
	switch e := s[i+1]; e {
	case '/':
		d[k], h[o] = '/', '/'
		return i + 2, k + 1, o + 1, dirty || k > 0 && d[k-1] == '\\', true
	case 'u':
		if i+6 > n {
			return i, k, o, dirty, false
		}
		h0, h1, h2, h3 := t.hex[s[i+2]], t.hex[s[i+3]], t.hex[s[i+4]], t.hex[s[i+5]]
		if (h0|h1|h2|h3)&0xF0 != 0 {
			return i, k, o, dirty, false
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
			return i + 6, k + 1, o, dirty || v == 'u' || v == '/' && k > 0 && d[k-1] == '\\', true
		case v >= 0x80 && (v < 0xD800 || v > 0xDFFF):
			w := utf8.EncodeRune(d[k:], v)
			copy(h[o:], d[k:k+w])
			return i + 6, k + w, o + w, true, true
		}
		return i, k, o, dirty, false
	}
	c := t.esc[s[i+1]]
	if c == 0 || s[i+1] == '\\' && (s[i+2] == 'u' || s[i+2] == '/') {
		return i, k, o, dirty, false
	}
	d[k] = c
	h[o], h[o+1] = '\\', s[i+1]
	return i + 2, k + 1, o + 2, dirty, true
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

// escapeMasks classifies the backslashes of a 32-byte block whose first
// byte is not the second byte of an escape: letters has a bit for each
// byte a backslash escapes (the second byte of an escape, which may be a
// backslash itself), starters for each backslash that begins an escape.
// A run of backslashes alternates starter and letter from its first byte;
// the byte after a run of odd length is a letter. It works on whole runs
// with two additions, as simdjson finds escaped characters.
func escapeMasks(bs uint32) (letters, starters uint32) {
	const even, odd = 0x55555555, 0xAAAAAAAA
	starts := bs &^ (bs << 1)
	evenCarries := bs + starts&even // each run from an even place carries out of its end
	oddCarries := bs + starts&odd
	inRuns := (bs&^evenCarries)&odd | (bs&^oddCarries)&even
	after := (evenCarries&^bs)&odd | (oddCarries&^bs)&even
	letters = inRuns | after
	return letters, bs &^ letters
}

// decodeRunShCGo is what the vector kernel decodeRunShVBMI2 does, in Go:
// decodeRunShGo with every two-byte escape of a block decoded at once.
// For each 32-byte block (under the same room conditions) it stores the
// block in dst and sh, then finds lim, the first byte the block cannot
// take in one step: a quote, control, DEL or non-ASCII byte that no
// backslash escapes, a backslash that begins an escape other than \" \\ \/
// \n \r \t or a \\ followed by u or /, a \/ right after a \\ or at the
// block's start, or a backslash that begins an escape at byte 30 or 31.
// When backslashes begin escapes before lim, the decoded bytes of
// block[:lim] (the backslashes dropped, n r t turned into their
// controls) are stored in dst as a 32-byte block padded with zeros, and
// when one of them is \/, the shadow of block[:lim] (the block without the
// backslash of \/) likewise in sh. A block that ends at lim < 32 goes on
// with decodeRunShGo's handling of the byte at lim; lim = 0 is only that.
func decodeRunShCGo(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool) {
	s := unsafe.Slice(src, n)
	d := unsafe.Slice(dst, room)
	h := unsafe.Slice(sh, shRoom)
	i, k, o := 0, 0, 0
	for n-i >= 32 && room-k >= 40 && shRoom-o >= 40 {
		blk := s[i : i+32]
		copy(d[k:k+32], blk)
		copy(h[o:o+32], blk)
		var bs, stop, slash, ltr, u, valid uint32
		for z, c := range blk {
			bit := uint32(1) << z
			switch {
			case c == '\\':
				bs |= bit
			case c == '"' || c < 0x20 || c >= 0x7f:
				stop |= bit
			}
			switch c {
			case '/':
				slash |= bit
			case 'n', 'r', 't':
				ltr |= bit
			case 'u':
				u |= bit
			}
			switch c {
			case '"', '\\', '/', 'n', 'r', 't':
				valid |= bit
			}
		}
		z := bits.TrailingZeros32(bs | stop)
		if z == 32 {
			i, k, o = i+32, k+32, o+32
			continue
		}
		if blk[z] != '\\' || z == 31 || blk[z+1] == 'u' || bits.OnesCount32(bs) == 1 {
			// As decodeRunShGo: up to the first byte that is not plain,
			// then that byte, when it is not a backslash, begins a \u
			// escape, is the last of the block, or is the only backslash.
			i, k, o = i+z, k+z, o+z
			var ok bool
			i, k, o, dirty, ok = decodeOneEscape(s, d, h, i, k, o, dirty, t)
			if !ok {
				break
			}
			continue
		}
		letters, starters := escapeMasks(bs)
		stop &^= letters
		bad := letters &^ valid
		bad |= letters & bs & (u >> 1)     // \\ then u
		bad |= letters & bs & (slash >> 1) // \\ then /
		// A \/ right after a \\, or at the block's start (after what was
		// decoded before it), is decodeOneEscape's, which marks it dirty
		// after a backslash.
		after := starters & ((letters&bs)<<1 | 1) & ((letters & slash) >> 1)
		cut := stop | bad>>1 | after | starters&0xC0000000
		lim := bits.TrailingZeros32(cut)
		low := uint32(uint64(1)<<lim - 1)
		st := starters & low
		if st != 0 {
			var out [32]byte
			w := 0
			for z := 0; z < lim; z++ {
				if st>>z&1 != 0 {
					continue
				}
				c := blk[z]
				if letters>>z&1 != 0 && ltr>>z&1 != 0 {
					c = runEscape[c]
				}
				out[w] = c
				w++
			}
			copy(d[k:k+32], out[:])
			k += w
			if sl := st & (letters & slash >> 1); sl != 0 {
				var out [32]byte
				w := 0
				for z := 0; z < lim; z++ {
					if sl>>z&1 == 0 {
						out[w] = blk[z]
						w++
					}
				}
				copy(h[o:o+32], out[:])
				o += w
			} else {
				o += lim
			}
		} else {
			k += lim
			o += lim
		}
		i += lim
		if lim == 32 {
			continue
		}
		// The byte at lim, as decodeRunShGo takes it.
		var ok bool
		i, k, o, dirty, ok = decodeOneEscape(s, d, h, i, k, o, dirty, t)
		if !ok {
			break
		}
	}
	return i, k, o, dirty
}
