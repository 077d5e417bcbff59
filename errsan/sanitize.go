package errsan

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Kind names a class of text the Sanitizer removed.
type Kind uint8

// Kinds of removed text.
const (
	KindFrame       Kind = iota // stack frames and traceback blocks
	KindPath                    // file system paths and file: URLs
	KindURL                     // other URLs
	KindHost                    // host names
	KindAddress                 // IP addresses and host:port
	KindSQL                     // SQL statements
	KindBackend                 // database and network driver error text
	KindEnv                     // environment dumps
	KindSecret                  // secrets and credential assignments
	KindEchoedInput             // input values echoed by a validator
	numKinds
)

var kindNames = [numKinds]string{"stack-trace", "file-path", "url", "host", "address", "sql", "backend-error", "environment", "secret", "echoed-input"}

// String returns the stable name of k ("stack-trace", "file-path", "url",
// "host", "address", "sql", "backend-error", "environment", "secret",
// "echoed-input").
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind-" + strconv.Itoa(int(k))
}

// Report says what one Sanitize call removed: counts per Kind, never text.
type Report struct {
	// Counts counts the removals per Kind (a dropped line or a replaced
	// span is one).
	Counts [numKinds]int
	// RPCCode is the code of an "MCP error <code>: " prefix, 0 if none.
	RPCCode int
	// Cut reports that a bound (MaxInput, MaxLines, MaxBytes) cut the text.
	Cut bool
	// DroppedLines counts the lines dropped (frames, environment lines,
	// lines the final check refused).
	DroppedLines int
}

// Kinds lists the names of the kinds with a non-zero count, in Kind order.
func (r *Report) Kinds() []string {
	var out []string
	for k, n := range r.Counts {
		if n > 0 {
			out = append(out, Kind(k).String())
		}
	}
	return out
}

// Removed reports whether anything was removed or cut.
func (r *Report) Removed() bool {
	if r.Cut || r.DroppedLines > 0 {
		return true
	}
	for _, n := range r.Counts {
		if n > 0 {
			return true
		}
	}
	return false
}

// Sanitizer sanitizes error text. Without a Redactor it is safe for
// concurrent use.
type Sanitizer struct {
	o Options
}

// New returns a Sanitizer for o, or an error wrapping ErrOptions.
func New(o Options) (*Sanitizer, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	return &Sanitizer{o: o}, nil
}

// Sanitize returns the actionable part of the error text in and what was
// removed. The result is empty when nothing actionable is left (a bare
// stack trace, say): the caller then uses a generic message.
func (s *Sanitizer) Sanitize(in string) (string, Report) {
	var rep Report
	if len(in) > s.o.MaxInput {
		in = cutRunes(in, s.o.MaxInput)
		rep.Cut = true
	}
	in = strings.ToValidUTF8(in, "\uFFFD")
	in = strings.ReplaceAll(in, "\r\n", "\n")
	in = strings.ReplaceAll(in, "\r", "\n")
	in = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return ' ' // control characters never reach the model
		}
		return r
	}, in)
	if s.o.Redactor != nil {
		in = s.redact(in, &rep)
	}
	prefix, body := rpcPrefix(in, &rep)
	body = rewriteIssues(body, &rep)

	lines := strings.Split(body, "\n")
	var fs frameState
	kept := make([]string, 0, min(len(lines), s.o.MaxLines))
	for _, l := range lines {
		if k, drop := fs.classify(l); drop {
			rep.Counts[k]++
			rep.DroppedLines++
			continue
		}
		l = s.scrub(l, &rep)
		if Check(l) {
			// The scrubbers left a path or a frame: the line goes.
			rep.Counts[KindFrame]++
			rep.DroppedLines++
			continue
		}
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			if len(kept) == 0 || kept[len(kept)-1] == "" {
				continue
			}
			l = ""
		}
		if len(kept) == s.o.MaxLines {
			rep.Cut = true
			break
		}
		kept = append(kept, l)
	}
	for len(kept) > 0 && kept[len(kept)-1] == "" {
		kept = kept[:len(kept)-1]
	}
	out := strings.Join(kept, "\n")
	if strings.TrimSpace(out) == "" {
		if prefix == "" {
			return "", rep
		}
		out = ""
	}
	out = prefix + out
	if rep.Cut || len(out) > s.o.MaxBytes {
		if len(out) > s.o.MaxBytes-len(CutMark) {
			out = cutRunes(out, s.o.MaxBytes-len(CutMark))
		}
		out = strings.TrimRight(out, " \t\n") + CutMark
		rep.Cut = true
	}
	return out, rep
}

// cutRunes cuts s to at most n bytes at a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// redact runs the scanners' Redactor over the text, counting secrets.
func (s *Sanitizer) redact(in string, rep *Report) string {
	r := s.o.Redactor
	r.Reset()
	out, fs := r.Append(nil, []byte(in), true, nil)
	for _, f := range fs {
		if f.Kind == scanners.KindSecret {
			rep.Counts[KindSecret]++
		}
	}
	return string(out)
}

// mcpPrefixRE matches the TypeScript SDK's McpError prefixes.
var mcpPrefixRE = lazyre.New(`^\s*(?:MCP error (-?\d{1,6}):\s*)+`)
var mcpOneRE = lazyre.New(`MCP error (-?\d{1,6}):`)

// rpcPrefix splits a leading "MCP error <code>: " chain off the text and
// returns it as one prefix with the innermost code.
func rpcPrefix(in string, rep *Report) (prefix, body string) {
	loc := mcpPrefixRE.FindStringIndex(in)
	if loc == nil {
		return "", in
	}
	all := mcpOneRE.FindAllStringSubmatch(in[:loc[1]], -1)
	code := all[len(all)-1][1]
	rep.RPCCode, _ = strconv.Atoi(code)
	return "MCP error " + code + ": ", in[loc[1]:]
}

// scrub replaces the internals inside a kept line.
func (s *Sanitizer) scrub(l string, rep *Report) string {
	if s.o.SecretMarker != "" {
		rep.Counts[KindSecret] += strings.Count(l, s.o.SecretMarker)
	}
	for i := range scrubbers {
		sc := &scrubbers[i]
		if sc.quick != "" && !containsFold(l, sc.quick) {
			continue
		}
		l = sc.apply(l, rep)
	}
	return l
}

// containsFold reports whether s contains the ASCII lower-case needle in
// any letter case.
func containsFold(s, needle string) bool {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		if asciiEqualFold(s[i:i+n], needle) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}
