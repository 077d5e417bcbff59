package jsonlex

// Steps: what Next does for the tokens of a member in an object, one call
// each, for a caller's fast path over members (a name, its colon and a
// string or number value, the comma before the next name). Each either
// does exactly what Next would do at b[i] and reports it, or, when what
// follows is anything else (another kind of value, the end of the chunk,
// a syntax error), changes nothing and reports that it did not, so that
// Next reads it.

// ColonValue reads, with the lexer after a member name, whitespace, the
// colon, whitespace and the first byte of the value when the value is a
// string or a number. It returns BeginString (the quote consumed) or
// BeginNumber (not consumed, as Next) and the index after what it
// consumed, Off set as Next sets it; otherwise More and i, the lexer
// unchanged.
func (l *Lexer) ColonValue(b []byte, i int) (Kind, int) {
	if l.st != stColon {
		return More, i
	}
	j, n := i, len(b)
	if j+1 < n && b[j] == ':' && !wsTable[b[j+1]] {
		// Compact JSON: the colon, then the value.
		j++
	} else {
		for j < n && wsTable[b[j]] {
			j++
		}
		if j >= n || b[j] != ':' {
			return More, i
		}
		j++
		for j < n && wsTable[b[j]] {
			j++
		}
		if j >= n {
			return More, i
		}
	}
	switch c := b[j]; {
	case c == '"':
		l.off = l.Base + int64(j)
		l.started = true
		l.beginString(false)
		return BeginString, j + 1
	case c == '-' || c >= '0' && c <= '9':
		l.off = l.Base + int64(j)
		l.started = true
		l.st, l.numSt, l.numLen = stNumber, 0, 0
		return BeginNumber, j
	}
	return More, i
}

// numEnd marks the bytes that end a number with nothing more to check:
// the separators and closes that may follow a value, and whitespace.
var numEnd = [256]bool{',': true, '}': true, ']': true, ' ': true, '\t': true, '\n': true, '\r': true}

// ShortNumber reads, with the lexer at the first byte of a number
// (BeginNumber just returned), a whole number of the common form (a
// minus, an integer without a leading zero, a fraction) when the byte
// after it is in b and ends it (a comma, a close or whitespace) and it is
// no longer than the number bound. It returns Number (Ended true) and the
// index after the number, as Next would; otherwise More and i, the lexer
// unchanged (Next reads the number: exponents, long numbers, numbers cut
// by the chunk's end, malformed ones).
func (l *Lexer) ShortNumber(b []byte, i int) (Kind, int) {
	if l.st != stNumber || l.numSt != 0 || l.numLen != 0 {
		return More, i
	}
	n := len(b)
	j := i
	if j < n && b[j] == '-' {
		j++
	}
	if j >= n {
		return More, i
	}
	var st uint8
	switch c := b[j]; {
	case c == '0':
		st = 2
		j++
	case c >= '1' && c <= '9':
		st = 3
		j++
		for j < n && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	default:
		return More, i
	}
	if j < n && b[j] == '.' {
		j++
		k := j
		for j < n && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			return More, i
		}
		st = 5
	}
	max := l.MaxNumber
	if max == 0 {
		max = DefaultMaxNumber
	}
	if j >= n || !numEnd[b[j]] || j-i > max {
		return More, i
	}
	l.numSt, l.numLen = st, j-i
	l.seg = b[i:j]
	l.valueDone() // endNumber: st is one that ends a number
	l.off = l.Base + int64(i)
	l.flag = true
	return Number, j
}

// Comma reads, with the lexer after a value in an object, whitespace and
// the comma after it, as Next would (Comma, Object true); it reports
// whether it did and the index after the comma. Otherwise the lexer is
// unchanged.
func (l *Lexer) Comma(b []byte, i int) (bool, int) {
	if l.st != stAfter || !l.obj {
		return false, i
	}
	j, n := i, len(b)
	if j < n && b[j] != ',' {
		for j < n && wsTable[b[j]] {
			j++
		}
	}
	if j >= n || b[j] != ',' {
		return false, i
	}
	l.off = l.Base + int64(j)
	l.inObj = true
	l.st = stObjKey
	return true, j + 1
}

// Name reads, with the lexer after a comma in an object, whitespace and
// the opening quote of the next member name, as Next would (BeginName);
// it reports whether it did and the index after the quote. Otherwise the
// lexer is unchanged.
func (l *Lexer) Name(b []byte, i int) (bool, int) {
	if l.st != stObjKey {
		return false, i
	}
	j, n := i, len(b)
	if j < n && b[j] != '"' {
		for j < n && wsTable[b[j]] {
			j++
		}
	}
	if j >= n || b[j] != '"' {
		return false, i
	}
	l.off = l.Base + int64(j)
	l.beginString(true)
	return true, j + 1
}
