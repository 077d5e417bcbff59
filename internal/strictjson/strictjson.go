package strictjson

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Reason says why a text was refused. Errors carry no part of the input.
type Reason uint8

// Reasons.
const (
	Syntax       Reason = iota + 1 // not JSON, or trailing data
	DuplicateKey                   // a member name repeated in one object
	UTF8                           // invalid UTF-8 in a string
	Surrogate                      // a lone surrogate escape
	Number                         // a number beyond the range of a double (see MaxNumberBytes, MaxExponent)
	Depth                          // more than maxDepth nested arrays and objects
)

var reasonNames = [...]string{Syntax: "syntax", DuplicateKey: "duplicate member name", UTF8: "invalid UTF-8",
	Surrogate: "lone surrogate", Number: "number out of range", Depth: "too deep",
	UnknownMember: "unknown member", Type: "type mismatch"}

// Limits on number literals. A literal the decoder accepts is also one that
// exact arithmetic (math/big.Rat, which the JSON Schema validator uses for
// minimum, multipleOf, enum and const) parses quickly and without failing:
// Rat.SetString fails on an exponent beyond ±1e6 or an int64, and takes
// about 50 ms for 1e-999999, so a value of many such numbers would stall
// or crash validation.
const (
	// MaxNumberBytes is the longest number literal accepted (the pass's
	// number-length bound is the same).
	MaxNumberBytes = 4096
	// MaxExponent is the largest magnitude of a literal's exponent part.
	// Every double is written with an exponent within ±324 plus the digits
	// of its mantissa.
	MaxExponent = 400
)

// Error is a refused text: the reason and the byte offset where it was seen
// (-1 when the refusal is of the value as a whole, as Unmarshal's member
// names and types are).
type Error struct {
	Reason Reason
	Offset int
}

func (e *Error) Error() string {
	name := "invalid"
	if int(e.Reason) < len(reasonNames) && reasonNames[e.Reason] != "" {
		name = reasonNames[e.Reason]
	}
	if e.Offset < 0 {
		return "strictjson: " + name
	}
	return "strictjson: " + name + " at offset " + strconv.Itoa(e.Offset)
}

// Decode parses data as one value: objects become map[string]any, arrays
// []any, numbers json.Number (the literal as written), strings string,
// true/false bool and null nil. A value may nest at most maxDepth arrays
// and objects. The error, if any, is an *Error.
func Decode(data []byte, maxDepth int) (any, error) {
	d := decoder{data: data, maxDepth: maxDepth}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, d.fail(Syntax)
	}
	return v, nil
}

type decoder struct {
	data     []byte
	pos      int
	maxDepth int
	buf      []byte
}

func (d *decoder) fail(r Reason) error { return &Error{Reason: r, Offset: d.pos} }

func (d *decoder) space() {
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		d.pos++
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail(Syntax)
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth >= d.maxDepth {
			return nil, d.fail(Depth)
		}
		return d.object(depth + 1)
	case c == '[':
		if depth >= d.maxDepth {
			return nil, d.fail(Depth)
		}
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, d.fail(Syntax)
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.fail(Syntax)
	}
	d.pos += len(lit)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // '{'
	m := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.fail(Syntax)
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, d.fail(DuplicateKey)
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail(Syntax)
		}
		d.pos++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		if done, err := d.separator('}'); err != nil || done {
			return m, err
		}
	}
}

// separator reads what follows a member or item: a comma (done false) or
// the closing byte (done true); anything else is a syntax error.
func (d *decoder) separator(closing byte) (done bool, err error) {
	d.space()
	if d.pos >= len(d.data) {
		return false, d.fail(Syntax)
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.fail(Syntax)
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // '['
	a := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if done, err := d.separator(']'); err != nil || done {
			return a, err
		}
	}
}

// str reads a string starting at the opening quote.
func (d *decoder) str() (string, error) {
	b, err := d.strBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// strBytes reads a string starting at the opening quote and returns its
// decoded bytes, a view of the input or of d.buf valid until the next read.
func (d *decoder) strBytes() ([]byte, error) {
	d.pos++ // '"'
	start := d.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	var nonASCII bool
	d.pos, nonASCII = plainRun(d.data, d.pos)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := d.data[start:d.pos]
			d.pos++
			if nonASCII && !utf8.Valid(s) {
				return nil, d.fail(UTF8)
			}
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, d.fail(Syntax)
		}
		d.pos++
	}
	d.buf = append(d.buf[:0], d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if !utf8.Valid(d.buf) {
				return nil, d.fail(UTF8)
			}
			return d.buf, nil
		case c < 0x20:
			return nil, d.fail(Syntax)
		case c != '\\':
			end, _ := plainRun(d.data, d.pos+1)
			d.buf = append(d.buf, d.data[d.pos:end]...)
			d.pos = end
			continue
		}
		var err error
		if d.buf, err = d.escape(d.buf); err != nil {
			return nil, err
		}
	}
	return nil, d.fail(Syntax)
}

