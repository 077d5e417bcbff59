package main

import (
	"strings"
	"testing"
)

// TestScanFraming: --framing says how the message is framed; a body that
// mixes a result's members with an envelope's is rejected in every framing.
func TestScanFraming(t *testing.T) {
	bare := `{"content":[{"type":"text","text":"ok"}]}`
	env := `{"jsonrpc":"2.0","id":4,"result":` + bare + `}`
	mixed := `{"content":[{"type":"text","text":"Traceback at /srv/a.py:3"}],"isError":true,"id":1}`
	for _, tc := range []struct {
		name, in string
		args     []string
		code     int
		want     string // in the output (or in stderr for a usage error)
	}{
		{"default-bare", bare, nil, exitOK, "Untrusted tool output from"},
		{"default-envelope", env, nil, exitOK, `"jsonrpc":"2.0","id":4`},
		{"default-mixed", mixed, nil, exitRejected, "envelope-mixed"},
		{"bare", bare, []string{"--framing", "bare"}, exitOK, "Untrusted tool output from"},
		{"bare-mixed", mixed, []string{"--framing", "bare"}, exitRejected, "envelope-mixed"},
		{"jsonrpc", env, []string{"--framing", "jsonrpc"}, exitOK, `"id":4`},
		{"jsonrpc-bare-body", bare, []string{"--framing", "jsonrpc"}, exitRejected, `{"jsonrpc":"2.0","id":null`},
		{"auto", env, []string{"--framing", "auto"}, exitOK, `"id":4`},
		{"unknown", bare, []string{"--framing", "xml"}, exitUsage, "unknown --framing"},
		{"jsonl", `{"result":` + bare + `}` + "\n", []string{"--jsonl", "--framing", "jsonrpc"}, exitOK, "envelope-mixed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.in, append([]string{"scan"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out, errs)
			}
			if !strings.Contains(out+errs, tc.want) {
				t.Fatalf("%q not in %s %s", tc.want, out, errs)
			}
			if strings.Contains(out, "Traceback") || strings.Contains(out, "/srv/a.py") {
				t.Fatalf("tool error text delivered: %s", out)
			}
		})
	}
}
