package pipeline

import (
	"encoding/binary"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"math/bits"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"
)

// This file is where the string chain takes a string's bytes: its own fast
// path over plain runs and common escapes (with the vector kernel), and the
// lexer's string segments for everything else.

// strSafe marks ASCII bytes that stand for themselves inside a JSON string.
// DEL is left out: it is valid in JSON but the normalizer removes it.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['"'] = false
	t['\\'] = false
	return t
}()

// textRun returns the end of a run of text that starts at b[i], a byte
// outside ASCII: bytes that stand for themselves (strSafe) and whole, valid
// UTF-8 sequences, up to the first other byte (a quote, a backslash, a
// control, DEL, an invalid sequence or one the end of b cuts), the end of
// b, or the start of a run of textRunASCII plain bytes (the vector
// kernel's). It returns i when b[i] starts no valid sequence. The lexer's
// Text segment from b[i] is the same text, perhaps longer: where the
// string's text is cut into segments changes nothing written.
func textRun(b []byte, i int) int {
	n := len(b)
	for i < n {
		c := b[i]
		if c < utf8.RuneSelf {
			if !strSafe[c] {
				return i
			}
			i++
			// Eight bytes at a time; at a word that is not plain, to its
			// first byte that is not (the first flagged lane is exact).
			for w := i; i+8 <= n; i += 8 {
				if m := specialLanes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				if i-w >= textRunASCII {
					return w
				}
			}
			continue
		}
		if i+2 < n && b[i+1]&0xC0 == 0x80 {
			// Two bytes (Latin, Greek, Cyrillic), and three bytes with no
			// overlong form or surrogate among them (CJK, punctuation):
			// inline; the rest in utf8SeqLen.
			if c >= 0xC2 && c < 0xE0 {
				i += 2
				continue
			}
			if c > 0xE0 && c < 0xF0 && c != 0xED && b[i+2]&0xC0 == 0x80 {
				i += 3
				continue
			}
		}
		size := utf8SeqLen(b, i)
		if size == 0 {
			return i
		}
		i += size
	}
	return i
}

// textRunASCII is the longest run of plain ASCII textRun takes.
const textRunASCII = 32

// utf8SeqLen returns the length of the valid UTF-8 sequence of two to four
// bytes that starts at b[i], or 0 when b[i:] does not start with one
// (ASCII, an invalid or overlong sequence, a surrogate, one cut by the end
// of b): exactly when utf8.DecodeRune(b[i:]) returns a rune from U+0080 up
// and its size.
func utf8SeqLen(b []byte, i int) int {
	c := b[i]
	switch {
	case c < 0xC2 || c > 0xF4 || i+1 >= len(b):
		return 0
	case c < 0xE0:
		if b[i+1]&0xC0 != 0x80 {
			return 0
		}
		return 2
	}
	c1 := b[i+1]
	lo, hi := byte(0x80), byte(0xBF)
	switch c {
	case 0xE0:
		lo = 0xA0
	case 0xED:
		hi = 0x9F
	case 0xF0:
		lo = 0x90
	case 0xF4:
		hi = 0x8F
	}
	if c1 < lo || c1 > hi || i+2 >= len(b) || b[i+2]&0xC0 != 0x80 {
		return 0
	}
	if c < 0xF0 {
		return 3
	}
	if i+3 >= len(b) || b[i+3]&0xC0 != 0x80 {
		return 0
	}
	return 4
}

