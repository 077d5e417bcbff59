package proxy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
)

// everythingRun is what one session with server-everything saw.
type everythingRun struct {
	rev        string
	tools      []string
	prompts    []string
	resources  []string
	echo       string
	sum        string
	structured map[string]any
	sampled    string
}

// everythingSession exercises server-everything through s: the lists, a
// few calls, and a sampling request the server makes during a call.
func everythingSession(t *testing.T, s *mcp.ClientSession) everythingRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := everythingRun{rev: s.InitializeResult().ProtocolVersion}
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tl := range tools.Tools {
		r.tools = append(r.tools, tl.Name)
	}
	if ps, err := s.ListPrompts(ctx, nil); err == nil {
		for _, p := range ps.Prompts {
			r.prompts = append(r.prompts, p.Name)
		}
	} else {
		t.Fatalf("prompts/list: %v", err)
	}
	if rs, err := s.ListResources(ctx, nil); err == nil {
		for _, x := range rs.Resources {
			r.resources = append(r.resources, x.URI)
		}
	} else {
		t.Fatalf("resources/list: %v", err)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		return res
	}
	r.echo = textOf(call("echo", map[string]any{"message": "hello from the test"}))
	r.sum = textOf(call("get-sum", map[string]any{"a": 2, "b": 3}))
	st := call("get-structured-content", map[string]any{"location": "Chicago"})
	r.structured, _ = st.StructuredContent.(map[string]any)
	if slices.Contains(r.tools, "trigger-sampling-request") {
		r.sampled = textOf(call("trigger-sampling-request", map[string]any{"prompt": "Say hi", "maxTokens": 20}))
	}
	return r
}

func everythingClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "model says hi"}}, nil
		},
	})
}

// TestStdioEverything runs server-everything (npm, pinned) directly and
// through the proxy, for each revision the Go SDK client negotiates with
// it: everything the direct run had is there through the proxy, and every
// message validates against the official schema of the revision.
func TestStdioEverything(t *testing.T) {
	srv := peertest.Install(t)
	for _, rev := range []string{"2025-11-25", ""} {
		name := rev
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			sopts := &mcp.ClientSessionOptions{ProtocolVersion: rev}
			direct, err := everythingClient().Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(srv.Node, srv.Everything, "stdio"), TerminateDuration: 500 * time.Millisecond}, sopts)
			if err != nil {
				t.Fatalf("direct: %v", err)
			}
			want := everythingSession(t, direct)
			direct.Close()

			cmd := exec.Command(srv.Node, srv.Everything, "stdio")
			h := startStdioClient(t, cmd, everythingClient(), sopts)
			got := everythingSession(t, h.session)
			if r := h.close(); r.err != nil {
				t.Errorf("proxy: %v", r.err)
			}
			if got.rev != want.rev {
				t.Errorf("revision %q through the proxy, %q direct", got.rev, want.rev)
			}
			t.Logf("revision %s; %d tools, %d prompts, %d resources", got.rev, len(got.tools), len(got.prompts), len(got.resources))
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"tools", got.tools, want.tools}, {"prompts", got.prompts, want.prompts}, {"resources", got.resources, want.resources}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s through the proxy %v, direct %v", c.what, c.got, c.want)
				}
			}
			for _, c := range []struct{ what, got, want string }{{"echo", got.echo, want.echo}, {"get-sum", got.sum, want.sum}} {
				if c.want == "" || !strings.Contains(c.got, c.want) {
					t.Errorf("%s through the proxy %q, direct %q", c.what, c.got, c.want)
				}
			}
			for k, v := range want.structured {
				if got.structured[k] != v {
					t.Errorf("structuredContent.%s through the proxy %v, direct %v", k, got.structured[k], v)
				}
			}
			if want.sampled != "" && !strings.Contains(got.sampled, "model says hi") {
				t.Errorf("sampling through the proxy: %q", got.sampled)
			}
			checkTraffic(t, h.tr, got.rev, nil)
		})
	}
}

// TestStdioFilesystem runs server-filesystem (npm, pinned) through the
// proxy on a directory with a planted file: the listing and the legitimate
// text arrive, the planted secret and tag do not, the argument gate
// answers a malformed call, and every message validates; on 2025-11-25 and
// on the newest revision the client and server agree on.
func TestStdioFilesystem(t *testing.T) {
	srv := peertest.Install(t)
	dir := t.TempDir()
	body := "quarterly numbers are up\n" + plantTag + " token " + plantSecret + "\n"
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2025-11-25", ""} {
		t.Run(revName(want), func(t *testing.T) {
			cmd := exec.Command(srv.Node, srv.Filesystem, dir)
			h := startStdioClient(t, cmd, everythingClient(), &mcp.ClientSessionOptions{ProtocolVersion: want})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			s := h.session
			tools, err := s.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Contains(names, "read_text_file") || !slices.Contains(names, "list_directory") {
				t.Fatalf("tools %v", names)
			}
			ls, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "list_directory", Arguments: map[string]any{"path": dir}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(textOf(ls), "notes.txt") {
				t.Errorf("list_directory: %q", textOf(ls))
			}
			rd, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(dir, "notes.txt")}})
			if err != nil {
				t.Fatal(err)
			}
			text := textOf(rd)
			if !strings.Contains(text, "quarterly numbers are up") || strings.Contains(text, plantSecret) || strings.Contains(text, plantTagWord) {
				t.Errorf("read_text_file through the proxy: %q", text)
			}
			// The gate: a required argument missing never reaches the server.
			bad, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"pth": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			if !bad.IsError || !strings.Contains(textOf(bad), "path") {
				t.Errorf("gated call: %v %q", bad.IsError, textOf(bad))
			}
			rev := h.revision()
			if want != "" && rev != want {
				t.Errorf("revision %q, asked for %q", rev, want)
			}
			if r := h.close(); r.err != nil {
				t.Errorf("proxy: %v", r.err)
			}
			checkTraffic(t, h.tr, rev, planted())
		})
	}
}
