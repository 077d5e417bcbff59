package pipeline

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// wsTable marks JSON whitespace.
var wsTable = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

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

// feed runs the lexer over one chunk. State survives the chunk boundary, so
// any split of the input gives the same result.
func (p *pass) feed(b []byte) {
	i := 0
	n := len(b)
	for i < n && p.fail == nil {
		switch p.st {
		case lxString:
			i = p.lexString(b, i)
		case lxNumber:
			i = p.lexNumber(b, i)
		case lxLiteral:
			for i < n && p.litPos < len(p.lit) {
				if b[i] != p.lit[p.litPos] {
					p.failf(CodeInvalidJSON, "bad-literal", p.inOff+int64(i))
					return
				}
				i++
				p.litPos++
			}
			if p.litPos == len(p.lit) {
				if !p.curSkip() {
					p.em.rawString(p.lit)
					if p.nx.role == roleIsError && p.lit == "true" {
						p.toolErr = int8(len(p.stack)) // 1: top level, 2: an envelope's result
					}
				}
				p.endValue()
			}
		default:
			c := b[i]
			if wsTable[c] {
				i++
				continue
			}
			i = p.structural(b, i, c)
		}
	}
}

// structural handles one non-whitespace byte outside strings, numbers and
// literals, and returns the next index.
func (p *pass) structural(b []byte, i int, c byte) int {
	off := p.inOff + int64(i)
	switch p.st {
	case lxValue, lxArrFirst:
		if p.st == lxArrFirst && c == ']' {
			p.closeContainer(false, off)
			return i + 1
		}
		p.beginValue(b, i, c)
		if p.st == lxNumber {
			return i // the number lexer consumes its first byte
		}
		return i + 1
	case lxObjFirst, lxObjKey:
		if c == '}' && p.st == lxObjFirst {
			p.closeContainer(true, off)
			return i + 1
		}
		if c != '"' {
			p.failf(CodeInvalidJSON, "expected-key", off)
			return i
		}
		p.beginKey(off)
		return i + 1
	case lxColon:
		if c != ':' {
			p.failf(CodeInvalidJSON, "expected-colon", off)
			return i
		}
		p.st = lxValue
		return i + 1
	case lxAfter:
		if p.sch != nil && p.sch.hold != holdNone && len(p.stack) == p.sch.holdDepth {
			p.endHold(b, i)
		}
		top := &p.stack[len(p.stack)-1]
		switch {
		case c == ',':
			if top.obj {
				p.st = lxObjKey
			} else {
				p.st = lxValue
			}
		case c == ']' && !top.obj:
			p.closeContainer(false, off)
		case c == '}' && top.obj:
			p.closeContainer(true, off)
		default:
			p.failf(CodeInvalidJSON, "expected-comma-or-close", off)
		}
		return i + 1
	case lxEnd:
		p.failf(CodeInvalidJSON, "trailing-data", off)
		return i
	}
	p.failf(CodeInternal, "lexer-state", off)
	return i
}

// curSkip reports whether output is suppressed for the current value.
func (p *pass) curSkip() bool { return p.nx.drop }

