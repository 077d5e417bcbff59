package pipeline

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/errsan"
)

// rpcOut is the decoded error member of a rewritten message.
type rpcOut struct {
	Error struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	ID json.RawMessage `json:"id"`
}

func TestRPCErrorObjects(t *testing.T) {
	stack := "Error: ENOENT: no such file or directory, open '/srv/data/notes.txt'\n    at Object.openSync (node:fs:573:18)\n    at readNote (/srv/app/dist/notes.js:14:20)"
	good := `{"mode":"url","elicitationId":"elic-0001-abcd","url":"https://auth.example.com/connect/elic-0001-abcd","message":"Connect your account"}`
	plain := `{"mode":"url","elicitationId":"elic-0002-abcd","url":"http://auth.example.com/connect","message":"Connect"}`
	secretQ := `{"mode":"url","elicitationId":"elic-0003-abcd","url":"https://auth.example.com/cb?access_token=abc","message":"Connect"}`
	sanitize := DefaultPolicy()
	sanitize.Errors.Data = ErrorDataSanitize
	mapped := DefaultPolicy()
	mapped.Errors.Map = map[string]string{"-32603": "The server failed. Try again later."}
	generic := DefaultPolicy()
	generic.Errors.Mode = ErrorModeGeneric
	resInfo := MessageInfo{Kind: KindResourceResult, Server: "fs"}
	for _, tc := range []struct {
		name    string
		pol     *Policy
		info    MessageInfo
		in      string
		code    string
		msg     string
		data    string           // the data member as JSON, "" for none
		rec     RPCErrorRecord   // without Removed and Counts
		extra   map[string]int64 // the counts that are not errsan kinds
		changed bool             // the outcome is sanitized because of the rewriting
		leaks   []string
		outcome Outcome
	}{
		{name: caseAt("envelope with a stack"), info: toolInfo,
			in:   `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":` + textJSON(stack) + `,"data":{"stack":` + textJSON(stack) + `,"cwd":"/srv/app"}}}`,
			code: "-32603", msg: "Error: ENOENT: no such file or directory, open '[path]'",
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "sanitized", Data: "dropped"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"/srv", "notes.js", "node:fs", "cwd"}, outcome: OutcomeSanitized},
		{name: caseAt("bare error response of a resource read"), info: resInfo,
			in:   `{"jsonrpc":"2.0","id":"r1","error":{"code":-32002,"message":"Resource not found: file:///home/alice/secret-plans.md"}}`,
			code: "-32002", msg: "Resource not found: [path]",
			rec: RPCErrorRecord{Code: "-32002", Mode: ErrorModeKeepActionable, Message: "sanitized"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"alice", "secret-plans"}, outcome: OutcomeSanitized},
		{name: caseAt("sdk invalid params kept"), info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"MCP error -32602: Tool no-such-tool not found"}}`,
			code: "-32602", msg: "MCP error -32602: Tool no-such-tool not found",
			rec: RPCErrorRecord{Code: "-32602", Mode: ErrorModeKeepActionable, Message: "sanitized"}, extra: map[string]int64{}, changed: false,
			outcome: OutcomeClean},
		{name: caseAt("data sanitized"), pol: sanitize, info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom","data":{"detail":"pq: password authentication failed","retry":true,"/etc/passwd":1,"n":[1,"at x (/a/b.js:1:2)"]}}}`,
			code: "-32603", msg: "boom", data: `{"detail":"[backend error]","retry":true,"n":[1]}`,
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "sanitized", Data: "sanitized"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"passwd", "b.js", "authentication"}, outcome: OutcomeSanitized},
		{name: caseAt("mapped code"), pol: mapped, info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"dial tcp 10.1.2.3:5432: connection refused"}}`,
			code: "-32603", msg: "The server failed. Try again later.",
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "mapped"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"10.1.2.3"}, outcome: OutcomeSanitized},
		{name: caseAt("generic mode: the phrase of the code"), pol: generic, info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method frobnicate not found"}}`,
			code: "-32601", msg: "Method not found",
			rec: RPCErrorRecord{Code: "-32601", Mode: ErrorModeGeneric, Message: "phrase"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"frobnicate"}, outcome: OutcomeSanitized},
		{name: caseAt("nothing actionable: the phrase"), info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"    at f (/a/b.js:1:2)","extra":"x"}}`,
			code: "-32603", msg: "Internal error",
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "phrase"}, extra: map[string]int64{"dropped-member": 1}, changed: true,
			leaks: []string{"b.js", "extra"}, outcome: OutcomeSanitized},
		{name: caseAt("code not a number"), info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":{"code":"E_X","message":"bad"}}`,
			code: "-32603", msg: "bad",
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "sanitized"}, extra: map[string]int64{}, changed: true,
			outcome: OutcomeSanitized},
		{name: caseAt("error as a string"), info: resInfo,
			in:   `{"jsonrpc":"2.0","id":1,"error":"Traceback (most recent call last):\n  File \"/x/y.py\", line 2, in f\n    g()\nKeyError: 'k'"}`,
			code: "-32603", msg: "KeyError: 'k'",
			rec: RPCErrorRecord{Code: "-32603", Mode: ErrorModeKeepActionable, Message: "sanitized"}, extra: map[string]int64{}, changed: true,
			leaks: []string{"y.py"}, outcome: OutcomeSanitized},
		{name: caseAt("url elicitation required keeps its data"), info: toolInfo,
			in:   `{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"This request requires more information.","data":{"elicitations":[` + good + `,` + plain + `,` + secretQ + `],"trace":"/srv/x"}}}`,
			code: "-32042", msg: "This request requires more information.", data: `{"elicitations":[` + good + `]}`,
			rec: RPCErrorRecord{Code: "-32042", Mode: ErrorModeKeepActionable, Message: "sanitized", Data: "elicitations", Elicitations: 1}, extra: map[string]int64{"dropped-member": 1, "elicitation-refused": 2}, changed: true,
			leaks: []string{"http://", "access_token", "/srv"}, outcome: OutcomeSanitized},
		{name: caseAt("url elicitation without data"), info: toolInfo,
			in:   `{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"Needs a URL.","data":"x"}}`,
			code: "-32042", msg: "Needs a URL.", data: `{"elicitations":[]}`,
			rec: RPCErrorRecord{Code: "-32042", Mode: ErrorModeKeepActionable, Message: "sanitized", Data: "elicitations"}, extra: map[string]int64{}, changed: true,
			outcome: OutcomeSanitized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			if pol == nil {
				pol = DefaultPolicy()
			}
			out, ev := run(t, pol, tc.info, tc.in)
			var got rpcOut
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if string(got.Error.Code) != tc.code || got.Error.Message != tc.msg {
				t.Fatalf("error %s %q, want %s %q\n%s", got.Error.Code, got.Error.Message, tc.code, tc.msg, out)
			}
			if string(got.Error.Data) != tc.data {
				t.Fatalf("data %s, want %s", got.Error.Data, tc.data)
			}
			if len(got.ID) == 0 {
				t.Fatalf("id lost: %s", out)
			}
			r := ev.RPCError
			if r == nil {
				t.Fatalf("no rpcError evidence: %+v", ev)
			}
			cmp := *r
			cmp.Removed, cmp.Counts = nil, nil
			if !reflect.DeepEqual(cmp, tc.rec) {
				t.Fatalf("record %+v\n  want %+v", cmp, tc.rec)
			}
			for k, n := range tc.extra {
				if r.Counts[k] != n {
					t.Fatalf("count %s = %d, want %d (%v)", k, r.Counts[k], n, r.Counts)
				}
			}
			if tc.changed && ev.Outcome == OutcomeClean {
				t.Fatalf("a changed error object, but the outcome is clean")
			}
			if ev.Outcome != tc.outcome {
				t.Fatalf("outcome %s, want %s", ev.Outcome, tc.outcome)
			}
			evj, _ := json.Marshal(ev)
			for _, leak := range tc.leaks {
				if strings.Contains(out, leak) || strings.Contains(string(evj), leak) {
					t.Fatalf("%q leaked:\n%s\n%s", leak, out, evj)
				}
			}
		})
	}
}

