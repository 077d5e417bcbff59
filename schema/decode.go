package schema

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
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
	v, err := strictjson.Decode(data, maxDepth)
	if err == nil {
		return v, nil
	}
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return nil, newErr(invalid, ReasonSyntax)
	}
	switch e.Reason {
	case strictjson.Depth:
		return nil, newErr(deep, ReasonDepth)
	case strictjson.DuplicateKey:
		return nil, newErr(invalid, ReasonDuplicateKey)
	case strictjson.UTF8:
		return nil, newErr(invalid, ReasonUTF8)
	case strictjson.Surrogate:
		return nil, newErr(invalid, ReasonSurrogate)
	case strictjson.Number:
		return nil, newErr(invalid, ReasonNumber)
	}
	return nil, newErr(invalid, ReasonSyntax)
}
