package jsonlex

import "unicode/utf8"

// Kind is what one call of Next found.
type Kind uint8

const (
	// More: b is consumed; Next wants the next chunk.
	More Kind = iota
	// BeginObject, BeginArray: '{' or '[' in value position (Off).
	BeginObject
	BeginArray
	// EndObject, EndArray: '}' or ']' (Off).
	EndObject
	EndArray
	// Comma: ',' after a member (Object reports true) or an item (Off).
	Comma
	// BeginName, BeginString: the opening quote of a member name or of a
	// string value (Off).
	BeginName
	BeginString
	// EndString: the closing quote of a name or a string value (Off).
	EndString
	// Text: Seg holds string bytes as they are in the input (Off): valid
	// UTF-8 without a quote, a backslash or a control character. Dirty
	// reports a byte outside printable ASCII in it (a multi-byte
	// character or DEL; DEL comes as a Text of its own).
	Text
	// Escape: Byte is what a two-byte escape (\" \\ \/ \b \f \n \r \t)
	// stands for. Resumed reports that the escape went through the escape
	// state (split by a chunk boundary, or after a pending high surrogate)
	// instead of being read in one step.
	Escape
	// Rune: Seg holds the UTF-8 of a \u escape or of a surrogate pair.
	Rune
	// Invalid: an invalid UTF-8 sequence or a lone surrogate escape,
	// standing for N replacement characters (1 or 2: a high surrogate left
	// waiting and the sequence after it). Off is where it is reported.
	// AtEnd reports a high surrogate left waiting at the closing quote.
	Invalid
	// BeginNumber: the first byte of a number (Off); it is not consumed,
	// the Number tokens that follow hold it.
	BeginNumber
	// Number: Seg holds the bytes of the number in this chunk (Off: its
	// first). Ended reports that the number ended after them, well formed.
	Number
	// EndNumber: the number ended, well formed, at the start of a chunk or
	// at the end of input (Off: the byte after it).
	EndNumber
	// BeginLiteral: the first byte of true, false or null (Off).
	BeginLiteral
	// EndLiteral: the literal is complete; Seg holds it.
	EndLiteral
	// Fail: a syntax error, Err, at Off. The lexer stays failed.
	Fail
	// Done: End only: the input held exactly one value.
	Done
)

type state uint8

const (
	stValue    state = iota // a value is expected (the zero value: the top-level one)
	stArrFirst              // after '[': an item or ']'
	stObjFirst              // after '{': a name or '}'
	stObjKey                // after ',' in an object: a name
	stColon                 // after a name: ':'
	stAfter                 // after a value in a container: ',' or a close
	stString                // inside a name or a string value
	stNumber                // inside a number
	stLiteral               // inside true, false or null
	stEnd                   // after the top-level value: whitespace only
	stFail                  // a syntax error was reported
)

// DefaultMaxNumber is the longest number token, in bytes, when
// Lexer.MaxNumber is zero.
const DefaultMaxNumber = 4096

// Lexer is a resumable JSON lexer. Its zero value expects a top-level
// value; Reset makes it so again, keeping its memory.
type Lexer struct {
	// Base is the input offset of b[0] in the calls of Next that get the
	// current chunk; before End, the offset of the end of input. Offsets
	// reported by the lexer are Base plus an index in b, or an offset
	// kept from an earlier chunk.
	Base int64
	// MaxNumber bounds the bytes of one number token; 0 means
	// DefaultMaxNumber.
	MaxNumber int

	st      state
	stack   []uint64 // one bit per open container: 1 for an object
	depth   int
	obj     bool // the innermost open container is an object
	started bool // a top-level value began

	// the token last returned
	seg   []byte
	off   int64
	err   Error
	n     uint8
	b     byte
	flag  bool
	inObj bool

	lit    []byte
	litPos int

	numSt  uint8
	numLen int

	name     bool  // the string being read is a member name
	esc      uint8 // 0 none, 1 after '\', 2..5 hex digits read + 2
	uacc     rune
	hiSur    rune  // a high surrogate escape waiting for its pair
	hiSurOff int64 // where it is reported when it stays alone
	part     [4]byte
	partN    int
	partOff  int64
	pend     Kind // a token due before any other (after an Invalid)
	pendN    int  // its Seg is rbuf[:pendN]
	pendOff  int64
	rbuf     [4]byte
}

// Reset makes l ready for a new input, keeping its stack's memory.
func (l *Lexer) Reset() {
	*l = Lexer{stack: l.stack[:0], MaxNumber: l.MaxNumber}
}

