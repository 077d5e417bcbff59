package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testtokens"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// TestValidateArgs asks the real args service (catalog on an embedded
// server) through the client: valid arguments, a missing parameter, an
// unknown property whose value must not be echoed raw, an unknown tool, and
// the usage errors.
func TestValidateArgs(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	cat, err := toolcat.Open(ctx, js, toolcat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	tools := `{"tools":[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"integer"}},"required":["path"]}}]}`
	if _, err := cat.Put(ctx, "files", []byte(tools)); err != nil {
		t.Fatal(err)
	}
	svc, err := worker.NewArgsService(nc, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })

	c, err := client.New(nc, client.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	md := client.Metadata{Server: "files", Tool: "read_file", Tenant: "acme"}
	secret := testtokens.GitHub("ghp_", 34)
	for _, tc := range []struct {
		name, args string
		valid      bool
		code       string
	}{
		{"valid", `{"path":"/etc/hosts","lines":3}`, true, client.ArgsCodeValid},
		{"missing", `{"lines":3}`, false, "ARGS_MISSING"},
		{"type", `{"path":"a","lines":"three"}`, false, "ARGS_TYPE"},
		{"unknown property", `{"path":"a","token":"` + secret + `"}`, false, "ARGS_UNKNOWN_PROPERTY"},
	} {
		r, err := c.ValidateArgs(ctx, []byte(tc.args), md)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Valid != tc.valid || r.Code != tc.code {
			t.Errorf("%s: valid=%v code=%s, want %v %s", tc.name, r.Valid, r.Code, tc.valid, tc.code)
		}
		if tc.valid {
			continue
		}
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(r.ToolError, &res); err != nil || !res.IsError || len(res.Content) == 0 {
			t.Errorf("%s: tool error %s (%v)", tc.name, r.ToolError, err)
		}
		if bytes.Contains(r.ToolError, []byte(secret)) {
			t.Errorf("%s: tool error echoes the secret", tc.name)
		}
	}
	r, err := c.ValidateArgs(ctx, []byte(`{}`), client.Metadata{Server: "files", Tool: "nope"})
	if err != nil || r.Valid || r.Code != "ARGS_UNKNOWN_TOOL" {
		t.Errorf("unknown tool: %+v %v", r, err)
	}
	if _, err := c.ValidateArgs(ctx, []byte(`{}`), client.Metadata{Server: "a.b", Tool: "x"}); !errors.Is(err, client.ErrMetadata) {
		t.Errorf("bad server: %v", err)
	}
	svc.Stop()
	if _, err := c.ValidateArgs(ctx, []byte(`{}`), md); !errors.Is(err, client.ErrNoWorkers) {
		t.Errorf("no service: %v", err)
	}
}
