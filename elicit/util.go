package elicit

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func equalDigest(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// validText reports a non-empty UTF-8 text of at most max bytes without
// control characters.
func validText(s string, max int) bool {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func formRefused(r statekeys.Reason, inputKey, field string) *statekeys.Error {
	return &statekeys.Error{Code: statekeys.CodeFormRefused, Reason: r, InputKey: inputKey, Field: field}
}

func urlRefused(r statekeys.Reason, inputKey string) *statekeys.Error {
	return &statekeys.Error{Code: statekeys.CodeURLRefused, Reason: r, InputKey: inputKey}
}
