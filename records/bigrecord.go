package records

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// A record line longer than Options.MemRecordBytes is a big record: the
// reader writes it to an unlinked temporary file instead of memory, its
// envelope is found by a scan of the file (bigScanner), its result goes to
// the engine as a section of the file, and its output through a
// pipeline.Spool (memory up to MemRecordBytes, then a file). So a record's
// memory is bounded like a single message's in `scan`, whatever its size
// up to MaxRecordBytes.
//
// A big record is answered as a small one would be, with one difference:
// the scan takes JSON as the pipeline's lexer does, so a top-level member
// that fastjson reads and JSON does not (NaN, Inf) makes the record
// INVALID_JSON (bad-record) where a small record's unread member would be
// ignored. Top-level member names and the tool and framing strings are
// unescaped as fastjson does; a top-level member name longer than
// maxBigName bytes makes the record INVALID_JSON (bad-record).

// maxBigName bounds a top-level member name of a big record, and
// maxBigString its tool and framing values.
const (
	maxBigName   = 4 << 10
	maxBigString = 64 << 10
)

// bigLine is the file of a big record's line.
type bigLine struct {
	f *os.File
	n int64 // the line's length, without its line end
}

func (b *bigLine) close() { b.f.Close() }

// section is the bytes [off, off+n) of the line.
func (b *bigLine) section(off, n int64) *io.SectionReader { return io.NewSectionReader(b.f, off, n) }

// newBigLine moves a line being read to an unlinked file in dir, with the
// bytes read so far.
func newBigLine(dir string, head []byte) (*bigLine, error) {
	f, err := os.CreateTemp(dir, "mcp-sanitize-record-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
	b := &bigLine{f: f}
	if err := b.write(head); err != nil {
		f.Close()
		return nil, err
	}
	return b, nil
}

func (b *bigLine) write(p []byte) error {
	n, err := b.f.Write(p)
	b.n += int64(n)
	return err
}

// trimEnd drops the line end (every trailing CR and LF), as a small line's
// bytes.TrimRight(line, "\r\n").
func (b *bigLine) trimEnd() error {
	var tail [64]byte
	for b.n > 0 {
		k := min(int64(len(tail)), b.n)
		if _, err := b.f.ReadAt(tail[:k], b.n-k); err != nil {
			return err
		}
		t := bytes.TrimRight(tail[:k], "\r\n")
		b.n -= k - int64(len(t))
		if len(t) > 0 {
			return nil
		}
	}
	return nil
}

// bigMember is the place of a top-level member's value in the line.
type bigMember struct {
	off, n int64
	ws     bool // whitespace outside strings inside the value
	found  bool
}

// bigEnvelope is what the scan of a big record found.
type bigEnvelope struct {
	tool, framing, schema, result bigMember
	context                       bigMember
}

// bigScanner reads a big record's line once, keeping track of the offset.
type bigScanner struct {
	r   *bufio.Reader
	off int64
	ws  bool // whitespace skipped inside the value being scanned
	buf []byte
}

var errBigSyntax = errors.New("records: not JSON")

func (s *bigScanner) next() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			return 0, errBigSyntax
		}
		return 0, err
	}
	s.off++
	return c, nil
}

// nonWS returns the next byte that is not whitespace; eof reports the end
// of the line instead of an error.
func (s *bigScanner) nonWS() (c byte, eof bool, err error) {
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF {
			return 0, true, nil
		}
		if err != nil {
			return 0, false, err
		}
		s.off++
		if !isWS(c) {
			return c, false, nil
		}
		s.ws = true
	}
}

