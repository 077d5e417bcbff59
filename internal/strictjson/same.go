package strictjson

import "encoding/binary"

// SameTokens reports whether a and b are the same sequence of JSON tokens:
// the same punctuation in the same places, strings whose decoded contents
// are equal (however they are escaped), number literals written alike, and
// the same literals; whitespace between tokens is ignored. A string of b
// written with the same bytes as a's is as valid as a's; any other is read
// under Decode's rules (no invalid UTF-8, control character or lone
// surrogate). So when a decodes, b decodes too, to an equal value with its
// members in the same order, and no more deeply nested. A false result
// says nothing: two texts of one value may differ in member order or in
// how a number is written.
func SameTokens(a, b []byte) bool {
	da := decoder{data: a}
	db := decoder{data: b}
	for {
		da.space()
		db.space()
		if da.pos >= len(a) || db.pos >= len(b) {
			return da.pos >= len(a) && db.pos >= len(b)
		}
		ca, cb := a[da.pos], b[db.pos]
		if ca != cb {
			return false
		}
		switch {
		case ca == '"':
			if !sameRawString(&da, &db) && !sameString(&da, &db) {
				return false
			}
		case ca == '-' || ca >= '0' && ca <= '9':
			na, nb := da.numberSpan(), db.numberSpan()
			if string(na) != string(nb) {
				return false
			}
		case ca == 't', ca == 'f', ca == 'n':
			lit := "null"
			if ca == 't' {
				lit = "true"
			} else if ca == 'f' {
				lit = "false"
			}
			if da.literal(lit) != nil || db.literal(lit) != nil {
				return false
			}
		case ca == '{' || ca == '}' || ca == '[' || ca == ']' || ca == ':' || ca == ',':
			da.pos++
			db.pos++
		default:
			return false
		}
	}
}

// numberSpan skips the bytes a number literal may hold and returns them
// (it does not check the grammar: SameTokens compares the span with one of
// a text that decoded).
func (d *decoder) numberSpan() []byte {
	start := d.pos
	for d.pos < len(d.data) && isNumberByte(d.data[d.pos]) {
		d.pos++
	}
	return d.data[start:d.pos]
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// sameRawString compares the strings that open at da.pos and db.pos byte
// for byte. When both hold the same bytes up to a closing quote, with no
// escape on the way, it moves both past the string and reports true: b's
// string is then as valid as a's, which SameTokens may assume. Otherwise
// it leaves both positions where they were.
func sameRawString(da, db *decoder) bool {
	a, b := da.data, db.data
	i, j := da.pos+1, db.pos+1
	for i+8 <= len(a) && j+8 <= len(b) {
		w := binary.LittleEndian.Uint64(a[i:])
		if w != binary.LittleEndian.Uint64(b[j:]) || hasByte(w, '"') || hasByte(w, '\\') {
			break
		}
		i, j = i+8, j+8
	}
	for i < len(a) && j < len(b) && a[i] == b[j] && a[i] != '"' && a[i] != '\\' {
		i, j = i+1, j+1
	}
	if i < len(a) && j < len(b) && a[i] == '"' && b[j] == '"' {
		da.pos, db.pos = i+1, j+1
		return true
	}
	return false
}

// hasByte reports whether one of the eight bytes of w is c.
func hasByte(w uint64, c byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	x := w ^ (lo * uint64(c))
	return (x-lo)&^x&hi != 0
}

// sameString compares the decoded contents of the strings that open at
// da.pos and db.pos piece by piece (a run of plain bytes, or what one
// escape stands for), without decoding either whole, and moves both past
// their strings when they are equal. A string that breaks Decode's rules
// is not equal to any: a control character, a bad or lone surrogate
// escape; invalid UTF-8 in b cannot equal a's decoded text, which is valid
// when a decodes.
func sameString(da, db *decoder) bool {
	da.pos++
	db.pos++
	var ea, eb [4]byte
	var qa, qb []byte // decoded bytes not compared yet
	endA, endB := false, false
	for {
		if len(qa) == 0 && !endA {
			if qa, endA = da.piece(ea[:0]); qa == nil && !endA {
				return false
			}
		}
		if len(qb) == 0 && !endB {
			if qb, endB = db.piece(eb[:0]); qb == nil && !endB {
				return false
			}
		}
		if endA || endB {
			return endA && endB && len(qa) == 0 && len(qb) == 0
		}
		n := min(len(qa), len(qb))
		if string(qa[:n]) != string(qb[:n]) {
			return false
		}
		qa, qb = qa[n:], qb[n:]
	}
}

// piece reads the next piece of a string's content at d.pos: a run of
// plain bytes (a view of the input) or the bytes an escape stands for
// (appended to buf). At the closing quote it moves past it and reports
// end; on anything Decode refuses it returns nil and false.
func (d *decoder) piece(buf []byte) (p []byte, end bool) {
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case c == '"':
		d.pos++
		return nil, true
	case c == '\\':
		p, err := d.escape(buf)
		if err != nil {
			return nil, false
		}
		return p, false
	case c < 0x20:
		return nil, false
	}
	from := d.pos
	d.pos, _ = plainRun(d.data, d.pos+1)
	return d.data[from:d.pos], false
}
