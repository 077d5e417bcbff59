// Package resultdoc reads one MCP result held in memory, bare or inside a
// JSON-RPC response, for the guards that need the whole result at once
// (resgate, promptgate), and writes it back in the same framing.
//
// It is for small results under a cap the caller sets: the guards run
// before the streaming pass, on results whose size their policy bounds.
// Decoding is strict (internal/strictjson: no duplicate member, valid
// UTF-8, bounded depth); numbers keep their literal.
package resultdoc

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// MaxDepth is the deepest nesting decoded.
const MaxDepth = 64

// Errors.
var (
	// ErrMalformed: not strict JSON, or not a result object.
	ErrMalformed = errors.New("resultdoc: malformed result")
)

// Doc is one decoded message.
type Doc struct {
	// Result is the result object (nil for a JSON-RPC error response).
	Result map[string]any
	// envelope is the JSON-RPC response around it, or nil when bare.
	envelope map[string]any
}

// IsError reports a JSON-RPC error response (no result to guard).
func (d *Doc) IsError() bool { return d.Result == nil }

// Decode reads data: a JSON-RPC 2.0 response (an object with "jsonrpc"
// and "result" or "error") or a bare result object.
func Decode(data []byte) (*Doc, error) {
	v, err := strictjson.Decode(data, MaxDepth)
	if err != nil {
		return nil, ErrMalformed
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ErrMalformed
	}
	if _, rpc := m["jsonrpc"]; rpc {
		if r, ok := m["result"].(map[string]any); ok {
			if _, both := m["error"]; both {
				return nil, ErrMalformed
			}
			return &Doc{Result: r, envelope: m}, nil
		}
		if _, ok := m["error"]; ok {
			if _, both := m["result"]; both {
				return nil, ErrMalformed
			}
			return &Doc{envelope: m}, nil
		}
		return nil, ErrMalformed
	}
	return &Doc{Result: m}, nil
}

// Encode writes the message back, in its framing.
func (d *Doc) Encode() ([]byte, error) {
	var v any = d.Result
	if d.envelope != nil {
		if d.Result != nil {
			d.envelope["result"] = d.Result
		}
		v = d.envelope
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
