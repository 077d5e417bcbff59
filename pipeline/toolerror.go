package pipeline

import (
	"bytes"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"strings"
	"time"
)

// A tool execution error (a CallToolResult with isError: true) is rewritten
// once the whole message has been read: its text never reaches the output.
// The agent sees the public message the policy maps from the tool's
// internal code (Policy.Errors), or the default message; evidence records
// the code, whether it was mapped and which classes of text were withheld.

// maxErrText bounds the sanitized text kept to classify a tool error (the
// first 64 KiB of the result's text blocks and resource texts).
const maxErrText = 64 << 10

// maxErrCode bounds an internal code (the policy's codes are at most 64
// bytes; a longer one maps to nothing).
const maxErrCode = 64

// literalDone notes a literal that was written: isError: true of a tool
// result marks a tool error (1: at the top level, 2: in an envelope's
// result).
func (s *shaper) literalDone(lit []byte) {
	if s.nx.role == roleIsError && string(lit) == "true" {
		s.toolErr = int8(len(s.stack))
	}
}

// isToolError reports whether the message is a tool result that said
// isError: true (at the top level of a bare result, or in the result of a
// JSON-RPC envelope).
func (s *shaper) isToolError() bool {
	return s.toolErr == 2 || s.toolErr == 1 && !s.envelope
}

// toolErrAt reports whether the result-shaped object at stack index idx
// said isError: true.
func (s *shaper) toolErrAt(idx int) bool { return int(s.toolErr) == idx+1 }

// codePrefixRE finds a leading "CODE:" in the first text block.
var codePrefixRE = lazyre.New(`^\s*([A-Z][A-Z0-9_]{1,63})\s*:`)

// internalCode returns the tool's internal error code and where it was
// found: structuredContent.code (a string member of an object
// structuredContent), else a leading "CODE:" of the first text (upper-case
// letters, digits and underscores). A code outside the policy's code
// syntax counts as none.
func (s *shaper) internalCode() (code, source string) {
	if c := string(s.errCode); len(s.errCode) > 0 && errorCodeRE.MatchString(c) {
		return c, "structuredContent.code"
	}
	first := s.errText
	if i := bytes.IndexByte(first, '\n'); i >= 0 && i < 80 {
		first = first[:i]
	}
	if m := codePrefixRE.FindSubmatch(first[:min(len(first), 80)]); m != nil {
		return string(m[1]), "text-prefix"
	}
	return "", ""
}