// lexString consumes string bytes from b[i:] up to the closing quote or the
// end of b, and hands decoded text to the string chain.
func (p *pass) lexString(b []byte, i int) int {
	n := len(b)
	if p.strFresh && i < n {
		p.strFresh = false
		if k := p.wholeString(b, i); k >= 0 {
			return k
		}
	}
	for i < n && p.fail == nil {
		if (p.sm == smText || p.sm == smKey || p.sm == smDefer) && !p.strCut && p.lx.StringIdle() {
			// Fast path: printable ASCII runs and two-byte escapes go
			// straight into the batch, without a call per run or escape.
			// Anything else (a quote, non-ASCII, \u, a control) is the
			// lexer's (below), as is any string while an escape, a
			// surrogate or a split UTF-8 sequence is pending there.
			d := p.dbuf
			if cap(d) < decodeFlushAt {
				d = append(make([]byte, 0, decodeFlushAt), d...)
			}
			k := len(d)
			d = d[:decodeFlushAt]
			// The escaped shadow (shadow.go) takes the input as it is,
			// in one copy per run: plain bytes and the escapes the
			// escaper writes the same way (\" \\ \n \r \t). The other
			// escapes end a run and go in as the escaper writes them.
			k0, run := k, i
			// cut: a character outside ASCII does not fit in the batch;
			// the batch ends before it, as fill ends it.
			cut := false
			for i < n && k < decodeFlushAt {
				// The vector kernel takes plain runs and the escapes this
				// loop decodes 32 bytes at a time, and writes their
				// escaped shadow itself (decoderun.go); the word loop below
				// does the rest.
				if haveDecodeRun && n-i >= 64 && decodeFlushAt-k >= 64 {
					var c, w int
					var dirty bool
					if p.shOn {
						p.sh = append(p.sh, b[run:i]...)
						if need := 2*(decodeFlushAt-k) + 64; cap(p.sh)-len(p.sh) < need {
							p.sh = append(make([]byte, 0, len(p.sh)+need+decodeFlushAt), p.sh...)
						}
						h := p.sh[len(p.sh):cap(p.sh)]
						var sw int
						c, w, sw, dirty = decodeRunSh(&b[i], n-i, &d[k], decodeFlushAt-k, &h[0], len(h), &runTabs)
						p.sh = p.sh[:len(p.sh)+sw]
						run = i + c
					} else {
						if len(p.shTmp) < 2*decodeFlushAt+64 {
							p.shTmp = make([]byte, 2*decodeFlushAt+64)
						}
						c, w, _, dirty = decodeRunSh(&b[i], n-i, &d[k], decodeFlushAt-k, &p.shTmp[0], len(p.shTmp), &runTabs)
					}
					if dirty || w > 0 && k > 0 && d[k] == '/' && d[k-1] == '\\' {
						// Non-ASCII, a decoded u, or a decoded backslash
						// then /, "\\/" in JSON text: the kernel marks one
						// inside its run and stops before a \\ then /; a
						// backslash just before its run is seen here.
						p.strDirty = true
					}
					i += c
					k += w
				}
				// Eight bytes at a time while they are all plain; at the
				// first word that is not, jump to its first special byte
				// (word tests never miss one and only err above it).
				for i+8 <= n && k+8 <= decodeFlushAt {
					x := binary.LittleEndian.Uint64(b[i:])
					// The whole word is stored either way (there is room
					// for eight bytes); only its plain prefix counts. A
					// copy of the prefix was a call to memmove per word.
					binary.LittleEndian.PutUint64(d[k:], x)
					if m := specialLanes(x); m != 0 {
						z := bits.TrailingZeros64(m) >> 3
						k += z
						i += z
						break
					}
					k += 8
					i += 8
				}
				if i >= n || k >= decodeFlushAt {
					break
				}
				c := b[i]
				if strSafe[c] {
					d[k] = c
					k++
					i++
					continue
				}
				if c == '\\' && i+1 < n {
					if e := simpleEscape[b[i+1]]; e != 0 && e != '\b' && e != '\f' {
						if e == '\\' && (i+2 >= n || b[i+2] == 'u' || b[i+2] == '/') {
							// A backslash and u or /: maybe an escaped
							// character of JSON text (see lexEscape).
							p.strDirty = true
						}
						if e == '/' && k > 0 && d[k-1] == '\\' {
							p.strDirty = true // a backslash, then /: "\\/" in JSON text
						}
						d[k] = e
						k++
						if e == '/' && p.shOn {
							p.sh = append(append(p.sh, b[run:i]...), '/')
							run = i + 2
						}
						i += 2
						continue
					}
					// \uXXXX outside the surrogates, such as Go's
					// encoding/json writes for <, > and &, and Python's
					// json.dumps for every non-ASCII character. Printable
					// ASCII other than the backslash decodes to one plain
					// byte and leaves the string clean (a decoded u still
					// marks it: it may complete a \u spelled in the text,
					// see lexEscape); a non-ASCII character marks it for
					// the normalizer, as the general path does. Controls,
					// the backslash, surrogates and escapes split by the
					// chunk end take the general path (same output).
					if b[i+1] == 'u' && i+6 <= n {
						h0, h1, h2, h3 := unhex(b[i+2]), unhex(b[i+3]), unhex(b[i+4]), unhex(b[i+5])
						v := h0<<12 | h1<<8 | h2<<4 | h3
						switch {
						case h0|h1|h2|h3 < 0: // not hex: the general path fails it
						case v >= 0x20 && v < 0x7f && v != '\\':
							if v == 'u' || v == '/' && k > 0 && d[k-1] == '\\' {
								p.strDirty = true
							}
							d[k] = byte(v)
							k++
							if p.shOn {
								p.sh = append(p.sh, b[run:i]...)
								if v == '"' {
									p.sh = append(p.sh, '\\', '"')
								} else {
									p.sh = append(p.sh, byte(v))
								}
								run = i + 6
							}
							i += 6
							continue
						case v >= 0x80 && (v < 0xD800 || v > 0xDFFF) && k+utf8.UTFMax <= decodeFlushAt:
							p.strDirty = true
							w := utf8.EncodeRune(d[k:], v)
							if p.shOn {
								p.sh = append(append(p.sh, b[run:i]...), d[k:k+w]...)
								run = i + 6
							}
							k += w
							i += 6
							continue
						}
					}
				}
				if c >= 0xC2 {
					// Text outside ASCII: the lexer's Text segment, found
					// and added as the lexer and fill would (dirty: the
					// normalizer's; the input is its escaped shadow), in
					// one copy, without a call per segment.
					if j := textRun(b, i); j > i {
						seg := b[i:j]
						if room := decodeFlushAt - k; len(seg) >= room {
							// fill's cut: the batch ends at the last
							// character boundary it holds. When even the
							// first character does not fit, the lexer's
							// path adds it as fill does.
							w := room
							for w > 0 && w < len(seg) && seg[w]&0xC0 == 0x80 {
								w--
							}
							if w == 0 {
								break
							}
							seg, cut = seg[:w], true
						}
						k += copy(d[k:], seg)
						i += len(seg)
						p.strDirty = true
						if cut {
							break
						}
						continue
					}
				}
				break
			}
			d = d[:k]
			p.dbuf = d
			if p.shOn {
				p.sh = append(p.sh, b[run:i]...)
				p.shD += k - k0
			}
			if len(d) >= decodeFlushAt || cut {
				p.flushChain(false)
				continue
			}
			if i == n {
				break
			}
		}
		// The general path: the lexer's string tokens, one at a time.
		if p.lx.CloseQuote(b, i) {
			p.endString(p.lx.Off())
			return i + 1
		}
		var k jsonlex.Kind
		k, i = p.lx.Next(b, i)
		switch k {
		case jsonlex.Text:
			if p.lx.Dirty() {
				p.strDirty = true
			}
			p.appendDecoded(p.lx.Seg(), true)
		case jsonlex.Escape:
			if p.lx.Resumed() {
				p.escapedByte(p.lx.Byte())
			} else {
				p.decodedByte(p.lx.Byte())
			}
		case jsonlex.Rune:
			p.strDirty = true
			p.appendDecoded(p.lx.Seg(), false)
		case jsonlex.Invalid:
			p.invalidUTF8(p.lx.Off(), p.lx.N(), p.lx.AtEnd())
		case jsonlex.EndString:
			p.endString(p.lx.Off())
			return i
		case jsonlex.Fail:
			p.lexFailed(b)
			return i
		case jsonlex.More:
			return i
		}
	}
	return i
}

