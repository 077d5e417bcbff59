package proxy_test

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// seen collects what the client's handlers were given.
type seen struct {
	mu   sync.Mutex
	text []string
}

func (s *seen) add(v ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.text = append(s.text, v...)
}

func (s *seen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.text, "\n")
}

// TestStdioPoisoned drives the Go SDK client through the proxy against the
// poisoned server, over every message class it plants in, for both
// revisions the project supports.
func TestStdioPoisoned(t *testing.T) {
	// The poisoned server speaks the initialize handshake (2025-11-25);
	// 2026-07-28's server/discover is exercised against server-everything.
	for _, rev := range []string{"2025-11-25"} {
		t.Run(rev, func(t *testing.T) { testStdioPoisoned(t, rev) })
	}
}

func testStdioPoisoned(t *testing.T, rev string) {
	testPoisonedWith(t, rev, proxy.Engine{E: sharedEngine(t)})
}

func testPoisonedWith(t *testing.T, rev string, san proxy.Sanitizer) {
	var got seen
	logged := make(chan struct{}, 8)
	copts := &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			got.add(r.Params.SystemPrompt)
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			got.add(r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := jsonText(r.Params.Data)
			got.add(b)
			logged <- struct{}{}
		},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, copts)
	h := startStdioWith(t, san, poisonedCmd(t, 0), client, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := h.session
	if h.revision() != rev {
		t.Fatalf("negotiated %q, want %q", h.revision(), rev)
	}
	got.add(s.InitializeResult().Instructions)

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		got.add(tl.Description)
	}
	if strings.Join(names, ",") != "echo,fail,ask,struct,crash" {
		t.Errorf("tools %v", names)
	}

	// A call through: the log notification and the result.
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(textOf(res), "echo: hello") {
		t.Errorf("echo result: error %v, text %q", res.IsError, textOf(res))
	}
	select {
	case <-logged:
	case <-ctx.Done():
		t.Fatal("no log notification reached the client")
	}

	// The argument gate: a call that breaks the inputSchema never reaches
	// the server and comes back as the seed's actionable tool error.
	bad, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"txt": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bad.IsError || !strings.Contains(textOf(bad), "echo") || bad.Meta[wire.MetaPrefix+wire.MetaCode] == nil {
		t.Errorf("gated call: error %v, text %q, meta %v", bad.IsError, textOf(bad), bad.Meta)
	}

	// A JSON-RPC error: kept an error, without the planted text.
	var errText []string
	_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	if err == nil {
		t.Error("the fail tool's JSON-RPC error did not reach the client as an error")
	} else {
		errText = append(errText, err.Error())
	}
	// A tool error (isError): kept an error, without the planted text.
	crash, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !crash.IsError {
		t.Error("the crash tool's error result is no longer an error")
	}
	errText = append(errText, textOf(crash))
	for _, e := range errText {
		for _, p := range append(planted(), plantedInErrors()...) {
			if strings.Contains(e, p) {
				t.Errorf("an error the client received holds planted %q: %s", p, e)
			}
		}
	}
	got.add(errText...)

	// Server requests during a call: sampling and elicitation.
	ask, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(ask), "sampled=true elicited=true") {
		t.Errorf("ask result %q: the server's requests did not complete through the proxy", textOf(ask))
	}

	// structuredContent.
	st, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "struct", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(st), legitStruct) {
		t.Errorf("struct text %q", textOf(st))
	}
	sc, _ := st.StructuredContent.(map[string]any)
	if sc["forecast"] != "sunny" {
		t.Errorf("structuredContent %v lost its legitimate member", st.StructuredContent)
	}
	b, _ := jsonText(st.StructuredContent)
	got.add(b)

	r := h.close()
	if r.err != nil || r.code != 0 {
		t.Errorf("proxy ended with %d, %v", r.code, r.err)
	}
	all := got.all()
	for _, p := range planted() {
		if strings.Contains(all, p) {
			t.Errorf("the client's handlers were given planted %q", p)
		}
	}
	for _, l := range []string{legitInstructions, legitDescription, legitLog, legitSystemPrompt, legitElicit, "details"} {
		if !strings.Contains(all, l) {
			t.Errorf("legitimate %q did not reach the client", l)
		}
	}
	checkTraffic(t, h.tr, rev, planted())
	for i, line := range h.received() {
		var m struct {
			Error  json.RawMessage `json:"error"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		json.Unmarshal(line, &m)
		if m.Error == nil && !m.Result.IsError {
			continue
		}
		for _, p := range plantedInErrors() {
			if strings.Contains(string(line), p) {
				t.Errorf("error message %d holds planted %q: %s", i, p, line)
			}
		}
	}
	if _, inProcess := san.(proxy.Engine); inProcess && len(h.ev.evs) == 0 {
		t.Error("no evidence")
	}
	for _, p := range planted() {
		if strings.Contains(h.ev.buf.String(), p) {
			t.Errorf("evidence holds planted %q", p)
		}
	}
}

// TestStdioExitCode: the server's exit status is the proxy's, once the
// client's input ends.
func TestStdioExitCode(t *testing.T) {
	h := startStdio(t, poisonedCmd(t, 7), &mcp.ClientOptions{}, nil)
	if _, err := h.session.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r := h.close()
	if r.err != nil || r.code != 7 {
		t.Fatalf("proxy ended with %d, %v; want 7", r.code, r.err)
	}
}

// TestStdioCloseEndsServer: a server that ignores the end of its input is
// sent SIGTERM once the client's input ends and the grace has passed; the
// proxy ends with its status (128 + 15).
func TestStdioCloseEndsServer(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	p, err := proxy.New(proxy.Engine{E: sharedEngine(t)}, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &proxy.Stdio{Proxy: p, Cmd: exec.Command(sleep, "60"), CloseGrace: 100 * time.Millisecond}
	done := make(chan int, 1)
	go func() {
		code, _ := st.Run(context.Background(), strings.NewReader(""), io.Discard)
		done <- code
	}()
	select {
	case code := <-done:
		if code != 128+15 {
			t.Fatalf("exit %d, want %d", code, 128+15)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy did not end the server after its input closed")
	}
}
