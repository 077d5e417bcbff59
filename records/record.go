package records

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/valyala/fastjson"
)

// recordWorker holds what one worker reuses from record to record.
type recordWorker struct {
	eng      *pipeline.Engine
	kind     pipeline.Kind
	framing  pipeline.Framing
	timeout  time.Duration
	evidence bool
	outBufs  *bufPool
	parser   fastjson.Parser
	// schParser parses an outputSchema text on the direct way.
	schParser fastjson.Parser
	// generalOnly sends every record the general way (tests compare both).
	generalOnly bool
	red         *scanners.Redactor  // for the echoed outputSchema
	norm        scanners.Normalizer // for the echoed outputSchema
	res         []byte
	sch         []byte
	echo        []byte // the sanitized outputSchema echoed on the line
	keys        map[string]struct{}
	out         lineOut // the result, written into a buffer of outBufs
	schemas     *schema.Cache
	memo        schemaMemo           // outputSchema texts already compiled and echoed
	memRecord   int                  // Options.MemRecordBytes: a big record's output spool memory
	spoolDir    string               // Options.SpoolDir
	guard       *pipeline.GuardInput // Options.Guard
}

// sanitize runs one record. A record that is not valid JSON, lacks a result
// or is too long gets a sanitized error result on its line, and so does a
// record with a member name twice (INVALID_JSON, duplicate-key, as in a
// message), a blank line (INVALID_JSON, empty-input), a framing that is not
// one (INVALID_CONTENT, unknown-framing), or an outputSchema that does not compile or whose echo would hold a
// member name twice once normalized (SCHEMA_INVALID, its schema written as
// null). An outputSchema that is absent or null means none. The record's
// "framing" ("bare", "jsonrpc" or "auto"), when present, says how its
// result is framed; otherwise Options.Framing does.
//
// A record whose envelope scanEnvelope reads goes the direct way: its
// result is passed to the engine as the slice of the line it is (compacted
// only when it holds whitespace), with no tree built. Any other record goes
// the general way, a fastjson parse of the line; both answer a record
// alike, which FuzzEnvelopeDifferential checks.
func (w *recordWorker) sanitize(ctx context.Context, r record) outcome {
	// Without an evidence sink the evidence's digests are never read.
	info := pipeline.MessageInfo{Kind: w.kind, Framing: w.framing, NoDigests: !w.evidence, Guard: w.guard}
	w.out.b = w.outBufs.get()
	var ev *pipeline.Evidence
	var err error
	var echoed bool
	var spool *pipeline.Spool
	if r.failed != nil {
		err = r.failed
	} else if r.big != nil {
		ev, echoed, spool, err = w.sanitizeBig(ctx, r, info)
		r.big.close()
	} else if r.tooLong {
		ev, err = w.eng.Reject(nil, &w.out, info, pipeline.CodeBoundExceeded, "record-too-long")
	} else if r.blank {
		ev, err = w.eng.Reject(bytes.NewReader(r.line), &w.out, info, pipeline.CodeInvalidJSON, string(wire.ReasonEmptyInput))
	} else if env, ok := scanEnvelope(r.line); ok && !w.generalOnly {
		ev, echoed, err = w.sanitizeEnvelope(ctx, r.line, env, info)
	} else {
		ev, echoed, err = w.sanitizeParsed(ctx, r.line, info)
	}
	var failed error
	if err != nil {
		// The record could not be answered (its output or its file
		// failed): its line still gets an error result, so that line N
		// out answers line N in, and the run reports the failure.
		failed, echoed = err, false
		if spool != nil {
			spool.Close()
			spool = nil
		}
		w.out.b = w.out.b[:0]
		if ev, err = w.eng.Reject(nil, &w.out, info, pipeline.CodeInternal, string(wire.ReasonInternalFault)); err != nil {
			w.outBufs.put(w.out.b)
			w.out.b = nil
			return outcome{seq: r.seq, err: failed}
		}
	}
	// The line is head and body: the members before the result, and the
	// result the engine wrote into its own buffer, so it is not copied.
	head := w.outBufs.get()
	head = append(head, `{"tool":`...)
	head = strconv.AppendQuote(head, ev.Tool) // restricted to [A-Za-z0-9_.:/-]
	head = append(head, `,"outputSchema":`...)
	if echoed {
		head = append(head, w.echo...)
	} else {
		head = append(head, "null"...)
	}
	head = append(head, `,"result":`...)
	body := append(w.out.b, '}')
	w.out.b = nil
	if spool != nil {
		body = append(body[:0], '}') // the result is in the spool
	}
	var evb []byte
	if w.evidence {
		// AppendJSON writes what encoding/json.Marshal would, without
		// reflection.
		evb = append(ev.AppendJSON(w.outBufs.get()), '\n')
	}
	return outcome{seq: r.seq, head: head, line: body, spool: spool, evidence: evb, err: failed}
}

