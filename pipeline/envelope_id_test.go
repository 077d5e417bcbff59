package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// A result rejected before any id was read, at different points and for
// different reasons (dupResult: a duplicate key; mimeResult: an image
// block whose data is not base64, which rejects the whole result; a type
// not allowed only replaces its block).
const (
	dupResult  = `{"content":[{"type":"text","text":"x"}],"a":1,"a":2}`
	mimeResult = `{"content":[{"type":"image","data":"A!AA","mimeType":"image/png"}]}`
)

var envelopeIDCases = []struct {
	name   string
	in     string
	kind   Kind
	id     string // the id as written in the error envelope
	reason wire.Reason
}{
	{"number-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7}`, KindToolResult, `7`, ""},
	{"number-exp-after", `{"result":` + dupResult + `,"jsonrpc":"2.0","id":-1.5e3}`, KindToolResult, `-1.5e3`, ""},
	{"number-before", `{"jsonrpc":"2.0","id":7,"result":` + dupResult + `}`, KindToolResult, `7`, ""},
	{"string-escapes-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"r\u0065q-\"1\"\\\n\u00e9"}`, KindToolResult, `"req-\"1\"\\\né"`, ""},
	{"string-escapes-before", `{"jsonrpc":"2.0","id":"r\u0065q-\"1\"\\\n\u00e9","result":` + dupResult + `}`, KindToolResult, `"req-\"1\"\\\né"`, ""},
	{"string-sanitized-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"req\u200b-1"}`, KindToolResult, `"req-1"`, ""},
	{"key-escaped-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"i\u0064":3}`, KindToolResult, `3`, ""},
	{"key-invisible-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"i\u200bd":3}`, KindToolResult, `3`, ""},
	{"mime-after", `{"jsonrpc":"2.0","result":` + mimeResult + `,"id":"m-2"}`, KindToolResult, `"m-2"`, ""},
	{"mime-members-after", `{"result":` + mimeResult + `,"x":[{"id":1},"id"],"jsonrpc":"2.0","id":12,"y":{"id":{}}}`, KindToolResult, `12`, ""},
	{"other-kind-after", `{"jsonrpc":"2.0","result":{"contents":[],"a":1,"a":2},"id":"r2"}`, KindResourceResult, `"r2"`, ""},
	{"bound-after", `{"jsonrpc":"2.0","result":{"content":[` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `]},"id":5}`, KindToolResult, `null`, wire.ReasonRPCIDDepth},
	{"result-not-object-after", `{"jsonrpc":"2.0","result":"text","id":8}`, KindToolResult, `8`, ""},
	{"id-128", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"` + strings.Repeat("z", 128) + `"}`, KindToolResult, `"` + strings.Repeat("z", 128) + `"`, ""},
	{"id-over", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"` + strings.Repeat("z", 129) + `"}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
	{"id-number-over", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":` + strings.Repeat("9", 129) + `}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
	{"id-over-before", `{"jsonrpc":"2.0","id":"` + strings.Repeat("z", 129) + `","result":` + dupResult + `}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
	{"id-null-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":null}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
	{"id-object-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":{"id":1}}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
	{"nested-ids-only", `{"jsonrpc":"2.0","result":{"id":1,"content":[{"id":2,"type":"text","text":"x"}],"a":1,"a":2,"m":{"id":3}}}`, KindToolResult, `null`, wire.ReasonRPCIDMissing},
	{"nested-id-after-failure", `{"jsonrpc":"2.0","result":{"a":1,"a":2,"m":{"id":3},"id":4},"x":{"id":5},"id":6}`, KindToolResult, `6`, ""},
	{"duplicate-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7,"id":8}`, KindToolResult, `null`, wire.ReasonRPCIDDuplicate},
	{"duplicate-sanitized-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7,"i\u200bd":7}`, KindToolResult, `null`, wire.ReasonRPCIDDuplicate},
	{"malformed-after", `{"jsonrpc":"2.0","result":{"a":1,"a":2,]},"id":7}`, KindToolResult, `null`, wire.ReasonRPCIDMalformed},
	{"malformed-after-id", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7,}`, KindToolResult, `null`, wire.ReasonRPCIDMalformed},
	{"malformed-is-failure", `{"jsonrpc":"2.0","result":{"a":tru},"id":7}`, KindToolResult, `null`, wire.ReasonRPCIDMalformed},
	{"ended-after", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7`, KindToolResult, `null`, wire.ReasonRPCIDInputEnded},
	{"ended-in-id", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"ab`, KindToolResult, `null`, wire.ReasonRPCIDInputEnded},
	{"missing", `{"jsonrpc":"2.0","result":` + dupResult + `}`, KindToolResult, `null`, wire.ReasonRPCIDMissing},
	{"trailing-after-close", `{"jsonrpc":"2.0","result":{"content":[]}} x`, KindToolResult, `null`, wire.ReasonRPCIDMissing},
	{"trailing-after-id", `{"jsonrpc":"2.0","result":` + dupResult + `,"id":7} x`, KindToolResult, `7`, ""},
	{"failure-in-id", `{"jsonrpc":"2.0","result":{"content":[]},"id":"a` + "\x01" + `"}`, KindToolResult, `null`, wire.ReasonRPCIDUnusable},
}

// envelopeID returns the id member of an error envelope as written.
func envelopeID(t *testing.T, out string) string {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("not JSON: %s", out)
	}
	if env["jsonrpc"] == nil || len(env) != 3 {
		t.Fatalf("not an error envelope: %s", out)
	}
	return string(env["id"])
}

func TestEnvelopeIDAfterFailure(t *testing.T) {
	for _, tc := range envelopeIDCases {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, nil, MessageInfo{Kind: tc.kind, Tool: "search"}, tc.in)
			if ev.Outcome != OutcomeRejected {
				t.Fatalf("outcome %s", ev.Outcome)
			}
			if got := envelopeID(t, out); got != tc.id {
				t.Errorf("id %s, want %s", got, tc.id)
			}
			if ev.IDNullReason != string(tc.reason) {
				t.Errorf("idNullReason %q, want %q", ev.IDNullReason, tc.reason)
			}
			if ev.Input.Bytes != int64(len(tc.in)) {
				t.Errorf("input bytes %d, want %d", ev.Input.Bytes, len(tc.in))
			}
		})
	}
}