// str reads the rest of a string whose opening quote was read, keeping at
// most keep bytes of its raw content in s.buf (keep < 0: none); over
// keep, s.buf is nil.
func (s *bigScanner) str(keep int) error {
	s.buf = s.buf[:0]
	over := keep < 0
	backslashes := 0
	for {
		frag, err := s.r.ReadSlice('"')
		s.off += int64(len(frag))
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				return errBigSyntax
			}
			return err
		}
		body := frag
		done := false
		if err == nil {
			body = frag[:len(frag)-1]
			// The quote ends the string unless an odd run of backslashes
			// (which may have begun in an earlier fragment) precedes it.
			run := len(body) - len(bytes.TrimRight(body, `\`))
			if run == len(body) {
				run += backslashes
			}
			done = run%2 == 0
		}
		if !over {
			if len(s.buf)+len(frag) > keep {
				over = true
				s.buf = nil
			} else {
				s.buf = append(s.buf, frag...)
			}
		}
		if done {
			if !over {
				s.buf = s.buf[:len(s.buf)-1]
			}
			return nil
		}
		if err == nil {
			backslashes = 0 // an escaped quote: the run ended with it
			continue
		}
		run := len(frag) - len(bytes.TrimRight(frag, `\`))
		if run == len(frag) {
			backslashes += run
		} else {
			backslashes = run
		}
	}
}

// value skips a value whose first byte c was read, at depth (the record
// object is depth 1).
func (s *bigScanner) value(c byte, depth int) error {
	if depth > fastjson.MaxDepth {
		return errBigSyntax
	}
	switch c {
	case '"':
		return s.str(-1)
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		c, eof, err := s.nonWS()
		if err != nil || eof {
			return orSyntax(err)
		}
		if c == end {
			return nil
		}
		for {
			if end == '}' {
				if c != '"' {
					return errBigSyntax
				}
				if err := s.str(-1); err != nil {
					return err
				}
				if c, eof, err = s.nonWS(); err != nil || eof || c != ':' {
					return orSyntax(err)
				}
				if c, eof, err = s.nonWS(); err != nil || eof {
					return orSyntax(err)
				}
			}
			if err := s.value(c, depth+1); err != nil {
				return err
			}
			if c, eof, err = s.nonWS(); err != nil || eof {
				return orSyntax(err)
			}
			switch c {
			case end:
				return nil
			case ',':
			default:
				return errBigSyntax
			}
			if c, eof, err = s.nonWS(); err != nil || eof {
				return orSyntax(err)
			}
		}
	case 't':
		return s.literal("rue")
	case 'f':
		return s.literal("alse")
	case 'n':
		return s.literal("ull")
	}
	if !isNumberByte(c) {
		return errBigSyntax
	}
	n := 1
	for {
		b, err := s.r.Peek(1)
		if err != nil || !isNumberByte(b[0]) {
			break
		}
		s.r.ReadByte()
		s.off++
		n++
	}
	if n == 1 && (c == '-' || c == '+') {
		return errBigSyntax
	}
	return nil
}

func (s *bigScanner) literal(rest string) error {
	for i := 0; i < len(rest); i++ {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c != rest[i] {
			return errBigSyntax
		}
	}
	return nil
}

func orSyntax(err error) error {
	if err != nil {
		return err
	}
	return errBigSyntax
}

// scanBig finds the envelope of a big record. reason is "" for a record
// the engine can take, else the reason of its INVALID_JSON error result
// (as the general path answers the record); err is a read error.
func scanBig(line *bigLine) (env bigEnvelope, reason string, err error) {
	s := bigScanner{r: bufio.NewReaderSize(line.section(0, line.n), 64<<10)}
	fail := func(err error) (bigEnvelope, string, error) {
		reason, err := syntaxReason(err)
		return env, reason, err
	}
	c, eof, err := s.nonWS()
	switch {
	case err != nil:
		return env, "", err
	case eof:
		return env, string(wire.ReasonEmptyInput), nil
	case c != '{':
		// Not an object: bad JSON, or JSON without a result.
		if err := s.value(c, 1); err != nil {
			return fail(err)
		}
		if _, eof, err := s.nonWS(); err != nil || !eof {
			return fail(orSyntax(err))
		}
		return env, "record-without-result", nil
	}
	names := map[string]struct{}{}
	dup := false
	c, eof, err = s.nonWS()
	if err != nil || eof {
		return fail(orSyntax(err))
	}
	for c != '}' {
		if c != '"' {
			return fail(errBigSyntax)
		}
		if err := s.str(maxBigName); err != nil {
			return fail(err)
		}
		if s.buf == nil {
			return env, "bad-record", nil // a name past maxBigName
		}
		name, ok := unquote(s.buf)
		if !ok {
			return env, "bad-record", nil
		}
		if _, seen := names[name]; seen {
			dup = true
		}
		names[name] = struct{}{}
		if c, eof, err = s.nonWS(); err != nil || eof || c != ':' {
			return fail(orSyntax(err))
		}
		if c, eof, err = s.nonWS(); err != nil || eof {
			return fail(orSyntax(err))
		}
		m := bigMember{off: s.off - 1, found: true}
		s.ws = false
		if err := s.value(c, 2); err != nil {
			return fail(err)
		}
		m.n, m.ws = s.off-m.off, s.ws
		switch name {
		case "tool":
			env.tool = m
		case "framing":
			env.framing = m
		case "context":
			env.context = m
		case "outputSchema":
			env.schema = m
		case "result":
			env.result = m
		}
		if c, eof, err = s.nonWS(); err != nil || eof {
			return fail(orSyntax(err))
		}
		if c == '}' {
			break
		}
		if c != ',' {
			return fail(errBigSyntax)
		}
		if c, eof, err = s.nonWS(); err != nil || eof {
			return fail(orSyntax(err))
		}
		if c == '}' {
			return fail(errBigSyntax) // a trailing comma
		}
	}
	if _, eof, err := s.nonWS(); err != nil || !eof {
		return fail(orSyntax(err))
	}
	switch {
	case dup:
		return env, string(wire.ReasonDuplicateKey), nil
	case !env.result.found:
		return env, "record-without-result", nil
	}
	return env, "", nil
}

// syntaxReason maps a scan error to the reason of the record's error
// result, or passes a read error on.
func syntaxReason(err error) (string, error) {
	if errors.Is(err, errBigSyntax) {
		return "bad-record", nil
	}
	return "", err
}

// unquote decodes the raw content of a JSON string (between its quotes) as
// fastjson does for a small record (an escape it does not know is kept as
// written).
func unquote(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	var p fastjson.Parser
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	v, err := p.ParseBytes(q)
	if err != nil || v.Type() != fastjson.TypeString {
		return "", false
	}
	return string(v.GetStringBytes()), true
}

// readSmall reads a member value of at most max bytes; ok is false when it
// is longer.
func readSmall(line *bigLine, m bigMember, max int64) ([]byte, bool, error) {
	if m.n > max {
		return nil, false, nil
	}
	b := make([]byte, m.n)
	_, err := line.f.ReadAt(b, m.off)
	return b, err == nil, err
}

// compactReader removes the whitespace outside strings of the JSON text it
// reads, as appendCompact does.
type compactReader struct {
	r      *bufio.Reader
	inStr  bool
	escape bool
}

func (c *compactReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		b, err := c.r.ReadByte()
		if err != nil {
			if n > 0 && err == io.EOF {
				return n, nil
			}
			return n, err
		}
		switch {
		case c.escape:
			c.escape = false
		case c.inStr && b == '\\':
			c.escape = true
		case b == '"':
			c.inStr = !c.inStr
		case !c.inStr && isWS(b):
			continue
		}
		p[n] = b
		n++
	}
	return n, nil
}

// sanitizeBig answers a big record. Its output goes to a spool, which the
// outcome hands to the writer.
func (w *recordWorker) sanitizeBig(ctx context.Context, r record, info pipeline.MessageInfo) (*pipeline.Evidence, bool, *pipeline.Spool, error) {
	line := r.big
	out := &pipeline.Spool{MemBytes: w.memRecord, Dir: w.spoolDir}
	reject := func(code pipeline.Code, reason string) (*pipeline.Evidence, bool, *pipeline.Spool, error) {
		ev, err := w.eng.Reject(line.section(0, line.n), out, info, code, reason)
		return ev, false, out, err
	}
	env, reason, err := scanBig(line)
	if err != nil {
		out.Close()
		return nil, false, nil, err
	}
	if reason != "" {
		return reject(pipeline.CodeInvalidJSON, reason)
	}
	if env.tool.found {
		if v, ok, err := readSmall(line, env.tool, maxBigString); err != nil {
			out.Close()
			return nil, false, nil, err
		} else if ok && len(v) > 0 && v[0] == '"' {
			if t, ok := unquote(v[1 : len(v)-1]); ok {
				info.Tool = t
			}
		}
	}
	if env.framing.found {
		v, ok, err := readSmall(line, env.framing, maxBigString)
		if err != nil {
			out.Close()
			return nil, false, nil, err
		}
		var f pipeline.Framing
		if ok && len(v) > 0 && v[0] == '"' {
			if t, uok := unquote(v[1 : len(v)-1]); uok {
				f, ok = pipeline.ParseFraming(t)
			} else {
				ok = false
			}
		} else {
			ok = false
		}
		if !ok {
			return reject(pipeline.CodeInvalidContent, string(wire.ReasonUnknownFraming))
		}
		info.Framing = f
	}
	if env.context.found {
		v, ok, err := readSmall(line, env.context, int64(max(w.memRecord, maxContextBytes)))
		if err != nil {
			out.Close()
			return nil, false, nil, err
		}
		g, gok := guardFor(w.guard, v)
		if !ok || !gok {
			return reject(pipeline.CodeInvalidContent, string(wire.ReasonBadRecordContext))
		}
		info.Guard = g
	}
	echoed := false
	if env.schema.found {
		v, ok, err := readSmall(line, env.schema, int64(max(w.memRecord, schema.DefaultMaxSchemaBytes)))
		if err != nil {
			out.Close()
			return nil, false, nil, err
		}
		if !ok {
			return reject(pipeline.CodeSchemaInvalid, strings.ToLower(strings.ReplaceAll(string(schema.CodeTooLarge), "_", "-")))
		}
		if string(v) != "null" {
			if env.schema.ws {
				v = appendCompact(nil, v)
			}
			s, code, reason := w.outputSchema(v, nil)
			if s == nil {
				return reject(code, reason)
			}
			info.OutputSchema = s
			echoed = true
		}
	}
	var res io.Reader = line.section(env.result.off, env.result.n)
	if env.result.ws {
		res = &compactReader{r: bufio.NewReaderSize(res, 64<<10)}
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout)
	ev, err := w.eng.Sanitize(cctx, res, out, info)
	cancel()
	if err != nil {
		out.Close()
		return nil, false, nil, err
	}
	return ev, echoed, out, nil
}
