package pipeline

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the JSON encoding of e to dst and returns the extended
// buffer. The bytes are exactly what encoding/json.Marshal(e) writes (the
// same member order, omitempty rules, sorted map keys and string escaping,
// HTML characters included); TestEvidenceAppendJSON checks every field
// against it. The worker encodes one record per message, and reflection
// was a measurable part of its cost.
//
// AppendOpen is the same without the closing brace, for a record that adds
// members of its own after the evidence's.
func (e *Evidence) AppendJSON(dst []byte) []byte {
	return append(e.AppendOpen(dst), '}')
}

// AppendOpen appends the JSON object of e without its closing brace (it is
// never empty: version, kind and the digests are always written).
func (e *Evidence) AppendOpen(dst []byte) []byte {
	b := append(dst, `{"version":`...)
	b = AppendJSONString(b, e.Version)
	b = append(b, `,"kind":`...)
	b = AppendJSONString(b, e.Kind)
	b = optString(b, `,"tool":`, e.Tool)
	b = optString(b, `,"server":`, e.Server)
	b = optString(b, `,"tenant":`, e.Tenant)
	b = optString(b, `,"requestId":`, e.RequestID)
	b = append(b, `,"policyVersion":`...)
	b = AppendJSONString(b, e.PolicyVersion)
	b = append(b, `,"guardVersion":`...)
	b = AppendJSONString(b, e.GuardVersion)
	b = append(b, `,"normalization":`...)
	b = AppendJSONString(b, e.Normalization)
	b = append(b, `,"outcome":`...)
	b = AppendJSONString(b, string(e.Outcome))
	b = optString(b, `,"code":`, string(e.Code))
	b = optString(b, `,"reason":`, e.Reason)
	b = optInt(b, `,"errorOffset":`, e.ErrorOffset)
	b = optString(b, `,"errorPointer":`, e.ErrorPointer)
	b = optString(b, `,"idNullReason":`, e.IDNullReason)
	b = appendDigest(append(b, `,"input":`...), e.Input)
	b = appendDigest(append(b, `,"output":`...), e.Output)
	b = strconv.AppendInt(append(b, `,"nodes":`...), e.Nodes, 10)
	b = strconv.AppendInt(append(b, `,"depth":`...), e.Depth, 10)
	b = strconv.AppendInt(append(b, `,"strings":`...), e.Strings, 10)
	b = optCounts(b, `,"rules":`, e.Rules)
	b = optCounts(b, `,"removed":`, e.Removed)
	b = optInt(b, `,"invalidUTF8":`, e.InvalidUTF8)
	b = optInt(b, `,"nfkcChangedStrings":`, e.NFKCChanged)
	b = optInt(b, `,"confusablesFolded":`, e.ConfusablesFolded)
	b = optInt(b, `,"escapesDecoded":`, e.EscapesDecoded)
	b = optInt(b, `,"droppedMetaKeys":`, e.DroppedKeys)
	if len(e.Bounds) > 0 {
		b = append(b, `,"bounds":[`...)
		for i := range e.Bounds {
			h := &e.Bounds[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(append(b, `{"bound":`...), h.Bound)
			b = AppendJSONString(append(b, `,"action":`...), h.Action)
			b = AppendJSONString(append(b, `,"pointer":`...), h.Pointer)
			b = strconv.AppendInt(append(b, `,"count":`...), h.Count, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(e.Findings) > 0 {
		b = append(b, `,"findings":[`...)
		for i := range e.Findings {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.Findings[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = optInt(b, `,"findingsNotListed":`, e.FindingsCut)
	b = optString(b, `,"schemaSha256":`, e.SchemaSHA256)
	if e.Schema != nil {
		b = e.Schema.appendJSON(append(b, `,"schema":`...))
	}
	if e.ToolError != nil {
		b = e.ToolError.appendJSON(append(b, `,"toolError":`...))
	}
	if e.RPCError != nil {
		b = e.RPCError.appendJSON(append(b, `,"rpcError":`...))
	}
	if len(e.Binary) > 0 {
		b = append(b, `,"binary":[`...)
		for i := range e.Binary {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.Binary[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if e.Guard != nil {
		b = e.Guard.appendJSON(append(b, `,"guard":`...))
	}
	b = optInt(b, `,"identifierSecrets":`, e.IdentifierSecrets)
	if len(e.Suppressed) > 0 {
		b = append(b, `,"suppressed":[`...)
		for i := range e.Suppressed {
			if i > 0 {
				b = append(b, ',')
			}
			s := &e.Suppressed[i]
			b = AppendJSONString(append(b, `{"rule":`...), s.Rule)
			b = AppendJSONString(append(b, `,"pointer":`...), s.Pointer)
			b = strconv.AppendInt(append(b, `,"offset":`...), s.Offset, 10)
			b = strconv.AppendInt(append(b, `,"length":`...), int64(s.Length), 10)
			b = optString(b, `,"fingerprint":`, s.Fingerprint)
			b = strconv.AppendInt(append(b, `,"entry":`...), int64(s.Entry), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = optInt(b, `,"suppressedCount":`, e.SuppressedCount)
	b = strconv.AppendInt(append(b, `,"durationNanos":`...), e.DurationNanos, 10)
	return b
}

func (f *FindingRecord) appendJSON(b []byte) []byte {
	b = AppendJSONString(append(b, `{"rule":`...), f.Rule)
	b = AppendJSONString(append(b, `,"kind":`...), f.Kind)
	b = AppendJSONString(append(b, `,"pointer":`...), f.Pointer)
	if f.InKey {
		b = append(b, `,"inKey":true`...)
	}
	b = strconv.AppendInt(append(b, `,"inputOffset":`...), f.InputOffset, 10)
	b = strconv.AppendInt(append(b, `,"offset":`...), f.Offset, 10)
	b = strconv.AppendInt(append(b, `,"length":`...), int64(f.Length), 10)
	b = optString(b, `,"checksum":`, f.Checksum)
	b = optString(b, `,"encoding":`, f.Encoding)
	b = optString(b, `,"fingerprint":`, f.Fingerprint)
	b = optString(b, `,"endPointer":`, f.EndPointer)
	return append(b, '}')
}

func (s *SchemaRecord) appendJSON(b []byte) []byte {
	b = AppendJSONString(append(b, `{"digest":`...), s.Digest)
	b = AppendJSONString(append(b, `,"outcome":`...), s.Outcome)
	b = optString(b, `,"keyword":`, s.Keyword)
	b = optString(b, `,"instancePointer":`, s.InstancePointer)
	b = optString(b, `,"schemaPointer":`, s.SchemaPointer)
	b = optStrings(b, `,"projected":`, s.Projected)
	b = optInt(b, `,"projectedCount":`, int64(s.ProjectedCount))
	b = optInt(b, `,"mirrors":`, int64(s.Mirrors))
	return append(b, '}')
}

func (t *ToolErrorRecord) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if t.Code != "" {
		b = AppendJSONString(append(b, `"code":`...), t.Code)
		b = append(b, ',')
	}
	if t.Source != "" {
		b = AppendJSONString(append(b, `"source":`...), t.Source)
		b = append(b, ',')
	}
	b = strconv.AppendBool(append(b, `"mapped":`...), t.Mapped)
	b = optStrings(b, `,"removed":`, t.Removed)
	b = optString(b, `,"mode":`, t.Mode)
	if t.Sanitized {
		b = append(b, `,"sanitized":true`...)
	}
	b = optCounts(b, `,"counts":`, t.Counts)
	if t.Cut {
		b = append(b, `,"cut":true`...)
	}
	return append(b, '}')
}

func (r *RPCErrorRecord) appendJSON(b []byte) []byte {
	n := len(b)
	b = append(b, '{')
	b = optString(b, `,"code":`, r.Code)
	b = optString(b, `,"mode":`, r.Mode)
	b = optString(b, `,"message":`, r.Message)
	b = optString(b, `,"data":`, r.Data)
	b = optStrings(b, `,"removed":`, r.Removed)
	b = optCounts(b, `,"counts":`, r.Counts)
	b = optInt(b, `,"elicitations":`, r.Elicitations)
	if len(b) > n+1 {
		b = append(b[:n+1], b[n+2:]...) // the first member's comma
	}
	return append(b, '}')
}

func appendDigest(b []byte, d Digest) []byte {
	b = strconv.AppendInt(append(b, `{"bytes":`...), d.Bytes, 10)
	b = AppendJSONString(append(b, `,"digest":`...), d.Digest)
	return append(b, '}')
}

// optString writes member (",\"name\":") and s unless s is empty
// (omitempty).
func optString(b []byte, member, s string) []byte {
	if s == "" {
		return b
	}
	return AppendJSONString(append(b, member...), s)
}

func optInt(b []byte, member string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, member...), v, 10)
}

func optStrings(b []byte, member string, s []string) []byte {
	if len(s) == 0 {
		return b
	}
	b = append(b, member...)
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, v)
	}
	return append(b, ']')
}

// optCounts writes a map of counts with its keys sorted, as encoding/json
// does; an empty map is omitted.
func optCounts(b []byte, member string, m map[string]int64) []byte {
	if len(m) == 0 {
		return b
	}
	var stack [32]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, member...)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, m[k], 10)
	}
	return append(b, '}')
}

// jsonPlain marks the bytes AppendJSONString copies as they are: printable
// ASCII but '"', '\\' and the HTML characters <, > and &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendJSONString appends s as a JSON string the way encoding/json does:
// '"' and '\\' escaped, \b \f \n \r \t short, other control characters and
// the HTML characters <, > and & as \u00XX, U+2028 and U+2029 as \u2028 and
// \u2029, invalid UTF-8 as \ufffd.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most of a record's strings (digests, rule ids, pointers,
		// fingerprints) are plain ASCII: one table load a byte.
		for i < len(s) && jsonPlain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
