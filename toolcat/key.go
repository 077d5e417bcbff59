package toolcat

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// MaxToolNameBytes caps a tool name (the MCP limit is 128 characters of a
// restricted set; older servers use others, which are encoded).
const MaxToolNameBytes = 128

// encodedPrefix starts an encoded tool name token.
const encodedPrefix = "="

// Key returns the KV key of a tool: <server>.<tool token>.
func Key(server, tool string) (string, error) {
	if wire.CheckToken(server) != nil {
		return "", fail(CodeName, -1)
	}
	t, err := ToolToken(tool)
	if err != nil {
		return "", err
	}
	return server + "." + t, nil
}

// ToolToken returns the key token of a tool name: the name itself when it
// is made only of [A-Za-z0-9_-], otherwise "=" + unpadded base64url of it.
func ToolToken(tool string) (string, error) {
	if tool == "" || len(tool) > MaxToolNameBytes || !utf8.ValidString(tool) {
		return "", fail(CodeName, -1)
	}
	if plain(tool) {
		return tool, nil
	}
	return encodedPrefix + base64.RawURLEncoding.EncodeToString([]byte(tool)), nil
}

// ParseKey splits a KV key into server and tool name.
func ParseKey(key string) (server, tool string, err error) {
	server, tok, ok := strings.Cut(key, ".")
	if !ok || wire.CheckToken(server) != nil || tok == "" {
		return "", "", fail(CodeName, -1)
	}
	if rest, enc := strings.CutPrefix(tok, encodedPrefix); enc {
		b, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil || len(b) == 0 || len(b) > MaxToolNameBytes || !utf8.Valid(b) || plain(string(b)) {
			return "", "", fail(CodeName, -1)
		}
		return server, string(b), nil
	}
	if !plain(tok) || len(tok) > MaxToolNameBytes {
		return "", "", fail(CodeName, -1)
	}
	return server, tok, nil
}

func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
