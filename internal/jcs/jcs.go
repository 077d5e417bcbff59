package jcs

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// DefaultMaxDepth is the nesting limit of the parser used for arguments,
// schemas, policies and responses.
const DefaultMaxDepth = 64

// ErrInvalid is returned for any text that is not strict I-JSON. It carries
// no input: callers map it to their own reason.
var ErrInvalid = errors.New("jcs: not canonicalizable JSON")

// Canonicalize returns the RFC 8785 canonical form of the JSON text data.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := Parse(data, DefaultMaxDepth)
	if err != nil {
		return nil, err
	}
	return Append(make([]byte, 0, len(data)), v)
}

// Parse parses one strict I-JSON value (package strictjson): objects
// become map[string]any, arrays []any, numbers json.Number (the literal as
// written), strings string, and true/false/null bool and nil.
func Parse(data []byte, maxDepth int) (any, error) {
	v, err := strictjson.Decode(data, maxDepth)
	if err != nil {
		return nil, ErrInvalid
	}
	return v, nil
}

// appendCanonicalArray appends a JSON array of elems, each canonicalized
// by appendElem.
func appendCanonicalArray[E any](dst []byte, elems []E, appendElem func([]byte, E) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '[')
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendElem(dst, e); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// Append appends the canonical form of a parsed value (or of a
// value built from the same types plus float64, int, []string and
// map[string]string) to dst.
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendCanonicalString(dst, x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil, ErrInvalid
		}
		return appendES6Number(dst, f)
	case float64:
		return appendES6Number(dst, x)
	case int:
		return appendES6Number(dst, float64(x))
	case []any:
		return appendCanonicalArray(dst, x, Append)
	case []string:
		return appendCanonicalArray(dst, x, appendCanonicalString)
	case map[string]any:
		keys := sortedKeysUTF16(x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendCanonicalString(dst, k); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			if dst, err = Append(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, ErrInvalid
}

func sortedKeysUTF16(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		switch {
		case lessUTF16(a, b):
			return -1
		case lessUTF16(b, a):
			return 1
		}
		return 0
	})
	return keys
}

// lessUTF16 orders strings by their UTF-16 code units, as RFC 8785 §3.2.3
// requires. For two code points in the BMP this is code point order; a
// supplementary code point sorts by its high surrogate (0xD800-0xDBFF), that
// is, before U+E000..U+FFFF.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return ua < ub
			}
			return ra < rb // same high surrogate: low surrogates follow code points
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) < len(b)
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + ((r - 0x10000) >> 10)
	}
	return r
}

func appendCanonicalString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, ErrInvalid
	}
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	return append(dst, '"'), nil
}

// appendES6Number writes f as ECMAScript's Number.prototype.toString does
// (ECMA-262 §7.1.12.1), which RFC 8785 §3.2.2.3 adopts: shortest round-trip
// digits, plain notation for decimal exponents in [-6, 21), otherwise
// exponent notation with an explicit sign. NaN and infinities are errors.
func appendES6Number(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, ErrInvalid
	}
	if f == 0 { // also -0
		return append(dst, '0'), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var tmp [32]byte
	b := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d.ddddde±XX
	ePos := 0
	for i, c := range b {
		if c == 'e' {
			ePos = i
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range b[:ePos] {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	exp, _ := strconv.Atoi(string(b[ePos+1:]))
	n := exp + 1 // position of the decimal point relative to the digits
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
