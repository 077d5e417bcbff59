package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultValueDepth is the nesting limit Decode uses when maxDepth <= 0.
const DefaultValueDepth = 64

// Decode parses one strict JSON value into the representation the validator
// uses: objects map[string]any, arrays []any, numbers json.Number (the
// literal as written), strings string, true/false bool, null nil.
//
// It refuses (CodeValueInvalid) syntax errors, trailing data, duplicate member
// names, invalid UTF-8, lone surrogate escapes and numbers outside the range
// of an IEEE-754 double, and (CodeValueTooDeep) values that nest more than
// maxDepth arrays or objects (DefaultValueDepth when maxDepth <= 0). Errors
// carry no part of the input.
func Decode(data []byte, maxDepth int) (any, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultValueDepth
	}
	return decodeWith(data, maxDepth, CodeValueInvalid, CodeValueTooDeep)
}

func decodeWith(data []byte, maxDepth int, invalid, deep Code) (any, error) {
	d := decoder{data: data, maxDepth: maxDepth, invalid: invalid, deep: deep}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, newErr(invalid, ReasonSyntax)
	}
	return v, nil
}

type decoder struct {
	data     []byte
	pos      int
	maxDepth int
	invalid  Code
	deep     Code
	buf      []byte
}

func (d *decoder) syntax() error { return newErr(d.invalid, ReasonSyntax) }

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.syntax()
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth >= d.maxDepth {
			return nil, newErr(d.deep, ReasonDepth)
		}
		return d.object(depth + 1)
	case c == '[':
		if depth >= d.maxDepth {
			return nil, newErr(d.deep, ReasonDepth)
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
	return nil, d.syntax()
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.syntax()
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
			return nil, d.syntax()
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, newErr(d.invalid, ReasonDuplicateKey)
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.syntax()
		}
		d.pos++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.syntax()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, d.syntax()
		}
	}
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
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.syntax()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, d.syntax()
		}
	}
}

// str reads a string starting at the opening quote.
func (d *decoder) str() (string, error) {
	d.pos++ // '"'
	start := d.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := d.data[start:d.pos]
			d.pos++
			if !utf8.Valid(s) {
				return "", newErr(d.invalid, ReasonUTF8)
			}
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", d.syntax()
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
				return "", newErr(d.invalid, ReasonUTF8)
			}
			return string(d.buf), nil
		case c < 0x20:
			return "", d.syntax()
		case c != '\\':
			d.buf = append(d.buf, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.data) {
			return "", d.syntax()
		}
		e := d.data[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			d.buf = append(d.buf, e)
		case 'b':
			d.buf = append(d.buf, '\b')
		case 'f':
			d.buf = append(d.buf, '\f')
		case 'n':
			d.buf = append(d.buf, '\n')
		case 'r':
			d.buf = append(d.buf, '\r')
		case 't':
			d.buf = append(d.buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.syntax()
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || d.pos+6 > len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
					return "", newErr(d.invalid, ReasonSurrogate)
				}
				d.pos += 2
				r2, ok := d.hex4()
				if !ok {
					return "", d.syntax()
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", newErr(d.invalid, ReasonSurrogate)
				}
			}
			d.buf = utf8.AppendRune(d.buf, r)
		default:
			return "", d.syntax()
		}
	}
	return "", d.syntax()
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
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.digits() == 0:
		return nil, d.syntax()
	}
	float := false
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, d.syntax()
		}
		float = true
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, d.syntax()
		}
		float = true
	}
	lit := string(d.data[start:d.pos])
	if float || len(lit) > 15 {
		// Numbers must fit a double (I-JSON): 1e400 is refused rather than
		// silently compared as infinity.
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, newErr(d.invalid, ReasonNumber)
		}
	}
	return json.Number(lit), nil
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}