// A held error object larger than the pass holds rejects the message.
func TestRPCErrorBound(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x","data":[` + strings.Repeat(`"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",`, maxRPCErrorBytes/50+10) + `1]}}`
	pol := DefaultPolicy()
	pol.Limits = map[string]int64{"array-items": 1 << 20, "nodes": 1 << 22, "output-bytes": 64 << 20}
	_, ev := run(t, pol, MessageInfo{Kind: KindResourceResult}, in)
	if ev.Outcome != OutcomeRejected || ev.Code != CodeBoundExceeded || ev.Reason != "rpc-error-bytes" {
		t.Fatalf("outcome %s %s %s", ev.Outcome, ev.Code, ev.Reason)
	}
}

// FuzzRPCError puts arbitrary text into the message and data of an
// envelope's error: the output is JSON, its message never holds a line
// with a path or a frame (errsan.Check), data is dropped, and no pass
// fails INTERNAL.
func FuzzRPCError(f *testing.F) {
	for _, s := range []string{"boom at /srv/a.js:1:2", "Traceback (most recent call last):\n  File \"/x.py\", line 1\nE: x",
		"MCP error -32602: Tool x not found", `[{"code":"invalid_type","path":["a"],"message":"Expected number"}]`} {
		f.Add(s, int64(-32603))
	}
	e, err := NewEngine(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, code int64) {
		in := `{"jsonrpc":"2.0","id":1,"error":{"code":` + strconv.FormatInt(code, 10) + `,"message":` + textJSON(s) + `,"data":{"s":` + textJSON(s) + `}}}`
		var out Buffer
		ev, err := e.Sanitize(t.Context(), strings.NewReader(in), &out, MessageInfo{Kind: KindResourceResult})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Code == CodeInternal {
			t.Fatalf("INTERNAL %s", ev.Reason)
		}
		if ev.Outcome == OutcomeRejected {
			return // a bound of the text itself
		}
		var got rpcOut
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out.String())
		}
		for _, l := range strings.Split(got.Error.Message, "\n") {
			if errsan.Check(l) {
				t.Fatalf("a path or frame in %q", l)
			}
		}
		if code != CodeURLElicitationRequired && got.Error.Data != nil {
			t.Fatalf("data kept: %s", got.Error.Data)
		}
	})
}