// escapedByte takes one byte decoded from a two-byte escape that the lexer
// read through its escape state (split by a read, or after a surrogate).
func (p *pass) escapedByte(d byte) {
	if d < 0x20 && d != '\n' && d != '\r' && d != '\t' || d == '\\' || d == '/' && len(p.dbuf) > 0 && p.dbuf[len(p.dbuf)-1] == '\\' {
		// A control character, or a backslash: text that is itself
		// JSON may spell an invisible character "\u200b" (the
		// normalizer decodes those escapes).
		p.strDirty = true
	}
	one := [1]byte{d}
	p.appendDecoded(one[:], false)
}

// invalidUTF8 replaces an invalid sequence or lone surrogate escape with n
// U+FFFD, or fails at off, as the policy says. A high surrogate left at the
// closing quote (atEnd) does not mark the string dirty.
func (p *pass) invalidUTF8(off int64, n int, atEnd bool) {
	if p.e.pol.InvalidUTF8 == "reject" {
		p.failf(CodeInvalidJSON, string(wire.ReasonInvalidUTF8), off)
		return
	}
	if !atEnd {
		p.strDirty = true
	}
	for range n {
		p.ev.InvalidUTF8++
		p.appendDecoded(replacementChar, true)
	}
}

var replacementChar = []byte("\uFFFD")

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// simpleEscape maps the byte after a backslash to what it stands for, for
// the two-byte escapes.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodedByte takes one byte decoded from a two-byte escape.
func (p *pass) decodedByte(d byte) {
	if d == '\b' || d == '\f' || d == '\\' || d == '/' && len(p.dbuf) > 0 && p.dbuf[len(p.dbuf)-1] == '\\' {
		p.strDirty = true
	}
	if (p.sm == smText || p.sm == smKey || p.sm == smDefer) && !p.strCut {
		if p.shOn {
			p.shadowByte(d)
		}
		p.dbuf = append(p.dbuf, d)
		if len(p.dbuf) >= decodeFlushAt {
			p.flushChain(false)
		}
		return
	}
	one := [1]byte{d}
	p.appendDecoded(one[:], false)
}
