package records

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// A record may carry the guards' request context of its result in a
// member "context" (docs/rescan.md, "The guards'
// request context"), the fields a worker reads from the headers
// Mcp-Principal, Mcp-Scopes and Mcp-Request-Params:
//
//	"context":{"principal":"alice","scopes":["docs:read"],"requestParams":{"uri":"https://…"}}
//
// Each member is optional and replaces the one of Options.Guard (the
// command's flags) for that record; the hooks (authorization, budget) are
// always Options.Guard's. A context that is not such an object, or out of
// the bounds below, answers the record with INVALID_CONTENT
// (bad-record-context), so that a guard never acts on part of it.

// Bounds of a record's context, the worker's header bounds.
const (
	maxContextBytes   = MaxRequestParamsBytes + 16<<10
	maxContextScopes  = 64
	maxScopeBytes     = 128
	maxPrincipalBytes = 256
	// MaxRequestParamsBytes bounds a context's requestParams (compacted).
	MaxRequestParamsBytes = 64 << 10
)

type recordContext struct {
	Principal     *string         `json:"principal"`
	Scopes        []string        `json:"scopes"`
	RequestParams json.RawMessage `json:"requestParams"`
}

// guardFor returns the guard input of a record whose context member is
// raw (nil: the record has none): base with the context's members in
// place of its own. ok is false when the context is not valid.
func guardFor(base *pipeline.GuardInput, raw []byte) (g *pipeline.GuardInput, ok bool) {
	if raw == nil {
		return base, true
	}
	// The bound is on the compacted value, which is what every way of
	// reading a record sees alike (the general way re-encodes it).
	var cb bytes.Buffer
	if json.Compact(&cb, raw) != nil || cb.Len() > maxContextBytes {
		return nil, false
	}
	raw = cb.Bytes()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c recordContext
	if err := dec.Decode(&c); err != nil || dec.More() || raw[0] != '{' {
		return nil, false
	}
	out := pipeline.GuardInput{}
	if base != nil {
		out = *base
	}
	if c.Principal != nil {
		if !token(*c.Principal, maxPrincipalBytes) {
			return nil, false
		}
		out.Principal = *c.Principal
	}
	if c.Scopes != nil {
		if len(c.Scopes) > maxContextScopes {
			return nil, false
		}
		for _, s := range c.Scopes {
			if !token(s, maxScopeBytes) {
				return nil, false
			}
		}
		out.Scopes = c.Scopes
	}
	if c.RequestParams != nil {
		var b bytes.Buffer
		if json.Compact(&b, c.RequestParams) != nil || b.Len() == 0 || b.Bytes()[0] != '{' || b.Len() > MaxRequestParamsBytes {
			return nil, false
		}
		out.Request = b.Bytes()
	}
	return &out, true
}

// token reports 1..max bytes of printable ASCII without space.
func token(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