// beginValue starts the value whose first byte is c.
func (p *pass) beginValue(b []byte, i int, c byte) {
	off := p.inOff + int64(i)
	if !p.cnt.Node() {
		p.failf(CodeBoundExceeded, "nodes", off)
		return
	}
	if len(p.stack) > 0 && !p.stack[len(p.stack)-1].obj {
		p.nx = p.itemNext(&p.stack[len(p.stack)-1], off)
		if p.fail != nil {
			return
		}
	}
	if p.nx.deferM != deferNone && c != '{' {
		// A _meta that is not an object is dropped: its key was held back.
		p.nx.drop = true
		p.ev.DroppedKeys++
	}
	nx := p.nx
	if (nx.role == roleTop || nx.role == roleResult && !nx.drop) && c != '{' && p.info.Kind == KindToolResult && valueStart(c) {
		// A tool result is an object, at the top level or as an
		// envelope's "result": decided at the first byte of the value.
		p.failf(CodeInvalidContent, "result-not-object", off)
		return
	}
	if nx.hold == holdStructured && !nx.drop {
		p.beginRaw(i)
	}
	switch {
	case c == '{' || c == '[':
		p.openContainer(c == '{', nx, off)
	case c == '"':
		p.beginValueString(nx, off)
	case c == '-' || c >= '0' && c <= '9':
		if nx.role == roleEnvelopeID {
			p.envID, p.envIDStr = p.envID[:0], false
		}
		p.st = lxNumber
		p.numSt = 0
		p.numLen = 0
		p.numEmit = !nx.drop
	case c == 't':
		p.beginLiteral("true")
	case c == 'f':
		p.beginLiteral("false")
	case c == 'n':
		p.beginLiteral("null")
	default:
		p.failf(CodeInvalidJSON, "expected-value", off)
	}
}

