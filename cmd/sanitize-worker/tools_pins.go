package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
)

// runPins runs tools diff, approve and revoke over the fleet's pins.
func runPins(ctx context.Context, pins *toolcat.Pins, sub, server, tool, digest string, body []byte, stdout, stderr io.Writer) int {
	switch sub {
	case "revoke":
		if err := pins.Revoke(ctx, server, tool); err != nil {
			return catalogFailure(stderr, err)
		}
		return writeJSON(stdout, stderr, map[string]any{"ok": true, "server": server, "tool": tool, "revoked": true})
	case "approve":
		var def []byte
		if body != nil {
			// Pre-approval: the definition as the pass would forward it
			// (a clean definition is its own sanitized form).
			v, err := jcs.Parse(body, jcs.DefaultMaxDepth)
			m, ok := v.(map[string]any)
			if err != nil || !ok {
				fmt.Fprintln(stderr, "sanitize-worker tools: --in is not a tool definition (a JSON object)")
				return exitRejected
			}
			canon, d, err := pipeline.ToolDigest(m)
			if err != nil || digest != "" && digest != d {
				fmt.Fprintln(stderr, "sanitize-worker tools: --digest is not the digest of --in")
				return exitRejected
			}
			def, digest = canon, d
		}
		rec, err := pins.Approve(ctx, server, tool, digest, def)
		if err != nil {
			return catalogFailure(stderr, err)
		}
		return writeJSON(stdout, stderr, map[string]any{"ok": true, "server": server, "tool": tool, "digest": rec.Digest})
	}
	rec, err := pins.Get(ctx, server, tool)
	if err != nil {
		return catalogFailure(stderr, err)
	}
	out := map[string]any{"server": server, "tool": tool, "pinned": rec.Digest, "revoked": rec.Revoked}
	if rec.Candidate != nil {
		out["candidate"] = rec.Candidate.Digest
		out["seen"] = rec.Candidate.Seen
		out["changes"] = diffDefinitions(rec.Definition, rec.Candidate.Definition)
	}
	return writeJSON(stdout, stderr, out)
}

// change is one difference between two definitions: the JSON pointer and
// the values (absent: null).
type change struct {
	Pointer   string `json:"pointer"`
	Pinned    any    `json:"pinned"`
	Candidate any    `json:"candidate"`
}

// maxChanges bounds the changes printed.
const maxChanges = 200

// diffDefinitions lists where two definitions differ, by JSON pointer.
func diffDefinitions(a, b []byte) []change {
	var va, vb any
	_ = json.Unmarshal(a, &va)
	_ = json.Unmarshal(b, &vb)
	var out []change
	diffValues("", va, vb, &out)
	return out
}

func diffValues(ptr string, a, b any, out *[]change) {
	if len(*out) >= maxChanges || reflect.DeepEqual(a, b) {
		return
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := map[string]bool{}
		for k := range ma {
			keys[k] = true
		}
		for k := range mb {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			diffValues(ptr+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), ma[k], mb[k], out)
		}
		return
	}
	aa, okA := a.([]any)
	ab, okB := b.([]any)
	if okA && okB && len(aa) == len(ab) {
		for i := range aa {
			diffValues(ptr+"/"+strconv.Itoa(i), aa[i], ab[i], out)
		}
		return
	}
	*out = append(*out, change{Pointer: ptr, Pinned: a, Candidate: b})
}