// escape reads the escape sequence at d.pos (its backslash) and appends
// what it stands for to dst.
func (d *decoder) escape(dst []byte) ([]byte, error) {
	d.pos++
	if d.pos >= len(d.data) {
		return dst, d.fail(Syntax)
	}
	e := d.data[d.pos]
	d.pos++
	switch e {
	case '"', '\\', '/':
		return append(dst, e), nil
	case 'b':
		return append(dst, '\b'), nil
	case 'f':
		return append(dst, '\f'), nil
	case 'n':
		return append(dst, '\n'), nil
	case 'r':
		return append(dst, '\r'), nil
	case 't':
		return append(dst, '\t'), nil
	case 'u':
		r, ok := d.hex4()
		if !ok {
			return dst, d.fail(Syntax)
		}
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || d.pos+6 > len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
				return dst, d.fail(Surrogate)
			}
			d.pos += 2
			r2, ok := d.hex4()
			if !ok {
				return dst, d.fail(Syntax)
			}
			r = utf16.DecodeRune(r, r2)
			if r == utf8.RuneError {
				return dst, d.fail(Surrogate)
			}
		}
		return utf8.AppendRune(dst, r), nil
	}
	return dst, d.fail(Syntax)
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

func (d *decoder) number() (any, error) {
	start := d.pos
	if err := d.numberEnd(); err != nil {
		return nil, err
	}
	return json.Number(d.data[start:d.pos]), nil
}

// numberEnd reads a number literal and checks it as number does.
func (d *decoder) numberEnd() error {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	intStart := d.pos
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.digits() == 0:
		return d.fail(Syntax)
	}
	intDigits := d.pos - intStart
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return d.fail(Syntax)
		}
	}
	expStart := 0
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		expStart = d.pos
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return d.fail(Syntax)
		}
	}
	if d.pos-start > MaxNumberBytes || expStart > 0 && !exponentOK(d.data[expStart:d.pos]) {
		return d.fail(Number)
	}
	// Numbers must fit a double (I-JSON): 1e400 is refused rather than
	// silently compared as infinity. Without an exponent a literal whose
	// integer part has at most maxFiniteDigits digits (no leading zero:
	// below 1e308) always does, and ParseFloat is not asked.
	if expStart > 0 || intDigits > maxFiniteDigits {
		f, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
		if err != nil || math.IsInf(f, 0) {
			return d.fail(Number)
		}
	}
	return nil
}

// maxFiniteDigits is the most integer digits of a literal without an
// exponent that is below the largest double (1.797e308) whatever follows.
const maxFiniteDigits = 308

// exponentOK reports whether the exponent digits e (sign included) are at
// most MaxExponent in magnitude.
func exponentOK(e []byte) bool {
	if len(e) > 0 && (e[0] == '+' || e[0] == '-') {
		e = e[1:]
	}
	n := 0
	for _, c := range e {
		if n = n*10 + int(c-'0'); n > MaxExponent {
			return false
		}
	}
	return true
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

// plainRun returns the index of the first byte of data at or after i that
// ends a run of plain string bytes: a quote, a backslash or a control
// character (len(data) if none), and whether the run holds a byte outside
// ASCII. Eight bytes at a time.
func plainRun(data []byte, i int) (int, bool) {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	var high uint64
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		q := w ^ (lo * '"')
		b := w ^ (lo * '\\')
		// A zero byte of q or b, or a byte of w below 0x20. The lowest
		// flagged byte is exact (a borrow only runs upwards from it).
		if m := ((q-lo)&^q | (b-lo)&^b | (w-lo*0x20)&^w) & hi; m != 0 {
			n := bits.TrailingZeros64(m) / 8
			high |= w & (1<<(8*n) - 1)
			return i + n, high&hi != 0
		}
		high |= w
	}
	for ; i < len(data); i++ {
		c := data[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high |= uint64(c)
	}
	return i, high&hi != 0 || high&0x80 != 0
}