// Seg returns the bytes of a Text, Rune, Number or EndLiteral token. They
// are valid until the next call of Next.
func (l *Lexer) Seg() []byte { return l.seg }

// Off returns the input offset of the token last returned.
func (l *Lexer) Off() int64 { return l.off }

// Err returns the error of a Fail token.
func (l *Lexer) Err() Error { return l.err }

// N returns the replacement characters an Invalid token stands for.
func (l *Lexer) N() int { return int(l.n) }

// Byte returns what an Escape token stands for.
func (l *Lexer) Byte() byte { return l.b }

// Dirty reports that a Text token holds a byte outside printable ASCII.
func (l *Lexer) Dirty() bool { return l.flag }

// Ended reports that a Number token ends the number.
func (l *Lexer) Ended() bool { return l.flag }

// Resumed reports that an Escape token went through the escape state.
func (l *Lexer) Resumed() bool { return l.flag }

// AtEnd reports that an Invalid token is for a high surrogate left waiting
// at the closing quote.
func (l *Lexer) AtEnd() bool { return l.flag }

// Object reports that a Comma token separates members of an object.
func (l *Lexer) Object() bool { return l.inObj }

// InString reports whether the lexer is inside a name or a string value.
func (l *Lexer) InString() bool { return l.st == stString }

// CloseQuote ends the string at b[i] when b[i] is its closing quote and
// nothing is pending, as Next would return EndString there; it reports
// whether it did. It lets a caller's fast path end a string without a call
// of Next.
func (l *Lexer) CloseQuote(b []byte, i int) bool {
	if i >= len(b) || b[i] != '"' || l.hiSur != 0 || l.pend != More || l.esc != 0 || l.partN != 0 {
		return false
	}
	l.off = l.Base + int64(i)
	if l.name {
		l.st = stColon
	} else {
		l.valueDone()
	}
	return true
}

// StringIdle reports, inside a string, that no escape, surrogate, split
// UTF-8 sequence or token is pending: the next byte may be read by a
// caller's own fast path, up to a byte other than printable ASCII, a
// complete escape or valid UTF-8.
func (l *Lexer) StringIdle() bool {
	return l.esc == 0 && l.hiSur == 0 && l.partN == 0 && l.pend == More
}

// Depth returns the number of open containers.
func (l *Lexer) Depth() int { return l.depth }

// wsTable marks JSON whitespace.
var wsTable = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// strSafe marks ASCII bytes that stand for themselves inside a JSON string
// and are printable (DEL is left out).
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['"'] = false
	t['\\'] = false
	return t
}()

// safe8 reports whether the eight bytes of p are all strSafe (0x20 to
// 0x7e, neither '"' nor '\\'), a word at a time: a byte of 0x80 or more
// (w), of 0x7f (w+1 reaches 0x80), below 0x20 (w-0x20 borrows), or equal
// to a quote or a backslash (the XOR is zero) sets the high bit of some
// lane. The lanes' carries and borrows only run upwards from a byte that
// is flagged already, so the answer is exact.
func safe8(p []byte) bool {
	_ = p[7]
	return safeWord(uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56)
}

// safeWord is safe8 of the little-endian word w.
func safeWord(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	e := w ^ (lo * '\\')
	return (w|(w-lo*0x20)|(w+lo)|(q-lo)&^q|(e-lo)&^e)&hi == 0
}

// simpleEscape maps the byte after a backslash to what it stands for, for
// the two-byte escapes.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

func (l *Lexer) push(obj bool) {
	w := l.depth >> 6
	if w >= len(l.stack) {
		l.stack = append(l.stack, 0)
	}
	bit := uint64(1) << (l.depth & 63)
	if obj {
		l.stack[w] |= bit
	} else {
		l.stack[w] &^= bit
	}
	l.depth++
	l.obj = obj
}

// pop closes the innermost container.
func (l *Lexer) pop() {
	l.depth--
	l.obj = l.depth > 0 && l.topObj()
}

// topObj reports whether the innermost open container is an object.
func (l *Lexer) topObj() bool {
	d := l.depth - 1
	return l.stack[d>>6]>>(d&63)&1 == 1
}

// valueDone moves past a complete value.
func (l *Lexer) valueDone() {
	if l.depth == 0 {
		l.st = stEnd
	} else {
		l.st = stAfter
	}
}

func (l *Lexer) fail(e Error, off int64) Kind {
	l.st = stFail
	l.err = e
	l.off = off
	return Fail
}

