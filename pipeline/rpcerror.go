package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/errsan"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// A JSON-RPC error object (the "error" member of the top-level object: an
// envelope's error, a bare JSON-RPC error response) is held while it is
// read: its strings go through the string chain as any string, into a side
// buffer. When the member ends, the object is rewritten (rewriteRPCError)
// and written in its place:
//
//   - "code": kept when it is a number; else -32603.
//   - "message": the policy's message for the code (Errors.Map, the code
//     as written, "-32602"); else, under mode keep-actionable, the message
//     sanitized by package errsan; else, or when nothing actionable is
//     left, the JSON-RPC phrase of the code ("Invalid params").
//   - "data": by Errors.Data dropped (the default) or reduced to sanitized
//     strings, numbers, booleans and null (bounded). The data of a URL
//     elicitation required error (code -32042) is kept: each item of
//     data.elicitations that elicit.CheckURLRequest accepts and that holds
//     no redaction marker, as it was sanitized; the others are dropped
//     and counted.
//   - Any other member is dropped.
//
// A value that is not an object is rewritten the same way: a string as a
// message, anything else as data.

// CodeURLElicitationRequired is the JSON-RPC code of the URL elicitation
// required error (MCP 2025-11-25, URLElicitationRequiredError).
const CodeURLElicitationRequired = -32042

// maxRPCErrorBytes bounds the held, sanitized error object; a larger one
// rejects the message (BOUND_EXCEEDED, reason rpc-error-bytes).
const maxRPCErrorBytes = 1 << 20

// Bounds of data reduced under ErrorDataSanitize.
const (
	maxDataDepth   = 4       // containers below this depth are dropped
	maxDataEntries = 32      // members or items kept per container
	maxDataStrings = 8 << 10 // bytes of sanitized strings kept in all
)

// rpcErrState is the pass's state of the held error object.
type rpcErrState struct {
	on      bool
	changed bool // a rewriting changed what the chain wrote
	buf     []byte
}

// RPCErrorRecord is what the rewriting of a JSON-RPC error object did. It
// holds counts and kinds, never text.
type RPCErrorRecord struct {
	// Code is the error's code as written (restricted like Tool).
	Code string `json:"code,omitempty"`
	// Mode is the errors mode that applied.
	Mode string `json:"mode,omitempty"`
	// Message says where the delivered message came from: "mapped" (the
	// policy's message for the code), "sanitized" (the server's, through
	// the error sanitizer) or "phrase" (the JSON-RPC phrase of the code).
	Message string `json:"message,omitempty"`
	// Data is what became of data: "dropped", "sanitized",
	// "elicitations" (a URL elicitation required error), or empty when
	// there was none.
	Data string `json:"data,omitempty"`
	// Removed lists the kinds the error sanitizer removed from the
	// message and data strings.
	Removed []string `json:"removed,omitempty"`
	// Counts counts the removals: by errsan kind, plus "dropped-member"
	// (members other than code, message and data, and data members under
	// drop), "elicitation-refused" (URL elicitations that failed the
	// check) and "data-string" (data strings beyond the bound).
	Counts map[string]int64 `json:"counts,omitempty"`
	// Elicitations counts the URL elicitations kept.
	Elicitations int64 `json:"elicitations,omitempty"`
}

// rpcErrorMember reports whether the value about to begin is the "error"
// member of the top-level object.
func (p *pass) rpcErrorMember() bool {
	f := &p.stack[0]
	return f.obj && f.role == roleTop && !f.skip && string(f.key) == "error"
}

// beginRPCError starts holding the error object.
func (p *pass) beginRPCError() {
	p.rpc.on = true
	p.rpc.buf = p.rpc.buf[:0]
	p.em.pushSide(&p.rpc.buf, maxRPCErrorBytes)
}

