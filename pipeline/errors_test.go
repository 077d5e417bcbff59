package pipeline

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// textJSON is s as a JSON string.
func textJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// toolErr is a tool error result with one text block.
func toolErr(text string) string {
	return `{"content":[{"type":"text","text":` + textJSON(text) + `}],"isError":true}`
}

// The real tool errors of @modelcontextprotocol/server-everything and
// server-filesystem (and SDK shapes) under the default mode
// keep-actionable: each keeps its actionable text, none keeps a path or a
// frame; evidence has counts and kinds, never the text.
func TestToolErrorKeepActionable(t *testing.T) {
	gh := fakeGitHubToken(5)
	mapped := DefaultPolicy()
	mapped.Errors.Map = map[string]string{"E_DB": "The database is unavailable. Try again later."}
	mapped.Errors.Modes = map[string]string{"E_INTERNAL": ErrorModeGeneric}
	generic := DefaultPolicy()
	generic.Errors.Mode = ErrorModeGeneric
	generic.Errors.Modes = map[string]string{"E_VALID": ErrorModeKeepActionable}
	for _, tc := range []struct {
		name   string
		pol    *Policy
		in     string
		msg    string // the whole delivered message after the label
		reason string
		kinds  []string // among ToolErrorRecord.Removed
		leaks  []string
	}{
		{name: caseAt("everything zod"), in: toolErr("MCP error -32602: Input validation error: Invalid arguments for tool add: [\n  {\n    \"code\": \"invalid_type\",\n    \"expected\": \"number\",\n    \"received\": \"string\",\n    \"path\": [\n      \"a\"\n    ],\n    \"message\": \"Expected number, received string\"\n  }\n]"),
			msg: "MCP error -32602: Input validation error: Invalid arguments for tool add: Expected number, received string at a", reason: "sanitized"},
		{name: caseAt("everything zod plain"), in: toolErr("expected number, received string at a"), msg: "expected number, received string at a", reason: "sanitized"},
		{name: caseAt("filesystem head and tail"), in: toolErr("Error: Cannot specify both head and tail parameters simultaneously"),
			msg: "Error: Cannot specify both head and tail parameters simultaneously", reason: "sanitized"},
		{name: caseAt("unknown tool"), in: toolErr("MCP error -32602: Tool no-such-tool not found"), msg: "MCP error -32602: Tool no-such-tool not found", reason: "sanitized"},
		{name: caseAt("filesystem path"), in: toolErr("Error: Access denied - path outside allowed directories: /etc/shadow not in /srv/allowed"),
			msg: "Error: Access denied - path outside allowed directories: [path] not in [path]", reason: "sanitized", kinds: []string{"file-path"}, leaks: []string{"/etc", "/srv"}},
		{name: caseAt("node stack"), in: toolErr("TypeError: x is not a function\n    at run (/app/dist/index.js:10:5)\n    at node:internal/process/task_queues:95:5"),
			msg: "TypeError: x is not a function", reason: "sanitized", kinds: []string{"stack-trace"}, leaks: []string{"/app", "index.js", "task_queues"}},
		{name: caseAt("secret through the chain"), in: toolErr("GitHub refused " + gh + " at https://api.github.com/x"),
			msg: "GitHub refused [REDACTED:github-pat] at [url]", reason: "sanitized", kinds: []string{"secret", "url"}, leaks: []string{gh, "api.github"}},
		{name: caseAt("only a stack: the default message"), in: toolErr("    at f (/a/b.js:1:2)\n    at g (/a/c.js:3:4)"),
			msg: CodeToolError.PublicMessage(), reason: "unmapped", leaks: []string{"b.js"}},
		{name: caseAt("a mapped code wins"), pol: mapped, in: toolErr("E_DB: pq: connection refused at 10.0.0.3:5432"),
			msg: "The database is unavailable. Try again later.", reason: "mapped", leaks: []string{"10.0.0.3", "pq"}},
		{name: caseAt("a code set generic"), pol: mapped, in: toolErr("E_INTERNAL: invariant broken in ledger"),
			msg: CodeToolError.PublicMessage(), reason: "unmapped", leaks: []string{"ledger"}},
		{name: caseAt("mode generic"), pol: generic, in: toolErr("Cannot specify both head and tail parameters"),
			msg: CodeToolError.PublicMessage(), reason: "unmapped", leaks: []string{"head"}},
		{name: caseAt("mode generic, a code kept"), pol: generic, in: toolErr("E_VALID: limit must be at most 100"),
			msg: "E_VALID: limit must be at most 100", reason: "sanitized"},
		{name: caseAt("envelope"), in: `{"jsonrpc":"2.0","id":7,"result":` + toolErr("Traceback (most recent call last):\n  File \"/srv/x.py\", line 3, in f\n    g()\nValueError: city must not be empty") + `}`,
			msg: "ValueError: city must not be empty", reason: "sanitized", kinds: []string{"stack-trace"}, leaks: []string{"/srv", "x.py"}},
		{name: caseAt("bounded"), in: toolErr(strings.Repeat("too many files; ", 200)), reason: "sanitized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			if pol == nil {
				pol = DefaultPolicy()
			}
			out, ev := run(t, pol, toolInfo, tc.in)
			r := decodeResult(t, out)
			if !r.IsError || len(r.Content) != 1 || !strings.HasPrefix(r.Content[0].Text, label) {
				t.Fatalf("not a rewritten error: %s", out)
			}
			got := strings.TrimPrefix(r.Content[0].Text, label)
			if tc.msg != "" && got != tc.msg {
				t.Fatalf("message\n got: %q\nwant: %q", got, tc.msg)
			}
			if len(got) > MaxErrorTextBytes {
				t.Fatalf("message of %d bytes", len(got))
			}
			if ev.Code != CodeToolError || ev.Reason != tc.reason || r.Meta[MetaPrefix+"reason"] != tc.reason {
				t.Fatalf("evidence %s %s, _meta %v", ev.Code, ev.Reason, r.Meta)
			}
			te := ev.ToolError
			if te.Sanitized != (tc.reason == "sanitized") || te.Mode == "" {
				t.Fatalf("record %+v", te)
			}
			for _, k := range tc.kinds {
				if !strings.Contains(","+strings.Join(te.Removed, ",")+",", ","+k+",") || te.Counts[k] == 0 {
					t.Errorf("kind %q not recorded: %+v", k, te)
				}
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

func TestErrorsPolicyValidate(t *testing.T) {
	for name, set := range map[string]func(*ErrorsPolicy){
		"mode":       func(e *ErrorsPolicy) { e.Mode = "verbose" },
		"modes code": func(e *ErrorsPolicy) { e.Modes = map[string]string{"bad code": ErrorModeGeneric} },
		"modes mode": func(e *ErrorsPolicy) { e.Modes = map[string]string{"E_X": "raw"} },
		"data":       func(e *ErrorsPolicy) { e.Data = "keep" },
	} {
		p := DefaultPolicy()
		set(&p.Errors)
		if err := p.Validate(); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := DefaultPolicy()
	if err := p.Validate(); err != nil || p.Errors.Mode != ErrorModeKeepActionable || p.Errors.Data != ErrorDataDrop {
		t.Fatalf("defaults: %v %q %q", err, p.Errors.Mode, p.Errors.Data)
	}
}