// Detectors of what a tool error's text held. They are cheap (RE2, linear,
// over at most maxErrText bytes, only for tool errors) and deliberately
// broad: the text is withheld whatever they say; they only name what was
// withheld.
var errClasses = []struct {
	name string
	re   *lazyre.Regexp
}{
	{"stack-trace", lazyre.New(`(?m)^\s*at \S.*[:(]\d+(:\d+)?\)?\s*$|^\s*File "[^"\n]+", line \d+|Traceback \(most recent call last\)|goroutine \d+ \[|\.go:\d+\b|Exception in thread "|^\s*#\d+\s+0x[0-9a-fA-F]+|stack backtrace:|\.(py|rb|php|js|mjs|ts|java|kt|cs|cpp|cc|c|rs|ex|exs):\d+`)},
	{"sql-error", lazyre.New(`(?i)SQLSTATE|syntax error at or near|error in your SQL syntax|\bORA-\d{5}\b|\bSQLITE_[A-Z]+|duplicate key value violates|violates (foreign key|unique|not-null|check) constraint|relation "[^"\n]*" does not exist|no such (table|column)|\bPG::|sqlalchemy\.exc|java\.sql\.|SQLException|unknown column '|Deadlock found|\b(select|insert|update|delete)\b[^\n]{0,200}\b(from|into|set|where)\b`)},
	{"file-path", lazyre.New(`(?:^|[\s"'(\[=:,])(?:~?/[\w.@+-]+/[\w.@+/-]*|[A-Za-z]:\\[\w .-]|\\\\[\w.-]+\\)`)},
	{"stderr", lazyre.New(`(?im)\bstderr\b|^panic: |\bfatal error:|segmentation fault|core dumped|exit (status|code) \d+|exited with (status|code)|\b(ENOENT|EACCES|EPERM|ECONNREFUSED|ETIMEDOUT)\b`)},
	{"token", lazyre.New(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}|\b(api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd|pwd)\b\s*[:=]\s*\S`)},
	{"echoed-input", lazyre.New(`(?i)\b(args|arguments|params|parameters|input|payload|request|received|got)\s*[:=]\s*[\[{"']`)},
}

// classifyErrorText names the classes found in a tool error's text.
// marker is the literal prefix of the secret marker: a redacted secret in
// the text counts as "token".
func classifyErrorText(text []byte, marker string) []string {
	var out []string
	for _, c := range errClasses {
		hit := c.re.Match(text)
		if !hit && c.name == "token" && marker != "" {
			hit = bytes.Contains(text, []byte(marker))
		}
		if hit {
			out = append(out, c.name)
		}
	}
	if len(out) == 0 && len(bytes.TrimSpace(text)) > 0 {
		out = append(out, "message")
	}
	return out
}

// secretMarkerPrefix is the literal text before the rule id of the secret
// marker m ("[REDACTED:" for the default, an empty m).
func secretMarkerPrefix(m string) string {
	if m == "" {
		m = "[REDACTED:%s]"
	}
	if i := strings.Index(m, "%s"); i >= 0 {
		m = m[:i]
	}
	if len(m) < 3 {
		return "" // too short to mean anything
	}
	return m
}

// finishToolError replaces the delivered result with the rewritten tool
// error: the label and the public message, isError, and the labels with
// code TOOL_ERROR in _meta. The message is the one the policy maps the
// code to (reason "mapped"); else, under mode keep-actionable, the tool's
// text sanitized by package errsan (reason "sanitized"); else the default
// message (reason "unmapped"). A JSON-RPC envelope keeps its shape and
// sanitized id, as for error results.
func (p *pass) finishToolError(out Output, start time.Time) (*Evidence, error) {
	code, source := p.internalCode()
	pol := &p.e.pol.Errors
	msg, mapped := pol.Map[code]
	reason := "mapped"
	rec := &ToolErrorRecord{Code: safeLabel(code), Source: source, Mapped: mapped, Mode: pol.modeFor(code)}
	if !mapped {
		msg, reason = pol.Default, "unmapped"
		if rec.Mode == ErrorModeKeepActionable {
			text, rep := p.e.errs.Sanitize(string(p.errText))
			rec.Counts, rec.Cut = errsanCounts(&rep), rep.Cut
			if text != "" {
				msg, reason = text, string(wire.ReasonErrorSanitized)
				rec.Sanitized = true
				rec.Removed = rep.Kinds()
			}
		}
	}
	if !rec.Sanitized {
		rec.Removed = classifyErrorText(p.errText, secretMarkerPrefix(p.e.pol.Rules.SecretMarker))
	}
	if err := out.Discard(); err != nil {
		p.ev.Outcome = OutcomeRejected
		p.ev.Code, p.ev.Reason = CodeInternal, string(wire.ReasonOutputError)
		p.finishEvidence(start)
		return p.evidenceCopy(), errOutput{err}
	}
	p.em.reset(out)
	p.pubMsg = msg
	p.writeErrorResult(&Error{Code: CodeToolError, Reason: reason})
	p.pubMsg = ""
	p.em.flush()
	p.finishEvidence(start)
	p.ev.Outcome = OutcomeSanitized
	p.ev.Code, p.ev.Reason = CodeToolError, reason
	p.ev.ToolError = rec
	if p.em.err != nil {
		return p.evidenceCopy(), errOutput{p.em.err}
	}
	return p.evidenceCopy(), nil
}
