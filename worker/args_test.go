package worker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func startArgs(t *testing.T, nc *nats.Conn, cat *toolcat.Catalog, opts ...CatalogOption) *ArgsService {
	t.Helper()
	s, err := NewArgsService(nc, cat, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

func argsRequest(t *testing.T, nc *nats.Conn, server, tool, tenant, body string) *nats.Msg {
	t.Helper()
	m := nats.NewMsg(wire.SubjectArgsValidate)
	if server != "" {
		m.Header.Set(wire.HeaderServer, server)
	}
	if tool != "" {
		m.Header.Set(wire.HeaderTool, tool)
	}
	if tenant != "" {
		m.Header.Set(wire.HeaderTenant, tenant)
	}
	m.Data = []byte(body)
	reply, err := nc.RequestMsg(m, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

func TestArgsService(t *testing.T) {
	nc, cat := catalogTestEnv(t)
	ctx := context.Background()
	if _, err := cat.Put(ctx, "github", []byte(catalogToolsList)); err != nil {
		t.Fatal(err)
	}
	startArgs(t, nc, cat)
	evidence := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(wire.EvidencePrefix+".>", evidence)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	secret := "hunter2-" + strings.Repeat("s", 12)
	cases := []struct {
		name, server, tool, body string
		code                     string
		contains                 string
	}{
		{"valid", "github", "search", `{"q":"go","limit":3}`, "ARGS_VALID", `{"valid":true}`},
		{"valid-dotted-name", "github", "read.file", `{"path":"a.go"}`, "ARGS_VALID", `{"valid":true}`},
		{"tools-call-request", "github", "", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"q":"go"}}}`, "ARGS_VALID", `{"valid":true}`},
		{"type", "github", "search", `{"q":"go","limit":"` + secret + `"}`, "ARGS_TYPE", `must be an integer`},
		{"missing", "github", "search", `{}`, "ARGS_MISSING", `required parameter \"/q\" is missing`},
		{"unknown-property", "github", "search", `{"q":"go","x":1}`, "ARGS_UNKNOWN_PROPERTY", `\"/x\" is not a parameter`},
		{"unknown-tool", "github", "nope", `{}`, "ARGS_UNKNOWN_TOOL", `is not known`},
		{"other-server", "gitlab", "search", `{"q":"go"}`, "ARGS_UNKNOWN_TOOL", `is not known`},
		{"no-server", "", "search", `{"q":"go"}`, "ARGS_UNKNOWN_TOOL", `is not known`},
		{"malformed", "github", "search", `{"q":`, "ARGS_MALFORMED", `not a valid tools/call request or arguments object`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reply := argsRequest(t, nc, tc.server, tc.tool, "acme", tc.body)
			if got := reply.Header.Get(wire.HeaderCode); got != tc.code {
				t.Fatalf("code %q, want %q: %s", got, tc.code, reply.Data)
			}
			if !strings.Contains(string(reply.Data), tc.contains) {
				t.Fatalf("reply lacks %q: %s", tc.contains, reply.Data)
			}
			if tc.code != "ARGS_VALID" {
				var res struct {
					IsError bool `json:"isError"`
					Content []struct {
						Type string `json:"type"`
					} `json:"content"`
				}
				if err := json.Unmarshal(reply.Data, &res); err != nil || !res.IsError || len(res.Content) != 1 {
					t.Fatalf("not a tool execution error: %s", reply.Data)
				}
			}
			select {
			case ev := <-evidence:
				if ev.Subject != wire.EvidencePrefix+".acme" {
					t.Fatalf("evidence subject %s", ev.Subject)
				}
				if strings.Contains(string(ev.Data), secret) || strings.Contains(string(ev.Data), `"q":"go"`) {
					t.Fatalf("evidence holds an argument value: %s", ev.Data)
				}
				var rec argsEvidence
				if err := json.Unmarshal(ev.Data, &rec); err != nil || rec.Kind != "argsgate" || rec.Code != tc.code {
					t.Fatalf("evidence %s", ev.Data)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no evidence")
			}
		})
	}
}

// A tools/list published on mcp.tools.put changes what the args service
// enforces, through the catalog watch.
func TestArgsServiceFollowsCatalog(t *testing.T) {
	nc, cat := catalogTestEnv(t)
	startTools(t, nc, cat)
	startArgs(t, nc, cat, WithCatalogEvidencePrefix(""))
	put := func(list string) {
		t.Helper()
		m, err := nc.Request(wire.Subject(wire.ToolsPutPrefix, "srv"), []byte(list), 5*time.Second)
		if err != nil || !strings.Contains(string(m.Data), `"ok":true`) {
			t.Fatalf("put: %v %s", err, m.Data)
		}
	}
	put(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]}`)
	if r := argsRequest(t, nc, "srv", "t", "", `{"a":"x"}`); r.Header.Get(wire.HeaderCode) != "ARGS_VALID" {
		t.Fatalf("first schema: %s", r.Data)
	}
	put(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}}]}`)
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		r := argsRequest(t, nc, "srv", "t", "", `{"a":"x"}`)
		if r.Header.Get(wire.HeaderCode) == "ARGS_VALID" {
			return errorString("old schema still enforced")
		}
		return nil
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }
