package strictjson

// SameTokens reports whether a and b are the same sequence of JSON tokens:
// the same punctuation in the same places, strings whose decoded contents
// are equal (however they are escaped), number literals written alike, and
// the same literals; whitespace between tokens is ignored. Each string of
// b is read under Decode's rules (no invalid UTF-8, control character or
// lone surrogate), so when a decodes, b decodes too, to an equal value with
// its members in the same order, and no more deeply nested. A false result
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
			sa, err := da.strBytes()
			if err != nil {
				return false
			}
			sb, err := db.strBytes()
			if err != nil || string(sa) != string(sb) {
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
