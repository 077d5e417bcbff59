package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK-poisoned server is a Go SDK server (so it speaks both 2025-11-25
// and 2026-07-28, server/discover included) whose messages carry the same
// plants as the raw poisoned server: in its instructions, a tool
// description, a log notification, a tool result's text and
// structuredContent, a JSON-RPC error and, on 2025-11-25, a sampling
// request and an elicitation made during a call. It runs on stdio when
// this test binary has envSDKServer set, and over HTTP in the test process.
const envSDKServer = "MCP_SANITIZE_PROXY_TEST_SDK"

type echoIn struct {
	Text string `json:"text"`
}

func sdkPoisonedServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "poisoned-sdk", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: poison(legitInstructions)})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: poison(legitDescription)},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, map[string]any, error) {
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: poison(legitLog)})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text + " " + poison("")}}},
				map[string]any{"forecast": "sunny", "note": poison("details")}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the client."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			_, serr := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				SystemPrompt: poison(legitSystemPrompt), MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hi."}}},
			})
			_, eerr := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: poison(legitElicit),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			text := "sampled=" + ok(serr) + " elicited=" + ok(eerr)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32000, Message: poisonError(legitError)}
		})
	return s
}

func ok(err error) string {
	if err == nil {
		return "true"
	}
	return "false"
}

func init() {
	if os.Getenv(envSDKServer) != "" {
		if err := sdkPoisonedServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// sdkSession drives a session with the SDK-poisoned server and returns
// what the client's handlers and results were given.
func sdkSession(t *testing.T, s *mcp.ClientSession, got *seen, rev string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if v := s.InitializeResult().ProtocolVersion; v != rev {
		t.Fatalf("negotiated %q, want %q", v, rev)
	}
	got.add(s.InitializeResult().Instructions)
	if rev == "2025-11-25" {
		if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		got.add(tl.Name, tl.Description)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	got.add(textOf(res))
	b, _ := json.Marshal(res.StructuredContent)
	got.add(string(b))
	if !strings.Contains(string(b), `"forecast":"sunny"`) {
		t.Errorf("structuredContent %s lost its legitimate member", b)
	}
	_, ferr := s.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	if ferr == nil {
		t.Error("the fail tool's JSON-RPC error did not reach the client as an error")
	} else {
		for _, p := range append(planted(), plantedInErrors()...) {
			if strings.Contains(ferr.Error(), p) {
				t.Errorf("the error holds planted %q: %v", p, ferr)
			}
		}
	}
	if rev == "2025-11-25" {
		ask, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(textOf(ask), "sampled=true elicited=true") {
			t.Errorf("ask: %q", textOf(ask))
		}
	}
}

func sdkClient(got *seen) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			got.add(r.Params.SystemPrompt)
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			got.add(r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			got.add(string(b))
		},
	})
}

// checkSeen: nothing planted reached the client, and the legitimate text
// of every message class did.
func checkSeen(t *testing.T, got *seen, rev string) {
	t.Helper()
	all := got.all()
	for _, p := range planted() {
		if strings.Contains(all, p) {
			t.Errorf("the client was given planted %q", p)
		}
	}
	legit := []string{legitInstructions, legitDescription, "echo: hello", "details"}
	if rev == "2025-11-25" {
		legit = append(legit, legitLog, legitSystemPrompt, legitElicit)
	}
	for _, l := range legit {
		if !strings.Contains(all, l) {
			t.Errorf("legitimate %q did not reach the client", l)
		}
	}
}

var sdkRevisions = []string{"2025-11-25", "2026-07-28"}

// TestStdioSDKPoisoned: the Go SDK client through the stdio proxy to the
// SDK-poisoned server on both revisions (2026-07-28 with server/discover).
func TestStdioSDKPoisoned(t *testing.T) {
	for _, rev := range sdkRevisions {
		t.Run(rev, func(t *testing.T) {
			var got seen
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envSDKServer+"=1")
			h := startStdioClient(t, cmd, sdkClient(&got), &mcp.ClientSessionOptions{ProtocolVersion: rev})
			sdkSession(t, h.session, &got, rev)
			if r := h.close(); r.err != nil || r.code != 0 {
				t.Errorf("proxy ended with %d, %v", r.code, r.err)
			}
			checkSeen(t, &got, rev)
			checkTraffic(t, h.tr, rev, planted())
		})
	}
}

// TestHTTPSDKPoisoned: the same over Streamable HTTP, the SDK-poisoned
// server answering with SSE streams: stateful for 2025-11-25, stateless
// for 2026-07-28 (the SDK offers 2026-07-28 on stateless HTTP only).
func TestHTTPSDKPoisoned(t *testing.T) {
	for _, tc := range []struct {
		name, rev string
		json      bool // the upstream answers POSTs with application/json
	}{{"2025-11-25", "2025-11-25", false}, {"2026-07-28", "2026-07-28", false}, {"2026-07-28/json", "2026-07-28", true}} {
		rev := tc.rev
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdkPoisonedServer() },
				&mcp.StreamableHTTPOptions{Stateless: rev >= "2026-07-28", JSONResponse: tc.json}))
			defer up.Close()
			var got seen
			rc, purl := startHTTPProxy(t, up.URL, nil)
			s, err := sdkClient(&got).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: purl}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sdkSession(t, s, &got, rev)
			checkSeen(t, &got, rev)
			rc.tr.mu.Lock()
			sse, js := rc.sse, rc.json
			rc.tr.mu.Unlock()
			if sse == 0 && !tc.json {
				t.Error("no SSE event was relayed")
			}
			if js == 0 && tc.json {
				t.Error("no JSON response was relayed")
			}
			checkTraffic(t, rc.tr, rev, planted())
		})
	}
}
