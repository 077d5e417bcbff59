package proxy

import (
	"encoding/json"
	"strings"
)

// This file reads what the proxy routes by: the top-level members of one
// JSON-RPC message, without decoding or copying the values. It is a router,
// not a validator: every message still goes through a pass, which checks
// the JSON and the envelope in full; what is read here only decides the
// kind and the id of the message. A message it cannot read is one the proxy
// cannot route (msgInvalid).

// msgType is what a JSON-RPC message is, by its members.
type msgType uint8

const (
	msgInvalid      msgType = iota // not one JSON-RPC message object
	msgRequest                     // method and id
	msgNotification                // method, no id
	msgResponse                    // result or error, an id, no method
)

// envelope is the routing view of one message. id is the raw JSON of the
// id (nil when absent), a sub-slice of the message.
type envelope struct {
	typ      msgType
	id       []byte
	method   string
	hasError bool
	params   []byte // raw params, a sub-slice of the message
	// knownToken: a progress notification naming the token of a request
	// in flight when the message was read (progress.go).
	knownToken bool
}

// maxMethodLen bounds the method names the router keeps: MCP's are short,
// and a longer one is routed as unknown (generic).
const maxMethodLen = 256

// peek reads the envelope of msg. A message that is not a JSON object, or
// whose members cannot be delimited, is msgInvalid.
func peek(msg []byte) envelope {
	var e envelope
	var hasMethod, hasResult bool
	ok := topMembers(msg, func(key, val []byte) bool {
		switch string(key) {
		case "id":
			if e.id == nil && len(val) > 0 && val[0] != 'n' { // null is no id
				e.id = val
			}
		case "method":
			hasMethod = true
			if len(val) <= maxMethodLen+2 {
				var s string
				if json.Unmarshal(val, &s) == nil {
					e.method = s
				}
			}
		case "result":
			hasResult = true
		case "error":
			e.hasError = true
		case "params":
			e.params = val
		}
		return true
	})
	switch {
	case !ok:
		e.typ = msgInvalid
	case hasMethod && e.id != nil && !hasResult && !e.hasError:
		e.typ = msgRequest
	case hasMethod && !hasResult && !e.hasError:
		e.typ = msgNotification
	case !hasMethod && (hasResult || e.hasError):
		e.typ = msgResponse
	default:
		e.typ = msgInvalid
	}
	return e
}

// idKey is the key of a raw id in the proxy's maps: a number by its text, a
// string by its decoded value, so that "1" and 1 differ and "\u0031" and
// "1" do not. ok is false for anything else (an object, a malformed string).
func idKey(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		if !strings.ContainsRune(string(raw), '\\') {
			return "s" + string(raw[1:len(raw)-1]), true
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case c == '-' || c >= '0' && c <= '9':
		return "n" + string(raw), true
	}
	return "", false
}

// topMembers calls fn with the key (unescaped) and the raw value of each
// member of the top-level object of b, until fn returns false. It reports
// whether b is one object whose members it could delimit, with nothing but
// white space after it.
func topMembers(b []byte, fn func(key, val []byte) bool) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, ok := skipString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : end-1]
		if strings.IndexByte(string(key), '\\') >= 0 {
			var s string
			if json.Unmarshal(b[i:end], &s) != nil {
				return false
			}
			key = []byte(s)
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		vend, ok := skipValue(b, i)
		if !ok {
			return false
		}
		if !fn(key, b[i:vend]) {
			return true
		}
		i = skipWS(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string that starts at b[i].
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the offset after the value that starts at b[i]. Objects
// and arrays are delimited by counting brackets outside strings; their
// contents are not checked.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) {
		c := b[j]
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		j++
	}
	if j == i {
		return 0, false
	}
	return j, true
}

// replaceID returns msg with the value of its top-level "id" member
// replaced by id, or msg itself when it has no id member or it is already
// id. msg is a pass's output: well-formed JSON.
func replaceID(msg, id []byte) []byte {
	var at, end int
	found := false
	topMembers(msg, func(key, val []byte) bool {
		if string(key) == "id" {
			found = true
			at = offsetOf(msg, val)
			end = at + len(val)
			return false
		}
		return true
	})
	if !found || string(msg[at:end]) == string(id) {
		return msg
	}
	out := make([]byte, 0, len(msg)-(end-at)+len(id))
	out = append(out, msg[:at]...)
	out = append(out, id...)
	return append(out, msg[end:]...)
}

// offsetOf is the offset of sub, a sub-slice of b, in b.
func offsetOf(b, sub []byte) int {
	return cap(b) - cap(sub)
}