// Next reads b from index i to the next token and returns it with the
// index after what it consumed. A call that returns More consumed b to
// its end; the next call gets the next chunk (with Base advanced).
func (l *Lexer) Next(b []byte, i int) (Kind, int) {
	n := len(b)
	if i >= n {
		return More, i
	}
	switch l.st {
	case stString:
		return l.str(b, i)
	case stNumber:
		return l.number(b, i)
	case stLiteral:
		return l.literal(b, i)
	case stFail:
		return Fail, i
	}
	for i < n {
		c := b[i]
		if wsTable[c] {
			i++
			continue
		}
		off := l.Base + int64(i)
		l.off = off
		switch l.st {
		case stValue, stArrFirst:
			if c == ']' && l.st == stArrFirst {
				l.pop()
				l.valueDone()
				return EndArray, i + 1
			}
			l.started = true
			switch c {
			case '{':
				l.push(true)
				l.st = stObjFirst
				return BeginObject, i + 1
			case '[':
				l.push(false)
				l.st = stArrFirst
				return BeginArray, i + 1
			case '"':
				l.beginString(false)
				return BeginString, i + 1
			case 't':
				l.st, l.lit, l.litPos = stLiteral, litTrue, 1
				return BeginLiteral, i + 1
			case 'f':
				l.st, l.lit, l.litPos = stLiteral, litFalse, 1
				return BeginLiteral, i + 1
			case 'n':
				l.st, l.lit, l.litPos = stLiteral, litNull, 1
				return BeginLiteral, i + 1
			}
			if c == '-' || c >= '0' && c <= '9' {
				l.st, l.numSt, l.numLen = stNumber, 0, 0
				return BeginNumber, i
			}
			return l.fail(ErrExpectedValue, off), i
		case stObjFirst, stObjKey:
			if c == '}' && l.st == stObjFirst {
				l.pop()
				l.valueDone()
				return EndObject, i + 1
			}
			if c != '"' {
				return l.fail(ErrExpectedKey, off), i
			}
			l.beginString(true)
			return BeginName, i + 1
		case stColon:
			if c != ':' {
				return l.fail(ErrExpectedColon, off), i
			}
			l.st = stValue
			i++
		case stAfter:
			obj := l.obj
			switch {
			case c == ',':
				l.inObj = obj
				if obj {
					l.st = stObjKey
				} else {
					l.st = stValue
				}
				return Comma, i + 1
			case c == ']' && !obj:
				l.pop()
				l.valueDone()
				return EndArray, i + 1
			case c == '}' && obj:
				l.pop()
				l.valueDone()
				return EndObject, i + 1
			}
			return l.fail(ErrExpectedCommaOrClose, off), i
		case stEnd:
			return l.fail(ErrTrailingData, off), i
		}
	}
	return More, i
}

// End reports the end of input (Base: its offset). It returns EndNumber
// for a top-level number still open (call End again after it), Done when
// the input held one complete value, or Fail.
func (l *Lexer) End() Kind {
	switch l.st {
	case stEnd:
		return Done
	case stFail:
		return Fail
	case stNumber:
		return l.endNumber(l.Base)
	case stValue:
		if !l.started {
			return l.fail(ErrEmptyInput, l.Base)
		}
	}
	return l.fail(ErrUnexpectedEOF, l.Base)
}

func (l *Lexer) literal(b []byte, i int) (Kind, int) {
	n := len(b)
	for i < n && l.litPos < len(l.lit) {
		if b[i] != l.lit[l.litPos] {
			return l.fail(ErrBadLiteral, l.Base+int64(i)), i
		}
		i++
		l.litPos++
	}
	if l.litPos < len(l.lit) {
		return More, i
	}
	l.seg = l.lit
	l.valueDone()
	return EndLiteral, i
}

