package strictjson

import "unicode/utf8"

// Scanner reads a strict JSON text token by token with the decoder's own
// rules (the same strings, escapes, surrogates, UTF-8 and number limits
// as Decode), for callers that check a value without building it. It
// does not check structure (the caller walks objects and arrays), nesting
// depth or duplicate member names; a caller that enforces those as Decode
// does accepts exactly the texts Decode accepts.
type Scanner struct {
	d decoder
}

// Reset starts reading data from its first byte.
func (s *Scanner) Reset(data []byte) {
	s.d.data, s.d.pos = data, 0
}

// Space skips whitespace and returns the next byte, or 0 at the end.
func (s *Scanner) Space() byte {
	s.d.space()
	if s.d.pos >= len(s.d.data) {
		return 0
	}
	return s.d.data[s.d.pos]
}

// Done reports whether only whitespace is left.
func (s *Scanner) Done() bool {
	s.d.space()
	return s.d.pos == len(s.d.data)
}

// Skip steps over one byte (an opening '{' or '[', a ':').
func (s *Scanner) Skip() { s.d.pos++ }

// Str reads a string at its opening quote and returns its decoded bytes:
// a view of the input or of the scanner's buffer, valid until the next
// call.
func (s *Scanner) Str() ([]byte, error) { return s.d.strBytes() }

// SkipStr reads a string at its opening quote as Str does, accepting
// exactly the strings Str accepts, without decoding it: the runs between
// escapes are checked for UTF-8 where they are (a multi-byte sequence
// holds no ASCII byte, and an escape stands for whole characters, so the
// decoded string is valid exactly when every run is) and the escapes are
// checked, not kept.
func (s *Scanner) SkipStr() error {
	d := &s.d
	d.pos++ // '"'
	for {
		start := d.pos
		end, nonASCII := plainRun(d.data, start)
		d.pos = end
		if nonASCII && !utf8.Valid(d.data[start:end]) {
			return d.fail(UTF8)
		}
		if end >= len(d.data) {
			return d.fail(Syntax)
		}
		switch c := d.data[end]; {
		case c == '"':
			d.pos++
			return nil
		case c < 0x20:
			return d.fail(Syntax)
		}
		var rune4 [utf8.UTFMax]byte
		if _, err := d.escape(rune4[:0]); err != nil {
			return err
		}
	}
}

// Number reads a number and returns its literal (a view of the input).
func (s *Scanner) Number() ([]byte, error) {
	// The common literal, an integer or a decimal without an exponent
	// (at most maxFiniteDigits integer digits, no leading zero), is read
	// here; numberEnd accepts it and ends at the same byte.
	d := &s.d
	data, start := d.data, d.pos
	i := start
	if i < len(data) && data[i] == '-' {
		i++
	}
	j := i
	for j < len(data) && data[j]-'0' < 10 {
		j++
	}
	n := j - i
	ok := n > 0 && n <= maxFiniteDigits && (n == 1 || data[i] != '0')
	if ok && j < len(data) && data[j] == '.' {
		k := j + 1
		for k < len(data) && data[k]-'0' < 10 {
			k++
		}
		ok, j = k > j+1, k // "1." is refused by numberEnd
	}
	if ok && (j >= len(data) || data[j]|0x20 != 'e') && j-start <= MaxNumberBytes {
		d.pos = j
		return data[start:j], nil
	}
	if err := s.d.numberEnd(); err != nil {
		return nil, err
	}
	return s.d.data[start:s.d.pos], nil
}

// Literal reads true, false or null as Decode does and returns the byte
// it starts with.
func (s *Scanner) Literal() (byte, error) {
	c := s.d.data[s.d.pos]
	switch c {
	case 't':
		return c, s.d.literal("true")
	case 'f':
		return c, s.d.literal("false")
	case 'n':
		return c, s.d.literal("null")
	}
	return c, s.d.fail(Syntax)
}

// Separator reads what follows a member or item: a comma (done false) or
// closing (done true); anything else is a syntax error.
func (s *Scanner) Separator(closing byte) (done bool, err error) { return s.d.separator(closing) }

// Colon reads the ':' after a member name.
func (s *Scanner) Colon() error {
	s.d.space()
	if s.d.pos >= len(s.d.data) || s.d.data[s.d.pos] != ':' {
		return s.d.fail(Syntax)
	}
	s.d.pos++
	return nil
}