// sanitizeEnvelope answers a record from its scanned envelope. It reports
// whether the record's outputSchema is echoed (w.echo).
func (w *recordWorker) sanitizeEnvelope(ctx context.Context, line []byte, env envelope, info pipeline.MessageInfo) (*pipeline.Evidence, bool, error) {
	eng := w.eng
	if t, ok := stringContent(env.tool); ok {
		info.Tool = string(t)
	}
	if env.framing != nil {
		fr, isString := stringContent(env.framing)
		f, ok := pipeline.ParseFraming(string(fr))
		if !ok || !isString {
			ev, err := eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidContent, string(wire.ReasonUnknownFraming))
			return ev, false, err
		}
		info.Framing = f
	}
	if g, ok := guardFor(w.guard, env.context); !ok {
		ev, err := eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidContent, string(wire.ReasonBadRecordContext))
		return ev, false, err
	} else {
		info.Guard = g
	}
	echoed := false
	if env.schema != nil && string(env.schema) != "null" {
		text := env.schema
		if env.schemaWS {
			w.sch = appendCompact(w.sch[:0], env.schema)
			text = w.sch
		}
		s, code, reason := w.outputSchema(text, nil)
		if s == nil {
			ev, err := eng.Reject(bytes.NewReader(line), &w.out, info, code, reason)
			return ev, false, err
		}
		info.OutputSchema = s
		echoed = true
	}
	res := env.result
	if env.resultWS {
		w.res = appendCompact(w.res[:0], env.result)
		res = w.res
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout)
	ev, err := eng.Sanitize(cctx, bytes.NewReader(res), &w.out, info)
	cancel()
	return ev, echoed, err
}

// sanitizeParsed answers a record from a fastjson parse of the whole line.
// It reports whether the record's outputSchema is echoed (w.echo).
func (w *recordWorker) sanitizeParsed(ctx context.Context, line []byte, info pipeline.MessageInfo) (*pipeline.Evidence, bool, error) {
	eng := w.eng
	var ev *pipeline.Evidence
	var err error
	var sv *fastjson.Value
	switch v, perr := w.parser.ParseBytes(line); {
	case perr != nil:
		ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidJSON, "bad-record")
	case v.Type() != fastjson.TypeObject || v.Get("result") == nil:
		ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidJSON, "record-without-result")
	case w.duplicateKey(v):
		ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidJSON, string(wire.ReasonDuplicateKey))
	default:
		if t := v.Get("tool"); t != nil && t.Type() == fastjson.TypeString {
			info.Tool = string(t.GetStringBytes())
		}
		if fr := v.Get("framing"); fr != nil {
			f, ok := pipeline.ParseFraming(string(fr.GetStringBytes()))
			if !ok || fr.Type() != fastjson.TypeString {
				ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidContent, string(wire.ReasonUnknownFraming))
				break
			}
			info.Framing = f
		}
		if c := v.Get("context"); c != nil {
			g, ok := guardFor(w.guard, c.MarshalTo(nil))
			if !ok {
				ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, pipeline.CodeInvalidContent, string(wire.ReasonBadRecordContext))
				break
			}
			info.Guard = g
		}
		sv = v.Get("outputSchema")
		if sv != nil && sv.Type() != fastjson.TypeNull {
			w.sch = sv.MarshalTo(w.sch[:0])
			s, code, reason := w.outputSchema(w.sch, sv)
			if s == nil {
				sv = nil
				ev, err = eng.Reject(bytes.NewReader(line), &w.out, info, code, reason)
				break
			}
			info.OutputSchema = s
		}
		w.res = v.Get("result").MarshalTo(w.res[:0])
		cctx, cancel := context.WithTimeout(ctx, w.timeout)
		ev, err = eng.Sanitize(cctx, bytes.NewReader(w.res), &w.out, info)
		cancel()
	}
	return ev, sv != nil && sv.Type() != fastjson.TypeNull, err
}