// endRPCError ends the held error object at input offset off and writes
// its rewriting.
func (p *pass) endRPCError(off int64) {
	p.rpc.on = false
	if p.em.popSide() {
		p.failf(CodeBoundExceeded, string(wire.ReasonRPCErrorBytes), off)
		return
	}
	held := p.rpc.buf
	p.em.counted -= int64(len(held)) // counted when held
	out, rec, changed := p.e.rewriteRPCError(held)
	p.em.raw(out)
	p.ev.RPCError = rec
	p.rpc.changed = p.rpc.changed || changed
	if cap(p.rpc.buf) > 256<<10 {
		p.rpc.buf = nil
	}
}

// rpcPhrase is the JSON-RPC phrase of a code, the message of last resort.
func rpcPhrase(code int64) string {
	switch {
	case code == -32700:
		return "Parse error"
	case code == -32600:
		return "Invalid Request"
	case code == -32601:
		return "Method not found"
	case code == -32602:
		return "Invalid params"
	case code == -32603:
		return "Internal error"
	case code == CodeURLElicitationRequired:
		return "URL elicitation required"
	case code <= -32000 && code >= -32099:
		return "Server error"
	}
	return "The request failed."
}

// omap is a JSON object with its member order.
type omap struct {
	keys []string
	vals []any
}

func (m *omap) get(k string) (any, bool) {
	for i, key := range m.keys {
		if key == k {
			return m.vals[i], true
		}
	}
	return nil, false
}

// decodeOrdered reads one JSON value, objects as *omap, numbers as
// json.Number.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := &omap{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				m.keys, m.vals = append(m.keys, k), append(m.vals, v)
			}
			_, err := dec.Token()
			return m, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, errors.New("unexpected delimiter")
	}
	return tok, nil
}

// appendOrdered encodes v.
func appendOrdered(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case json.Number:
		return append(b, t...)
	case string:
		return AppendJSONString(b, t)
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOrdered(b, x)
		}
		return append(b, ']')
	case *omap:
		b = append(b, '{')
		for i, k := range t.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendJSONString(b, k), ':')
			b = appendOrdered(b, t.vals[i])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// rpcRewrite is the state of one rewriting.
type rpcRewrite struct {
	e      *Engine
	rec    *RPCErrorRecord
	counts errsan.Report // summed over the message and data strings
	budget int           // bytes of data strings left
	// dropped members, refused elicitations, data strings over the bound
	dropped, refused, overBudget int64
}

func (r *rpcRewrite) sanitize(s string) string {
	out, rep := r.e.errs.Sanitize(s)
	for k, n := range rep.Counts {
		r.counts.Counts[k] += n
	}
	r.counts.Cut = r.counts.Cut || rep.Cut
	return out
}

// rewriteRPCError rewrites the sanitized JSON value held of an error member
// (see the top of the file), says what it did and whether the result
// differs from held.
func (e *Engine) rewriteRPCError(held []byte) ([]byte, *RPCErrorRecord, bool) {
	rec := &RPCErrorRecord{}
	r := &rpcRewrite{e: e, rec: rec, budget: maxDataStrings}
	dec := json.NewDecoder(bytes.NewReader(held))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = errors.New("trailing data")
		}
	}
	var codeV, msgV, dataV any
	hasData := false
	switch t := v.(type) {
	case *omap:
		for i, k := range t.keys {
			switch k {
			case "code":
				codeV = t.vals[i]
			case "message":
				msgV = t.vals[i]
			case "data":
				dataV, hasData = t.vals[i], true
			default:
				r.dropped++
			}
		}
	case string:
		msgV = t
	default:
		dataV, hasData = v, v != nil
	}
	if err != nil {
		// What the pass wrote is JSON; this is a fault of ours. Nothing of
		// it is delivered.
		codeV, msgV, dataV, hasData = nil, nil, nil, false
	}
	code := int64(-32603)
	codeText := "-32603"
	if n, ok := codeV.(json.Number); ok {
		if c, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			code, codeText = c, string(n)
		}
	}
	rec.Code = safeLabel(codeText)
	pol := &e.pol.Errors
	rec.Mode = pol.modeFor(codeText)
	msg, mapped := pol.Map[codeText]
	rec.Message = "mapped"
	if !mapped {
		msg, rec.Message = rpcPhrase(code), "phrase"
		if s, ok := msgV.(string); ok && rec.Mode == ErrorModeKeepActionable {
			if clean := r.sanitize(s); clean != "" {
				msg, rec.Message = clean, "sanitized"
			}
		}
	}
	b := make([]byte, 0, 64+len(msg))
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = AppendJSONString(append(b, `,"message":`...), msg)
	if hasData {
		var data any
		keep := false
		switch {
		case code == CodeURLElicitationRequired:
			data, keep = r.elicitationData(dataV), true
			rec.Data = "elicitations"
		case pol.Data == ErrorDataSanitize:
			data, keep = r.reduce(dataV, 0)
			rec.Data = "sanitized"
		default:
			rec.Data = "dropped"
		}
		if keep {
			b = appendOrdered(append(b, `,"data":`...), data)
		}
	}
	b = append(b, '}')
	rec.Counts = errsanCounts(&r.counts)
	rec.Removed = r.counts.Kinds()
	for k, n := range map[string]int64{"dropped-member": r.dropped, "elicitation-refused": r.refused, "data-string": r.overBudget} {
		if n > 0 {
			if rec.Counts == nil {
				rec.Counts = map[string]int64{}
			}
			rec.Counts[k] = n
		}
	}
	return b, rec, !bytes.Equal(b, held)
}

