package errsan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// maxIssues bounds the issues rendered from one list; the rest are counted
// in the rendering ("and N more").
const maxIssues = 8

// rewriteIssues rewrites the JSON issue lists validators write into error
// text (the TypeScript SDK's Zod issues, pydantic's errors()) as
// "message at path" phrases joined by "; ". Values the validator echoed
// (pydantic's "input") are left out and counted. Text that is not such a
// list is left as it is.
func rewriteIssues(s string, rep *Report) string {
	for n, from := 0, 0; n < 4 && from < len(s); n++ {
		i := issueListStart(s, from)
		if i < 0 {
			return s
		}
		end, text, ok := renderIssues(s[i:], rep)
		if !ok {
			from = i + 1
			continue
		}
		s = s[:i] + text + s[i+end:]
		from = i + len(text)
	}
	return s
}

// issueListStart finds, from index from, a '[' followed (after white
// space) by '{'.
func issueListStart(s string, from int) int {
	for {
		j := strings.IndexByte(s[from:], '[')
		if j < 0 {
			return -1
		}
		i := from + j
		k := i + 1
		for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t') {
			k++
		}
		if k < len(s) && s[k] == '{' {
			return i
		}
		from = i + 1
	}
}

// issue is one entry of a Zod or pydantic issue list.
type issue struct {
	Message *string           `json:"message"`
	Msg     *string           `json:"msg"`
	Path    []json.RawMessage `json:"path"`
	Loc     []json.RawMessage `json:"loc"`
	Input   json.RawMessage   `json:"input"`
}

// renderIssues decodes the issue list at the start of s and returns how
// many bytes it took and its rendering.
func renderIssues(s string, rep *Report) (int, string, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	var list []issue
	if err := dec.Decode(&list); err != nil || len(list) == 0 {
		return 0, "", false
	}
	var parts []string
	for i, is := range list {
		msg := is.Message
		if msg == nil {
			msg = is.Msg
		}
		if msg == nil {
			return 0, "", false // not an issue list
		}
		if len(is.Input) > 0 {
			rep.Counts[KindEchoedInput]++
		}
		if i >= maxIssues {
			continue
		}
		p := is.Path
		if p == nil {
			p = is.Loc
		}
		text := strings.TrimSpace(*msg)
		if at := issuePath(p); at != "" {
			text += " at " + at
		}
		parts = append(parts, text)
	}
	out := strings.Join(parts, "; ")
	if len(list) > maxIssues {
		out += "; and " + strconv.Itoa(len(list)-maxIssues) + " more"
	}
	return int(dec.InputOffset()), out, true
}

// issuePath renders a Zod path or pydantic loc: names joined by '.',
// indexes as [n].
func issuePath(p []json.RawMessage) string {
	var b strings.Builder
	for _, raw := range p {
		raw = bytes.TrimSpace(raw)
		var name string
		if err := json.Unmarshal(raw, &name); err == nil {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(name)
			continue
		}
		var n json.Number
		if err := json.Unmarshal(raw, &n); err == nil {
			b.WriteString("[" + n.String() + "]")
		}
	}
	return b.String()
}