// An id read after the failure gives the error result the id read before
// it gives, byte for byte.
func TestEnvelopeIDOrder(t *testing.T) {
	for _, tc := range []struct{ name, id, result string }{
		{"number", `42`, dupResult},
		{"string", `"a\u0062c-\u00e9\t"`, dupResult},
		{"invisible", `"x\u200by"`, mimeResult},
		{"secret", `"ghp_` + strings.Repeat("a1B2", 9) + `"`, dupResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, evb := run(t, nil, toolInfo, `{"jsonrpc":"2.0","id":`+tc.id+`,"result":`+tc.result+`}`)
			after, eva := run(t, nil, toolInfo, `{"jsonrpc":"2.0","result":`+tc.result+`,"id":`+tc.id+`}`)
			if before != after {
				t.Fatalf("id after the failure:\n%s\nid before it:\n%s", after, before)
			}
			if eva.IDNullReason != "" || evb.IDNullReason != "" || eva.Code != evb.Code || eva.Reason != evb.Reason {
				t.Fatalf("evidence: %q %s %s / %q %s %s", eva.IDNullReason, eva.Code, eva.Reason, evb.IDNullReason, evb.Code, evb.Reason)
			}
		})
	}
}

// A bare result is no envelope: no id, no reason.
func TestEnvelopeIDBare(t *testing.T) {
	out, ev := run(t, nil, toolInfo, `{"content":[{"type":"text","text":"x"}],"a":1,"a":2,"id":3}`)
	if strings.Contains(out, "jsonrpc") || ev.IDNullReason != "" {
		t.Fatalf("bare result: %s, reason %q", out, ev.IDNullReason)
	}
}

// idPieces reads its parts one Read each.
type idPieces struct {
	parts [][]byte
	err   error  // returned after the parts instead of io.EOF
	after func() // called by the Read that returns the first part
}

func (r *idPieces) Read(b []byte) (int, error) {
	for len(r.parts) > 0 && len(r.parts[0]) == 0 {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(b, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	if r.after != nil {
		r.after()
		r.after = nil
	}
	return n, nil
}

// The output and the evidence do not depend on how the input was split
// into reads: every case read in two idPieces at every offset, in three
// around each, a byte at a time, and whole (in memory) give the same bytes.
func TestEnvelopeIDSplit(t *testing.T) {
	e, err := NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	sanitize := func(t *testing.T, in io.Reader, info MessageInfo) (string, string) {
		var out Buffer
		ev, err := e.Sanitize(context.Background(), in, &out, info)
		if err != nil {
			t.Fatal(err)
		}
		ev.DurationNanos = 0
		j, _ := json.Marshal(ev)
		return out.String(), string(j)
	}
	for _, tc := range envelopeIDCases {
		if len(tc.in) > 400 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			info := MessageInfo{Kind: tc.kind, Tool: "search"}
			in := []byte(tc.in)
			wantOut, wantEv := sanitize(t, bytes.NewReader(in), info)
			check := func(how string, r io.Reader) {
				t.Helper()
				out, ev := sanitize(t, r, info)
				if out != wantOut || ev != wantEv {
					t.Fatalf("%s:\n got %s\n%s\nwant %s\n%s", how, out, ev, wantOut, wantEv)
				}
			}
			check("one byte at a time", iotest.OneByteReader(bytes.NewReader(in)))
			for k := 0; k <= len(in); k++ {
				check("split", &idPieces{parts: [][]byte{in[:k], in[k:]}})
				if k+3 <= len(in) {
					check("three idPieces", &idPieces{parts: [][]byte{in[:k], in[k : k+3], in[k+3:]}})
				}
			}
		})
	}
}