// elicitationData keeps data.elicitations of a URL elicitation required
// error, each item checked like the URL elicitation guard; the other
// members of data go by the policy's Data.
func (r *rpcRewrite) elicitationData(v any) any {
	out := &omap{keys: []string{"elicitations"}, vals: []any{[]any{}}}
	m, ok := v.(*omap)
	if !ok {
		return out
	}
	marker := secretMarkerPrefix(r.e.pol.Rules.SecretMarker)
	var kept []any
	for i, k := range m.keys {
		if k != "elicitations" {
			if r.e.pol.Errors.Data == ErrorDataSanitize {
				if x, ok := r.reduce(m.vals[i], 1); ok {
					out.keys, out.vals = append(out.keys, k), append(out.vals, x)
				}
			} else {
				r.dropped++
			}
			continue
		}
		items, _ := m.vals[i].([]any)
		if _, isArr := m.vals[i].([]any); !isArr {
			r.refused++
		}
		for _, it := range items {
			raw := appendOrdered(nil, it)
			if _, err := elicit.CheckURLRequest(raw); err != nil || marker != "" && bytes.Contains(raw, []byte(marker)) {
				r.refused++
				continue
			}
			r.rec.Elicitations++
			kept = append(kept, it)
		}
	}
	if kept != nil {
		out.vals[0] = kept
	}
	return out
}

// reduce keeps v as sanitized strings, numbers, booleans and null, within
// the data bounds; it reports false for a value that is dropped.
func (r *rpcRewrite) reduce(v any, depth int) (any, bool) {
	switch t := v.(type) {
	case nil, bool, json.Number:
		return t, true
	case string:
		if r.budget <= 0 {
			r.overBudget++
			return nil, false
		}
		s := r.sanitize(t)
		if len(s) > r.budget {
			r.overBudget++
			s = s[:0]
		}
		r.budget -= len(s)
		return s, s != ""
	case []any:
		if depth >= maxDataDepth {
			return nil, false
		}
		out := []any{}
		for _, x := range t {
			if len(out) == maxDataEntries {
				break
			}
			if y, ok := r.reduce(x, depth+1); ok {
				out = append(out, y)
			}
		}
		return out, true
	case *omap:
		if depth >= maxDataDepth {
			return nil, false
		}
		out := &omap{}
		for i, k := range t.keys {
			if len(out.keys) == maxDataEntries {
				break
			}
			if errsan.Check(k) || strings.ContainsAny(k, "\n\t") {
				continue // a member name that is a path or a frame
			}
			if y, ok := r.reduce(t.vals[i], depth+1); ok {
				out.keys, out.vals = append(out.keys, k), append(out.vals, y)
			}
		}
		return out, true
	}
	return nil, false
}
