package worker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// catalogTestEnv starts an embedded server and opens the tool catalog.
func catalogTestEnv(t *testing.T) (*nats.Conn, *toolcat.Catalog) {
	t.Helper()
	srv := testnats.RunServer(t, testnats.Options{})
	nc, js := testnats.Connect(t, srv.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cat, err := toolcat.Open(ctx, js, toolcat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return nc, cat
}

const catalogToolsList = `{"jsonrpc":"2.0","id":1,"result":{"tools":[
  {"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["q"]},
   "outputSchema":{"type":"object","properties":{"hits":{"type":"array"}}}},
  {"name":"read.file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}
]}}`

func startTools(t *testing.T, nc *nats.Conn, cat *toolcat.Catalog, opts ...CatalogOption) *ToolsService {
	t.Helper()
	s, err := NewToolsService(nc, cat, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

func TestToolsServicePut(t *testing.T) {
	nc, cat := catalogTestEnv(t)
	startTools(t, nc, cat, WithCatalogMaxRequestBytes(4096))
	cases := []struct {
		name, server, body string
		ok                 bool
		code               string
		index              int
		schemaCode         string
	}{
		{"stored", "github", catalogToolsList, true, "", -1, ""},
		{"schema-ref-denied", "github", `{"tools":[{"name":"a","inputSchema":{}},{"name":"b","inputSchema":{"$ref":"file:///etc/passwd"}}]}`, false, "TOOLS_SCHEMA", 1, "SCHEMA_REF_DENIED"},
		{"not-a-list", "github", `{"tools":{}}`, false, "TOOLS_INVALID", -1, ""},
		{"bad-server", "git%hub", catalogToolsList, false, "TOOLS_NAME", -1, ""},
		{"too-large", "github", `{"tools":[],"x":"` + strings.Repeat("x", 5000) + `"}`, false, "TOOLS_TOO_LARGE", -1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := nc.Request(wire.Subject(wire.ToolsPutPrefix, tc.server), []byte(tc.body), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var r toolsPutReply
			if err := json.Unmarshal(msg.Data, &r); err != nil {
				t.Fatal(err)
			}
			if r.OK != tc.ok {
				t.Fatalf("reply %s", msg.Data)
			}
			if tc.ok {
				if r.Server != tc.server || strings.Join(r.Tools, ",") != "search,read.file" || msg.Header.Get(wire.HeaderCode) != "" {
					t.Fatalf("reply %s", msg.Data)
				}
				return
			}
			if r.Error == nil || r.Error.Code != tc.code || msg.Header.Get(wire.HeaderCode) != tc.code || r.Error.SchemaCode != tc.schemaCode {
				t.Fatalf("reply %s", msg.Data)
			}
			if (tc.index >= 0) != (r.Error.Index != nil) || r.Error.Index != nil && *r.Error.Index != tc.index {
				t.Fatalf("index in %s, want %d", msg.Data, tc.index)
			}
			if strings.Contains(string(msg.Data), "passwd") {
				t.Fatalf("reply carries schema text: %s", msg.Data)
			}
		})
	}
	ctx := context.Background()
	e, err := cat.Get(ctx, "github", "read.file")
	if err != nil || e.Input == nil {
		t.Fatalf("stored tool: %v", err)
	}
	if _, err := cat.Get(ctx, "github", "a"); !errors.Is(err, toolcat.ErrNotFound) {
		t.Fatalf("a rejected put stored a tool: %v", err)
	}
}

// A tools/list result published without a reply subject is stored too.
func TestToolsServicePublishWithoutReply(t *testing.T) {
	nc, cat := catalogTestEnv(t)
	startTools(t, nc, cat)
	if err := nc.Publish(wire.Subject(wire.ToolsPutPrefix, "gitlab"), []byte(catalogToolsList)); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		_, err := cat.Get(context.Background(), "gitlab", "search")
		return err
	})
}

// Stop drains: requests the service already received are answered before
// Stop returns.
func TestToolsServiceStopDrains(t *testing.T) {
	nc, cat := catalogTestEnv(t)
	s, err := NewToolsService(nc, cat)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	inner := s.rr.handle
	s.rr.handle = func(m *nats.Msg) { <-release; inner(m) }
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 3
	replies := make(chan *nats.Msg, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			m, err := nc.Request(wire.Subject(wire.ToolsPutPrefix, "srv"), []byte(catalogToolsList), 10*time.Second)
			if err != nil {
				errs <- err
				return
			}
			replies <- m
		}()
	}
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		if s.rr.received.Load() < n {
			return errors.New("requests not received yet")
		}
		return nil
	})
	stopped := make(chan error, 1)
	go func() { stopped <- s.Stop() }()
	select {
	case <-stopped:
		t.Fatal("Stop returned before the received requests were answered")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for i := 0; i < n; i++ {
		select {
		case m := <-replies:
			if !strings.Contains(string(m.Data), `"ok":true`) {
				t.Fatalf("reply %s", m.Data)
			}
		case err := <-errs:
			t.Fatal(err)
		}
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

func TestCatalogOptions(t *testing.T) {
	for _, o := range []CatalogOption{WithCatalogQueue(""), WithCatalogMaxRequestBytes(10), WithCatalogConcurrency(0), WithCatalogTimeout(0), WithCatalogEvidencePrefix("a."), WithCatalogErrorHandler(nil)} {
		if _, err := newCatalogConfig("q", 1<<20, []CatalogOption{o}); err == nil {
			t.Error("invalid option accepted")
		}
	}
	if _, err := NewToolsService(nil, nil); err == nil {
		t.Error("nil connection accepted")
	}
}
