package schema

import "github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"

// SameValue reports whether b is a (JSON text of a) value that a decodes
// to as well, told token by token without decoding either: the same
// structure, member names and strings equal once unescaped, numbers
// written alike, whitespace aside. When it holds and Decode(a) succeeds,
// Decode(b) succeeds with an equal value (members in the same order), so
// what Validate and Project say of one they say of the other. False says
// nothing (members reordered, 1.0 against 1).
func SameValue(a, b []byte) bool { return strictjson.SameTokens(a, b) }