// A failure that is a read error or a deadline reads no further; a read
// error or a deadline while the id is looked for ends the search.
func TestEnvelopeIDStops(t *testing.T) {
	e, err := NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	errBroken := errors.New("broken")
	head := []byte(`{"jsonrpc":"2.0","result":` + dupResult)
	tail := []byte(`,"id":7}`)
	for _, tc := range []struct {
		name   string
		r      func(cancel func()) io.Reader
		code   Code
		id     string
		reason wire.Reason
	}{
		{"read-error-is-failure", func(func()) io.Reader {
			return &idPieces{parts: [][]byte{[]byte(`{"jsonrpc":"2.0","result":{"content":[`)}, err: errBroken}
		}, CodeInternal, `null`, wire.ReasonRPCIDNotRead},
		{"read-error-after-failure", func(func()) io.Reader {
			return &idPieces{parts: [][]byte{head}, err: errBroken}
		}, CodeInvalidJSON, `null`, wire.ReasonRPCIDNotRead},
		{"deadline-after-failure", func(cancel func()) io.Reader {
			return &idPieces{parts: [][]byte{head, tail}, after: cancel}
		}, CodeInvalidJSON, `null`, wire.ReasonRPCIDDeadline},
		{"found-before-read-error", func(func()) io.Reader {
			return &idPieces{parts: [][]byte{append(append([]byte{}, head...), tail...)}, err: errBroken}
		}, CodeInvalidJSON, `7`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out Buffer
			ev, err := e.Sanitize(ctx, tc.r(cancel), &out, toolInfo)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Code != tc.code {
				t.Errorf("code %s, want %s", ev.Code, tc.code)
			}
			if got := envelopeID(t, out.String()); got != tc.id {
				t.Errorf("id %s, want %s", got, tc.id)
			}
			if ev.IDNullReason != string(tc.reason) {
				t.Errorf("idNullReason %q, want %q", ev.IDNullReason, tc.reason)
			}
		})
	}
}

// Under the reject policy for invalid UTF-8, an id holding it is not kept.
func TestEnvelopeIDInvalidUTF8(t *testing.T) {
	in := `{"jsonrpc":"2.0","result":` + dupResult + `,"id":"a` + "\xff" + `"}`
	for _, tc := range []struct {
		policy string
		id     string
		reason wire.Reason
	}{
		{"replace", `"a\ufffd"`, ""},
		{"reject", `null`, wire.ReasonRPCIDUnusable},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			pol := DefaultPolicy()
			pol.InvalidUTF8 = tc.policy
			out, ev := run(t, pol, toolInfo, in)
			got := envelopeID(t, out)
			var s, w any
			json.Unmarshal([]byte(got), &s)
			json.Unmarshal([]byte(tc.id), &w)
			if s != w || ev.IDNullReason != string(tc.reason) {
				t.Fatalf("id %s reason %q, want %s %q", got, ev.IDNullReason, tc.id, tc.reason)
			}
		})
	}
}