// number reads number bytes. The grammar is RFC 8259's: a minus, an
// integer without leading zeros, a fraction, an exponent.
func (l *Lexer) number(b []byte, i int) (Kind, int) {
	max := l.MaxNumber
	if max == 0 {
		max = DefaultMaxNumber
	}
	start := i
	n := len(b)
	for i < n {
		c := b[i]
		ok := false
		switch l.numSt {
		case 0: // start: '-' or digit
			if c == '-' {
				l.numSt, ok = 1, true
			} else if c == '0' {
				l.numSt, ok = 2, true
			} else if c >= '1' && c <= '9' {
				l.numSt, ok = 3, true
			}
		case 1: // after '-'
			if c == '0' {
				l.numSt, ok = 2, true
			} else if c >= '1' && c <= '9' {
				l.numSt, ok = 3, true
			}
		case 2: // after a leading zero
			if c == '.' {
				l.numSt, ok = 4, true
			} else if c == 'e' || c == 'E' {
				l.numSt, ok = 6, true
			}
		case 3: // integer digits
			if c >= '0' && c <= '9' {
				ok = true
			} else if c == '.' {
				l.numSt, ok = 4, true
			} else if c == 'e' || c == 'E' {
				l.numSt, ok = 6, true
			}
		case 4: // after '.'
			if c >= '0' && c <= '9' {
				l.numSt, ok = 5, true
			}
		case 5: // fraction digits
			if c >= '0' && c <= '9' {
				ok = true
			} else if c == 'e' || c == 'E' {
				l.numSt, ok = 6, true
			}
		case 6: // after 'e'
			if c == '+' || c == '-' {
				l.numSt, ok = 7, true
			} else if c >= '0' && c <= '9' {
				l.numSt, ok = 8, true
			}
		case 7: // after the exponent's sign
			if c >= '0' && c <= '9' {
				l.numSt, ok = 8, true
			}
		case 8: // exponent digits
			ok = c >= '0' && c <= '9'
		}
		if !ok {
			break
		}
		l.numLen++
		if l.numLen > max {
			return l.fail(ErrNumberTooLong, l.Base+int64(i)), i
		}
		i++
	}
	if i == start {
		// The number ended at b[i], which belongs to what follows.
		return l.endNumber(l.Base + int64(i)), i
	}
	l.seg = b[start:i]
	l.off = l.Base + int64(start)
	l.flag = false
	if i < n {
		// The number ended at b[i], which belongs to what follows.
		if l.endNumber(l.Base+int64(i)) == Fail {
			return Fail, i
		}
		l.off = l.Base + int64(start)
		l.flag = true
	}
	return Number, i
}

// endNumber ends a number before input offset off.
func (l *Lexer) endNumber(off int64) Kind {
	switch l.numSt {
	case 2, 3, 5, 8:
		l.off = off
		l.valueDone()
		return EndNumber
	}
	return l.fail(ErrBadNumber, off)
}

func (l *Lexer) beginString(name bool) {
	l.st = stString
	l.name = name
	l.esc, l.hiSur, l.partN, l.pend = 0, 0, 0, More
}

// invalid reports an Invalid token of n replacement characters at off.
func (l *Lexer) invalid(n int, off int64, atEnd bool) Kind {
	l.n = uint8(n)
	l.off = off
	l.flag = atEnd
	return Invalid
}

// lone reports a high surrogate left waiting, before the token k whose
// Seg is rbuf[:pendN] (or the Byte of an Escape); k comes next.
func (l *Lexer) lone(k Kind) Kind {
	l.hiSur = 0
	l.pendOff = l.off
	l.pend = k
	return l.invalid(1, l.hiSurOff, false)
}

