package promptgate

import (
	"strings"
	"unicode"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// fold reads s as a model would for marker matching: the scanners'
// normalization (NFKC, invisible characters removed, look-alikes of
// Latin letters folded in mixed-script words), then every remaining
// look-alike letter folded, lower case, and every run of white space as
// one space.
func fold(s string) string {
	var n scanners.Normalizer
	b := n.Append(nil, []byte(s), true)
	var out strings.Builder
	out.Grow(len(b))
	space := false
	for _, r := range string(b) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && out.Len() > 0 {
			out.WriteByte(' ')
		}
		space = false
		if l, ok := scanners.ConfusableLatin(r); ok {
			r = rune(l)
		} else if strings.ContainsRune(colonLookalikes, r) {
			r = ':'
		}
		out.WriteRune(unicode.ToLower(r))
	}
	return out.String()
}

// markerSet is a compiled list of forbidden markers, each folded.
type markerSet struct {
	folded []string
	// roleHeaders forbids a line that starts with a role name and a colon
	// ("system:", "### assistant:").
	roleHeaders bool
}

// DefaultForbiddenMarkers are the role and instruction markers refused in
// prompt arguments and generated messages when the policy lists none:
// the chat-template delimiters of common model families and the best-known
// instruction overrides.
var DefaultForbiddenMarkers = []string{
	"<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>", "<|endoftext|>",
	"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>",
	"<system>", "</system>", "<developer>", "</developer>", "<start_of_turn>", "<end_of_turn>",
	"ignore previous instructions", "ignore all previous instructions", "disregard previous instructions",
	"ignore the above instructions",
}

// colonLookalikes are drawn like ':' but NFKC keeps them (ratio, modifier
// letter colons, Armenian full stop, Hebrew sof pasuq).
const colonLookalikes = "\u2236\ua789\u02f8\u0589\u05c3"

var roleNames = []string{"system", "developer", "assistant", "user", "tool", "human", "ai"}

// find returns whether s carries a marker.
func (m *markerSet) find(s string) bool {
	f := fold(s)
	for _, mk := range m.folded {
		if strings.Contains(f, mk) {
			return true
		}
	}
	if !m.roleHeaders {
		return false
	}
	// Role headers: at the start of a line (of the original text, since
	// fold joins lines), after optional '#', '*', '>' and spaces.
	for _, line := range strings.Split(s, "\n") {
		if !strings.ContainsAny(line, ":\uff1a\ufe55\ufe13"+colonLookalikes) {
			// No colon, nor a character folded to one.
			continue
		}
		l := strings.TrimLeft(fold(line), "#*> -")
		for _, r := range roleNames {
			if strings.HasPrefix(l, r) {
				rest := strings.TrimLeft(l[len(r):], " ")
				if strings.HasPrefix(rest, ":") {
					return true
				}
			}
		}
	}
	return false
}

// badChar reports a control character other than tab and newline, or an
// invisible format character (bidi controls, zero-width characters).
func badChar(s string, allowNewline bool) bool {
	for _, r := range s {
		switch {
		case r == '\t':
		case r == '\n' || r == '\r':
			if !allowNewline {
				return true
			}
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) || r == 0xfffd:
			return true
		}
	}
	return false
}