// valueStart reports whether c starts a JSON value (well formed or not).
func valueStart(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

func (p *pass) beginLiteral(lit string) {
	p.st = lxLiteral
	p.lit = lit
	p.litPos = 1
}

// endValue finishes any value: the parent expects a comma or its close.
func (p *pass) endValue() {
	p.nx = next{}
	if len(p.stack) == 0 {
		p.st = lxEnd
		return
	}
	p.st = lxAfter
}

// lexNumber validates a number and copies it through verbatim.
func (p *pass) lexNumber(b []byte, i int) int {
	start := i
	n := len(b)
	for i < n {
		c := b[i]
		ok := false
		switch p.numSt {
		case 0: // start: '-' or digit
			if c == '-' {
				p.numSt, ok = 1, true
			} else if c == '0' {
				p.numSt, ok = 2, true
			} else if c >= '1' && c <= '9' {
				p.numSt, ok = 3, true
			}
		case 1: // after '-'
			if c == '0' {
				p.numSt, ok = 2, true
			} else if c >= '1' && c <= '9' {
				p.numSt, ok = 3, true
			}
		case 2: // after leading zero
			if c == '.' {
				p.numSt, ok = 4, true
			} else if c == 'e' || c == 'E' {
				p.numSt, ok = 6, true
			}
		case 3: // integer digits
			if c >= '0' && c <= '9' {
				ok = true
			} else if c == '.' {
				p.numSt, ok = 4, true
			} else if c == 'e' || c == 'E' {
				p.numSt, ok = 6, true
			}
		case 4: // after '.'
			if c >= '0' && c <= '9' {
				p.numSt, ok = 5, true
			}
		case 5: // fraction digits
			if c >= '0' && c <= '9' {
				ok = true
			} else if c == 'e' || c == 'E' {
				p.numSt, ok = 6, true
			}
		case 6: // after 'e'
			if c == '+' || c == '-' {
				p.numSt, ok = 7, true
			} else if c >= '0' && c <= '9' {
				p.numSt, ok = 8, true
			}
		case 7: // after exponent sign
			if c >= '0' && c <= '9' {
				p.numSt, ok = 8, true
			}
		case 8: // exponent digits
			ok = c >= '0' && c <= '9'
		}
		if !ok {
			break
		}
		p.numLen++
		if p.numLen > maxNumberLen {
			p.failf(CodeBoundExceeded, "number-length", p.inOff+int64(i))
			return i
		}
		i++
	}
	if p.numEmit && i > start {
		p.em.raw(b[start:i])
		if p.nx.role == roleEnvelopeID {
			p.envID = append(p.envID, b[start:i]...)
		}
	}
	if i < n {
		// The number ended at b[i], which belongs to what follows.
		p.endNumber(p.inOff + int64(i))
		if p.fail != nil {
			return i
		}
		if p.st == lxNumber {
			p.failf(CodeInvalidJSON, "bad-number", p.inOff+int64(i))
		}
	}
	return i
}

// endNumber ends a number at input offset off (the byte after it).
func (p *pass) endNumber(off int64) {
	switch p.numSt {
	case 2, 3, 5, 8:
		if p.nx.role == roleEnvelopeID {
			p.envIDOK = len(p.envID) <= maxEnvelopeID
		}
		p.endValue()
	default:
		p.failf(CodeInvalidJSON, "bad-number", off)
	}
}

// lexString consumes string bytes from b[i:], decoding escapes and
// validating UTF-8, and hands decoded text to the string chain.
func (p *pass) lexString(b []byte, i int) int {
	n := len(b)
	if p.partN > 0 {
		i = p.finishPartial(b, i)
	}
	for i < n && p.fail == nil {
		if p.esc != 0 {
			i = p.lexEscape(b, i)
			continue
		}
		if (p.sm == smText || p.sm == smKey) && !p.strCut && p.hiSur == 0 {
			// Fast path: printable ASCII runs and two-byte escapes go
			// straight into the batch, without a call per run or escape.
			// Anything else (a quote, non-ASCII, \u, a control) falls
			// through to the general loop below.
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
					if dirty {
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
						if e == '\\' && (i+2 >= n || b[i+2] == 'u') {
							// A backslash and u: maybe an escaped character
							// of JSON text (see lexEscape).
							p.strDirty = true
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
							if v == 'u' {
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
				break
			}
			d = d[:k]
			p.dbuf = d
			if p.shOn {
				p.sh = append(p.sh, b[run:i]...)
				p.shD += k - k0
			}
			if len(d) >= decodeFlushAt {
				p.flushChain(false)
				continue
			}
			if i == n {
				break
			}
		}
		j := i
		for j < n {
			// Table-driven and unrolled: measured 3x faster here than
			// word-at-a-time tests on escape-rich text.
			for j+4 <= n && strSafe[b[j]] && strSafe[b[j+1]] && strSafe[b[j+2]] && strSafe[b[j+3]] {
				j += 4
			}
			for j < n && strSafe[b[j]] {
				j++
			}
			if j >= n {
				break
			}
			c := b[j]
			if c < utf8.RuneSelf {
				if strSafe[c] {
					j++
					continue
				}
				break
			}
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			p.strDirty = true
			j += size
		}
		if j > i {
			p.strBytes(b[i:j], true)
			i = j
			if p.fail != nil {
				return i
			}
		}
		if i == n {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			p.endString(p.inOff + int64(i))
			return i + 1
		case c == '\\':
			if i+1 < n && p.hiSur == 0 {
				if d := simpleEscape[b[i+1]]; d != 0 {
					p.decodedByte(d)
					i += 2
					continue
				}
			}
			p.esc = 1
			i++
		case c < 0x20:
			p.failf(CodeInvalidJSON, "control-in-string", p.inOff+int64(i))
			return i
		case c == 0x7f:
			p.strDirty = true
			p.strBytes(b[i:i+1], true)
			i++
		default: // an invalid or incomplete UTF-8 sequence
			if !utf8.FullRune(b[i:]) {
				p.partN = copy(p.part[:], b[i:])
				p.partOff = p.inOff + int64(i)
				return n
			}
			p.invalidUTF8(p.inOff + int64(i))
			i++
		}
	}
	return i
}

// finishPartial completes a UTF-8 sequence split by the chunk boundary.
func (p *pass) finishPartial(b []byte, i int) int {
	var tmp [8]byte
	for p.partN > 0 && p.fail == nil {
		k := copy(tmp[:], p.part[:p.partN])
		k += copy(tmp[k:4], b[i:])
		if !utf8.FullRune(tmp[:k]) {
			// Still incomplete: the chunk is exhausted.
			p.partN += copy(p.part[p.partN:], b[i:])
			return len(b)
		}
		r, size := utf8.DecodeRune(tmp[:k])
		if r == utf8.RuneError && size == 1 {
			p.invalidUTF8(p.partOff)
			copy(p.part[:], p.part[1:p.partN])
			p.partN--
			p.partOff++
			continue
		}
		p.strDirty = true
		p.strBytes(tmp[:size], true)
		i += size - p.partN
		p.partN = 0
	}
	return i
}

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

// lexEscape consumes the bytes of one escape sequence.
func (p *pass) lexEscape(b []byte, i int) int {
	off := p.inOff + int64(i)
	c := b[i]
	if p.esc == 1 {
		var d byte
		switch c {
		case '"', '\\', '/':
			d = c
		case 'b':
			d = '\b'
		case 'f':
			d = '\f'
		case 'n':
			d = '\n'
		case 'r':
			d = '\r'
		case 't':
			d = '\t'
		case 'u':
			p.esc = 2
			p.uacc = 0
			return i + 1
		default:
			p.failf(CodeInvalidJSON, "bad-escape", off)
			return i
		}
		p.esc = 0
		if d < 0x20 && d != '\n' && d != '\r' && d != '\t' || d == '\\' {
			// A control character, or a backslash: text that is itself
			// JSON may spell an invisible character "\u200b" (the
			// normalizer decodes those escapes).
			p.strDirty = true
		}
		one := [1]byte{d}
		p.strBytes(one[:], false)
		return i + 1
	}
	v := unhex(c)
	if v < 0 {
		p.failf(CodeInvalidJSON, "bad-escape", off)
		return i
	}
	p.uacc = p.uacc<<4 | v
	p.esc++
	if p.esc < 6 {
		return i + 1
	}
	p.esc = 0
	r := p.uacc
	switch {
	case r >= 0xD800 && r <= 0xDBFF:
		if p.hiSur != 0 {
			p.hiSur = 0
			p.invalidUTF8(p.hiSurOff)
		}
		p.hiSur = r
		p.hiSurOff = off
		return i + 1
	case r >= 0xDC00 && r <= 0xDFFF:
		if p.hiSur == 0 {
			p.invalidUTF8(off)
			return i + 1
		}
		r = 0x10000 + (p.hiSur-0xD800)<<10 + (r - 0xDC00)
		p.hiSur = 0
	}
	var buf [4]byte
	k := utf8.EncodeRune(buf[:], r)
	p.strDirty = true
	p.strBytes(buf[:k], false)
	return i + 1
}

// invalidUTF8 replaces one invalid sequence (or lone surrogate escape) with
// U+FFFD, or fails, as the policy says.
func (p *pass) invalidUTF8(off int64) {
	if p.e.pol.InvalidUTF8 == "reject" {
		p.failf(CodeInvalidJSON, "invalid-utf8", off)
		return
	}
	p.strDirty = true
	if p.hiSur != 0 {
		p.hiSur = 0
		p.ev.InvalidUTF8++
		p.appendDecoded(replacementChar, true)
	}
	p.ev.InvalidUTF8++
	p.appendDecoded(replacementChar, true)
}

var replacementChar = []byte("\uFFFD")

// strBytes takes decoded, valid UTF-8 string content (plain: holding no
// byte that needs escaping). A high surrogate escape still waiting for its
// pair is invalid once anything else follows.
func (p *pass) strBytes(d []byte, plain bool) {
	if p.hiSur != 0 {
		p.hiSur = 0
		if p.e.pol.InvalidUTF8 == "reject" {
			p.failf(CodeInvalidJSON, "invalid-utf8", p.hiSurOff)
			return
		}
		p.ev.InvalidUTF8++
		p.strDirty = true
		p.appendDecoded(replacementChar, true)
	}
	p.appendDecoded(d, plain)
}

// simpleEscape maps the byte after a backslash to what it stands for, for
// the two-byte escapes.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodedByte takes one byte decoded from a two-byte escape.
func (p *pass) decodedByte(d byte) {
	if d == '\b' || d == '\f' {
		p.strDirty = true
	}
	if (p.sm == smText || p.sm == smKey) && !p.strCut {
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