// Bounds of the policy: a failure on the top-level key "id" itself (its
// value not read yet) keeps the id that follows; the scan takes the depth
// bound of the pass.
func TestEnvelopeIDPolicyBounds(t *testing.T) {
	entries := DefaultPolicy()
	entries.Limits = map[string]int64{"object-entries": 2}
	entries.Actions.Other = ActionReject
	deep := DefaultPolicy()
	deep.Limits = map[string]int64{"depth": 4}
	for _, tc := range []struct {
		name   string
		pol    *Policy
		in     string
		reason wire.Reason // of the message
		id     string
		idWhy  wire.Reason
	}{
		{"entries-at-id", entries, `{"jsonrpc":"2.0","result":{"content":[]},"id":7}`, wire.ReasonObjectEntries, `7`, ""},
		{"entries-at-id-string", entries, `{"jsonrpc":"2.0","result":{"content":[]},"id":"s"}`, wire.ReasonObjectEntries, `"s"`, ""},
		{"entries-before-id", entries, `{"jsonrpc":"2.0","result":{"content":[]},"x":1,"id":7}`, wire.ReasonObjectEntries, `7`, ""},
		{"entries-duplicate-after", entries, `{"jsonrpc":"2.0","result":{"content":[]},"id":7,"id":8}`, wire.ReasonObjectEntries, `null`, wire.ReasonRPCIDDuplicate},
		{"depth-then-shallow", deep, `{"jsonrpc":"2.0","result":{"content":[[[[]]]]},"id":7}`, wire.ReasonDepth, `null`, wire.ReasonRPCIDDepth},
		{"deep-after-failure", deep, `{"jsonrpc":"2.0","result":{"a":1,"a":2,"b":[[[[]]]]},"id":7}`, wire.ReasonDuplicateKey, `null`, wire.ReasonRPCIDDepth},
		{"shallow-after-failure", deep, `{"jsonrpc":"2.0","result":{"a":1,"a":2,"b":[[]]},"id":7}`, wire.ReasonDuplicateKey, `7`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := run(t, tc.pol, toolInfo, tc.in)
			if ev.Reason != string(tc.reason) {
				t.Fatalf("reason %s %s, want %s", ev.Code, ev.Reason, tc.reason)
			}
			if got := envelopeID(t, out); got != tc.id || ev.IDNullReason != string(tc.idWhy) {
				t.Fatalf("id %s (%q), want %s (%q)", got, ev.IDNullReason, tc.id, tc.idWhy)
			}
		})
	}
}

// FuzzEnvelopeID puts an id before and after a result: when both passes
// fail for the same code and reason and the id after the failure is kept,
// the two error results are the same bytes; when it is not kept, evidence
// says why. Reads of 7 bytes give the same output and evidence.
func FuzzEnvelopeID(f *testing.F) {
	for _, r := range []string{dupResult, mimeResult, `{"a":1,"a":2,"id":3}`, `"x"`, `{"content":[` + strings.Repeat("[", 70)} {
		for _, id := range []string{`7`, `"a\u200bb"`, `"ghp_` + strings.Repeat("a1B2", 9) + `"`, `null`, `{"id":1}`, `1,"id":2`, `"` + strings.Repeat("z", 130) + `"`} {
			f.Add(r, id)
		}
	}
	e, err := NewEngine(nil)
	if err != nil {
		f.Fatal(err)
	}
	sanitize := func(t *testing.T, r io.Reader) (string, string, *Evidence) {
		var out Buffer
		ev, err := e.Sanitize(context.Background(), r, &out, toolInfo)
		if err != nil {
			t.Fatal(err)
		}
		ev.DurationNanos = 0
		j, _ := json.Marshal(ev)
		return out.String(), string(j), ev
	}
	f.Fuzz(func(t *testing.T, result, id string) {
		if len(result)+len(id) > 4096 {
			return
		}
		after := `{"jsonrpc":"2.0","result":` + result + `,"id":` + id + `}`
		before := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
		outA, evjA, evA := sanitize(t, strings.NewReader(after))
		if !json.Valid([]byte(outA)) {
			t.Fatalf("output is not JSON: %q", outA)
		}
		outA7, evjA7, _ := sanitize(t, iotest.HalfReader(&idPieces{parts: splitEvery([]byte(after), 7)}))
		if outA7 != outA || evjA7 != evjA {
			t.Fatalf("reads of 7 bytes:\n got %s\n%s\nwant %s\n%s", outA7, evjA7, outA, evjA)
		}
		if evA.Outcome != OutcomeRejected {
			return
		}
		gotID := envelopeID(t, outA)
		if (gotID == "null") != (evA.IDNullReason != "") {
			t.Fatalf("id %s with idNullReason %q", gotID, evA.IDNullReason)
		}
		if !json.Valid([]byte(result)) || !json.Valid([]byte(id)) {
			// Not one value each: the two orders are not the same message
			// (a fuzzed result can close the envelope and add members).
			return
		}
		outB, _, evB := sanitize(t, strings.NewReader(before))
		if evB.Outcome != OutcomeRejected || evB.Code != evA.Code || evB.Reason != evA.Reason {
			return
		}
		if gotID != "null" && outA != outB {
			t.Fatalf("id after the failure:\n%s\nid before it:\n%s", outA, outB)
		}
	})
}

// splitEvery cuts b into idPieces of n bytes.
func splitEvery(b []byte, n int) [][]byte {
	var parts [][]byte
	for len(b) > n {
		parts = append(parts, b[:n])
		b = b[n:]
	}
	return append(parts, b)
}