// outputSchema compiles the record's outputSchema, text as fastjson's
// MarshalTo writes it (the value compacted), and leaves its echo in w.echo;
// a text this worker saw before is taken from its memo. sv is the parsed
// schema, or nil: then text is parsed when the echo has to be built. When
// the schema does not compile, or its echo would hold a member name twice,
// it returns nil with the code and reason of the record's error result.
func (w *recordWorker) outputSchema(text []byte, sv *fastjson.Value) (*schema.Schema, pipeline.Code, string) {
	if m, ok := w.memo.get(text); ok {
		w.echo = append(w.echo[:0], m.echo...)
		return m.s, "", ""
	}
	s, serr := w.schemas.Compile(text)
	if serr != nil {
		return nil, pipeline.CodeSchemaInvalid, strings.ToLower(strings.ReplaceAll(string(schema.CodeOf(serr)), "_", "-"))
	}
	if sv == nil {
		v, err := w.schParser.ParseBytes(text)
		if err != nil { // text was scanned as fastjson reads it: cannot happen
			return nil, pipeline.CodeSchemaInvalid, strings.ToLower(strings.ReplaceAll(string(schema.CodeInvalid), "_", "-"))
		}
		sv = v
	}
	// The schema comes from the same untrusted server as the result
	// (descriptions are a known place for injected instructions): it is
	// echoed with every member name and string normalized and redacted, as
	// the result's strings are. Two names that differ only before
	// normalization would be one name twice in the echo: refused.
	var ok bool
	if w.echo, ok = w.appendSanitizedJSON(w.echo[:0], sv); !ok {
		return nil, pipeline.CodeSchemaInvalid, string(wire.ReasonSchemaKeyCollision)
	}
	w.memo.put(text, s, w.echo)
	return s, "", ""
}

// duplicateKey reports whether the record object v holds a member name
// twice (fastjson keeps both; which one Get returns is not what a reader
// of the line would assume).
func (w *recordWorker) duplicateKey(v *fastjson.Value) bool {
	o, _ := v.Object()
	if w.keys == nil {
		w.keys = map[string]struct{}{}
	}
	clear(w.keys)
	dup := false
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if _, ok := w.keys[string(k)]; ok {
			dup = true
		}
		w.keys[string(k)] = struct{}{}
	})
	return dup
}

// appendSanitizedJSON appends v as JSON with every string, member names
// included, normalized and redacted by the engine's catalog (findings are
// not recorded: the record's evidence is about its result). It reports
// false when two member names of one object are equal once sanitized.
func (w *recordWorker) appendSanitizedJSON(dst []byte, v *fastjson.Value) ([]byte, bool) {
	ok := true
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		dst = append(dst, '{')
		first := true
		var seen map[string]struct{}
		if o.Len() > 1 {
			seen = make(map[string]struct{}, o.Len())
		}
		o.Visit(func(k []byte, x *fastjson.Value) {
			if !ok {
				return
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			start := len(dst)
			dst = w.appendSanitizedString(dst, k)
			if seen != nil {
				name := string(dst[start:])
				if _, dup := seen[name]; dup {
					ok = false
					return
				}
				seen[name] = struct{}{}
			}
			dst = append(dst, ':')
			dst, ok = w.appendSanitizedJSON(dst, x)
		})
		return append(dst, '}'), ok
	case fastjson.TypeArray:
		a, _ := v.Array()
		dst = append(dst, '[')
		for i, x := range a {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = w.appendSanitizedJSON(dst, x); !ok {
				break
			}
		}
		return append(dst, ']'), ok
	case fastjson.TypeString:
		return w.appendSanitizedString(dst, v.GetStringBytes()), true
	}
	return v.MarshalTo(dst), true // number, true, false, null
}

// appendSanitizedString appends s, normalized and redacted, as a JSON string.
func (w *recordWorker) appendSanitizedString(dst, s []byte) []byte {
	if w.red == nil {
		var key [32]byte
		rand.Read(key[:]) // fingerprints are not kept; the key only has to exist
		w.red = w.eng.Catalog().NewRedactor(key[:])
	}
	w.norm.Reset()
	t := w.norm.Append(nil, []byte(strings.ToValidUTF8(string(s), "\uFFFD")), true)
	t, _ = w.red.Append(nil, t, true, nil) // final: the redactor is reset
	b, _ := json.Marshal(string(t))
	return append(dst, b...)
}

// lineOut is the pipeline.Output of a record's result: it appends to b.
type lineOut struct{ b []byte }

func (o *lineOut) Write(p []byte) (int, error) { o.b = append(o.b, p...); return len(p), nil }

// Discard forgets what was written.
func (o *lineOut) Discard() error { o.b = o.b[:0]; return nil }
