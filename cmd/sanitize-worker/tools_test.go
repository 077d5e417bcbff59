package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
)

func catalogServer(t *testing.T) string {
	t.Helper()
	srv := testnats.RunServer(t, testnats.Options{})
	return srv.ClientURL()
}

func runToolsTest(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := runToolsEnv(context.Background(), args, lookup, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const cliToolsList = `{"jsonrpc":"2.0","id":1,"result":{"tools":[
 {"name":"search","inputSchema":` + argsTestSchema + `,"outputSchema":{"type":"object"}},
 {"name":"fs.read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}}`

func TestToolsAndArgsThroughCatalog(t *testing.T) {
	url := catalogServer(t)
	code, out, errOut := runToolsTest(t, nil, cliToolsList, "put", "--server", "github", "--nats-url", url)
	if code != exitOK || !strings.Contains(out, `"tools":["search","fs.read"]`) {
		t.Fatalf("put: %d %s %s", code, out, errOut)
	}
	// The environment names the server when --nats-url is absent.
	env := map[string]string{"MCP_SANITIZE_NATS_URL": url}
	code, out, errOut = runToolsTest(t, env, "", "list", "--server", "github")
	if code != exitOK || out != "fs.read\nsearch\n" {
		t.Fatalf("list: %d %q %s", code, out, errOut)
	}
	code, out, errOut = runToolsTest(t, env, "", "get", "--server", "github", "--tool", "search")
	var got struct {
		Server, Name                          string
		InputSchemaDigest, OutputSchemaDigest string
		Definition                            json.RawMessage
	}
	if code != exitOK || json.Unmarshal([]byte(out), &got) != nil || got.Name != "search" || !strings.HasPrefix(got.InputSchemaDigest, "sha256:") || got.OutputSchemaDigest == "" {
		t.Fatalf("get: %d %s %s", code, out, errOut)
	}
	if code, _, errOut = runToolsTest(t, env, "", "get", "--server", "github", "--tool", "nope"); code != exitRejected || !strings.Contains(errOut, "TOOLS") && !strings.Contains(errOut, "not in the catalog") {
		t.Fatalf("get unknown: %d %s", code, errOut)
	}
	if code, _, errOut = runToolsTest(t, env, `{"tools":[{"name":"x","inputSchema":{"$ref":"http://h/s"}}]}`, "put", "--server", "github"); code != exitRejected || !strings.Contains(errOut, "SCHEMA_REF_DENIED") {
		t.Fatalf("put refused: %d %s", code, errOut)
	}

	argsCases := []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"valid", `{"q":"go"}`, []string{"--server", "github", "--tool", "search", "--nats-url", url}, exitOK, `{"valid":true}`},
		{"dotted-tool", `{"path":"/a"}`, []string{"--server", "github", "--tool", "fs.read", "--nats-url", url}, exitOK, `{"valid":true}`},
		{"request-names-tool", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs.read","arguments":{}}}`, []string{"--server", "github", "--nats-url", url}, exitRejected, `ARGS_MISSING`},
		{"invalid", `{"q":1}`, []string{"--server", "github", "--tool", "search", "--nats-url", url}, exitRejected, `ARGS_TYPE`},
		{"unknown-tool", `{}`, []string{"--server", "github", "--tool", "nope", "--nats-url", url}, exitRejected, `ARGS_UNKNOWN_TOOL`},
		{"unknown-server", `{}`, []string{"--server", "gitlab", "--tool", "search", "--nats-url", url}, exitRejected, `ARGS_UNKNOWN_TOOL`},
	}
	for _, tc := range argsCases {
		t.Run("args/"+tc.name, func(t *testing.T) {
			code, out, errOut := runArgsTest(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d (want %d) stdout %s stderr %s", code, tc.code, out, errOut)
			}
		})
	}
}

func TestToolsUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "a subcommand is required"},
		{[]string{"drop", "--server", "s"}, "unknown subcommand"},
		{[]string{"put"}, "--server must be"},
		{[]string{"get", "--server", "s"}, "--tool must be"},
		{[]string{"list", "--server", "s", "--tool", "t"}, "--tool applies to get, diff, approve and revoke only"},
		{[]string{"list", "--server", "s", "--nats-url", "http://x"}, "scheme must be"},
		{[]string{"list", "--server", "s", "--tls-cert", "c"}, "go together"},
		{[]string{"list", "--server", "s", "--bucket", ""}, "--bucket must not be empty"},
		{[]string{"list", "--server", "s", "extra"}, "unexpected argument"},
	}
	for _, tc := range cases {
		code, _, errOut := runToolsTest(t, nil, "", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := runToolsTest(t, nil, "", "list", "--server", "s", "--nats-url", "nats://u:p4ss@127.0.0.1:1", "--timeout", "2s"); code != exitFailure || strings.Contains(errOut, "p4ss") {
		t.Fatalf("unreachable server: exit %d stderr %q", code, errOut)
	}
}