func (l *Lexer) pending() Kind {
	k := l.pend
	l.pend = More
	l.off = l.pendOff
	switch k {
	case Escape:
		l.flag = true
	case Text:
		l.seg = l.rbuf[:l.pendN]
		l.flag = true
	case Rune:
		l.seg = l.rbuf[:l.pendN]
	}
	return k
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

// str reads inside a string up to the next token.
func (l *Lexer) str(b []byte, i int) (Kind, int) {
	if l.pend != More {
		return l.pending(), i
	}
	n := len(b)
	if l.partN > 0 {
		// A UTF-8 sequence split by the chunk boundary.
		var tmp [8]byte
		k := copy(tmp[:], l.part[:l.partN])
		k += copy(tmp[k:4], b[i:])
		if !utf8.FullRune(tmp[:k]) {
			l.partN += copy(l.part[l.partN:], b[i:])
			return More, n
		}
		r, size := utf8.DecodeRune(tmp[:k])
		if r == utf8.RuneError && size == 1 {
			nr := 1
			if l.hiSur != 0 {
				l.hiSur = 0
				nr = 2
			}
			off := l.partOff
			copy(l.part[:], l.part[1:l.partN])
			l.partN--
			l.partOff++
			return l.invalid(nr, off, false), i
		}
		i += size - l.partN
		l.off = l.partOff
		l.partN = 0
		l.pendN = copy(l.rbuf[:], tmp[:size])
		if l.hiSur != 0 {
			return l.lone(Text), i
		}
		l.pend, l.pendOff = Text, l.off
		return l.pending(), i
	}
	for i < n {
		off := l.Base + int64(i)
		if l.esc != 0 {
			c := b[i]
			if l.esc == 1 {
				d := simpleEscape[c]
				if c == 'u' {
					l.esc, l.uacc = 2, 0
					i++
					continue
				}
				if d == 0 {
					return l.fail(ErrBadEscape, off), i
				}
				l.esc = 0
				l.b = d
				l.off = off
				if l.hiSur != 0 {
					return l.lone(Escape), i + 1
				}
				l.flag = true
				return Escape, i + 1
			}
			v := unhex(c)
			if v < 0 {
				return l.fail(ErrBadEscape, off), i
			}
			l.uacc = l.uacc<<4 | v
			l.esc++
			if l.esc < 6 {
				i++
				continue
			}
			l.esc = 0
			r := l.uacc
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if l.hiSur != 0 {
					was := l.hiSurOff
					l.hiSur, l.hiSurOff = r, off
					return l.invalid(1, was, false), i + 1
				}
				l.hiSur, l.hiSurOff = r, off
				i++
				continue
			case r >= 0xDC00 && r <= 0xDFFF:
				if l.hiSur == 0 {
					return l.invalid(1, off, false), i + 1
				}
				r = 0x10000 + (l.hiSur-0xD800)<<10 + (r - 0xDC00)
				l.hiSur = 0
			}
			l.pendN = utf8.EncodeRune(l.rbuf[:], r)
			l.off = off
			if l.hiSur != 0 {
				return l.lone(Rune), i + 1
			}
			l.seg = l.rbuf[:l.pendN]
			return Rune, i + 1
		}
		j := i
		dirty := false
		// Long runs of plain ASCII (base64 data, code, logs) a word at a
		// time; after a character outside ASCII the table takes over.
		for j+8 <= n {
			p := b[j : j+8 : j+8]
			w := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
				uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
			if !safeWord(w) {
				break
			}
			j += 8
		}
		for j < n {
			for j+4 <= n && strSafe[b[j]] && strSafe[b[j+1]] && strSafe[b[j+2]] && strSafe[b[j+3]] {
				j += 4
			}
			for j < n && strSafe[b[j]] {
				j++
			}
			if j >= n || b[j] < utf8.RuneSelf {
				break
			}
			if size := validRune23(b, j); size != 0 {
				dirty = true
				j += size
				continue
			}
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			dirty = true
			j += size
		}
		if j > i {
			if l.hiSur != 0 {
				l.hiSur = 0
				return l.invalid(1, l.hiSurOff, false), i
			}
			l.seg, l.off, l.flag = b[i:j], off, dirty
			return Text, j
		}
		c := b[i]
		switch {
		case c == '"':
			if l.hiSur != 0 {
				l.hiSur = 0
				return l.invalid(1, l.hiSurOff, true), i
			}
			l.off = off
			if l.name {
				l.st = stColon
			} else {
				l.valueDone()
			}
			return EndString, i + 1
		case c == '\\':
			if i+1 < n && l.hiSur == 0 {
				if d := simpleEscape[b[i+1]]; d != 0 {
					l.b, l.off, l.flag = d, off, false
					return Escape, i + 2
				}
			}
			l.esc = 1
			i++
		case c < 0x20:
			return l.fail(ErrControlInString, off), i
		case c == 0x7f:
			if l.hiSur != 0 {
				l.hiSur = 0
				return l.invalid(1, l.hiSurOff, false), i
			}
			l.seg, l.off, l.flag = b[i:i+1], off, true
			return Text, i + 1
		default: // an invalid or incomplete UTF-8 sequence
			if !utf8.FullRune(b[i:]) {
				l.partN = copy(l.part[:], b[i:])
				l.partOff = off
				return More, n
			}
			nr := 1
			if l.hiSur != 0 {
				l.hiSur = 0
				nr = 2
			}
			return l.invalid(nr, off, false), i + 1
		}
	}
	return More, i
}

// validRune23 returns the length of the valid two- or three-byte UTF-8
// sequence at b[j], or 0 for anything else (four bytes, invalid, cut),
// which utf8.DecodeRune then reads. It is the check utf8.DecodeRune
// makes for these lengths (no overlong form, no surrogate), inlined: most
// text outside ASCII (Latin accents, Greek, Cyrillic, CJK) is made of
// such sequences, and the call per rune was most of the lexer's cost on
// such text.
func validRune23(b []byte, j int) int {
	c := b[j]
	if c < 0xC2 || c > 0xEF || j+1 >= len(b) {
		return 0
	}
	c1 := b[j+1]
	if c1&0xC0 != 0x80 {
		return 0
	}
	if c < 0xE0 {
		return 2
	}
	if j+2 >= len(b) || b[j+2]&0xC0 != 0x80 || c == 0xE0 && c1 < 0xA0 || c == 0xED && c1 >= 0xA0 {
		return 0
	}
	return 3
}
