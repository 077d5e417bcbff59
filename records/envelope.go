package records

import (
	"bytes"
)

// envelope is what the top level of a record line holds, found in one scan
// of the line that builds no tree and copies nothing: the raw value of each
// record member the engine reads, as a slice of the line.
type envelope struct {
	tool, framing, schema, result []byte // nil: the member is absent
	context                       []byte // the guards' request context (context.go)
	schemaWS, resultWS            bool   // the value holds whitespace outside its strings
}

// Limits of the scan; a line past them takes the general path.
const (
	// envMaxMembers is the most members of a record the scan compares
	// for duplicates.
	envMaxMembers = 16
	// envMaxDepth is the deepest nesting the scan follows (the top level
	// is depth 1), below fastjson.MaxDepth.
	envMaxDepth = 256
)

// scanEnvelope reports the envelope of line when line is a record the
// general path (a fastjson parse of the whole line) would take as a record
// and read the same members from: JSON as fastjson accepts it, an object
// with a result and no member name twice, the names of its members, and
// its tool and framing when they are strings, without a backslash. For any
// other line (not JSON, not an object, no result, a name twice, an escape
// where the general path would unescape, past the scan's limits) it
// reports false, and the record takes the general path, which answers it
// as before.
//
// The grammar is fastjson's, in a subset: whitespace is space, tab, CR and
// LF; a string ends at the first quote after an even run of backslashes
// (escapes and bytes inside are not checked, the pipeline's lexer does);
// a number is a run of digits, '.', '-', '+', 'e' and 'E' that is not a
// lone sign (fastjson also takes NaN and Inf, which go the general way).
func scanEnvelope(line []byte) (envelope, bool) {
	var env envelope
	s := envScanner{b: line}
	s.skipWS()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return env, false
	}
	s.i++
	s.skipWS()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		return env, false // no result
	}
	var names [envMaxMembers][]byte
	members := 0
	for {
		s.skipWS()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return env, false
		}
		start := s.i + 1
		if !s.str() {
			return env, false
		}
		name := s.b[start : s.i-1]
		if bytes.IndexByte(name, '\\') >= 0 || members == envMaxMembers {
			return env, false
		}
		for _, n := range names[:members] {
			if bytes.Equal(n, name) {
				return env, false
			}
		}
		names[members] = name
		members++
		s.skipWS()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return env, false
		}
		s.i++
		s.skipWS()
		vstart := s.i
		s.ws = false
		if !s.value(2) {
			return env, false
		}
		v := s.b[vstart:s.i]
		switch string(name) {
		case "tool":
			env.tool = v
		case "framing":
			env.framing = v
		case "context":
			env.context = v
		case "outputSchema":
			env.schema, env.schemaWS = v, s.ws
		case "result":
			env.result, env.resultWS = v, s.ws
		}
		more, ok := s.sep('}')
		if !ok {
			return env, false
		}
		if !more {
			break
		}
	}
	s.skipWS()
	if s.i != len(s.b) || env.result == nil {
		return env, false
	}
	for _, v := range [][]byte{env.tool, env.framing} {
		if len(v) > 0 && v[0] == '"' && bytes.IndexByte(v, '\\') >= 0 {
			return env, false // the general path unescapes it
		}
	}
	return env, true
}

// stringContent returns the bytes between the quotes of a raw JSON string
// value without escapes, and false when v is not a string.
func stringContent(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// envScanner walks a record line; ws records whether whitespace was
// skipped inside the value being scanned.
type envScanner struct {
	b  []byte
	i  int
	ws bool
}

func isWS(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func (s *envScanner) skipWS() {
	// Every whitespace byte is below '!': one compare rules the common
	// case (a token follows at once) out.
	for s.i < len(s.b) && s.b[s.i] <= ' ' && isWS(s.b[s.i]) {
		s.ws = true
		s.i++
	}
}

// str skips the string that starts at s.i (a quote).
func (s *envScanner) str() bool {
	i := s.i + 1
	for {
		n := bytes.IndexByte(s.b[i:], '"')
		if n < 0 {
			return false
		}
		j := i + n
		k := j
		for s.b[k-1] == '\\' { // stops at the opening quote at the latest
			k--
		}
		if (j-k)%2 == 0 {
			s.i = j + 1
			return true
		}
		i = j + 1
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
}

// value skips the value that starts at s.i, at the given depth.
func (s *envScanner) value(depth int) bool {
	if depth > envMaxDepth || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '{':
		return s.object(depth)
	case '[':
		return s.array(depth)
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		j := s.i
		for j < len(s.b) && isNumberByte(s.b[j]) {
			j++
		}
		if n := j - s.i; n == 0 || n == 1 && (c == '-' || c == '+') {
			return false
		}
		s.i = j
		return true
	}
}

func (s *envScanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *envScanner) array(depth int) bool {
	s.i++
	s.skipWS()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		s.skipWS()
		if !s.value(depth + 1) {
			return false
		}
		if more, ok := s.sep(']'); !more {
			return ok
		}
	}
}

func (s *envScanner) object(depth int) bool {
	s.i++
	s.skipWS()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.skipWS()
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		s.skipWS()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.skipWS()
		if !s.value(depth + 1) {
			return false
		}
		if more, ok := s.sep('}'); !more {
			return ok
		}
	}
}

// sep reads what follows a member or an element: a ',' (more follow) or
// end, which closes the object or array (ok without more); anything else
// is no JSON (neither).
func (s *envScanner) sep(end byte) (more, ok bool) {
	s.skipWS()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case end:
		s.i++
		return false, true
	}
	return false, false
}

// appendCompact appends the JSON value v without the whitespace outside its
// strings: what fastjson's MarshalTo writes for the value it parsed from v.
func appendCompact(dst, v []byte) []byte {
	for i := 0; i < len(v); {
		c := v[i]
		if isWS(c) {
			i++
			continue
		}
		if c != '"' {
			j := i + 1
			for j < len(v) && !isWS(v[j]) && v[j] != '"' {
				j++
			}
			dst = append(dst, v[i:j]...)
			i = j
			continue
		}
		s := envScanner{b: v, i: i}
		if !s.str() { // v was scanned; cannot happen
			return append(dst, v[i:]...)
		}
		dst = append(dst, v[i:s.i]...)
		i = s.i
	}
	return dst
}
