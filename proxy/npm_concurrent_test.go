package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
)

// lroToken is the progress token of the long-running operation.
const lroToken = "lro-progress-1"

// everythingConcurrent runs, through s, server-everything's long-running
// operation (progress notifications at each step) while echo calls run
// beside it, all at once in one session. Each call must get its own
// answer, and in what the client received (tr) every progress
// notification of the operation must come before its result (docs/proxy.md,
// "Order").
func everythingConcurrent(t *testing.T, s *mcp.ClientSession, tr *traffic) {
	t.Helper()
	const steps, echoes = 4, 8
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var lro *mcp.CallToolResult
	var lroErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": steps}}
		p.SetProgressToken(lroToken)
		lro, lroErr = s.CallTool(ctx, p)
	}()
	got := make([]string, echoes)
	errs := make([]error, echoes)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": fmt.Sprintf("concurrent message %d", i)}})
			if err != nil {
				errs[i] = err
				return
			}
			got[i] = textOf(r)
		}()
	}
	wg.Wait()
	if lroErr != nil || !strings.Contains(textOf(lro), "Long running operation completed") {
		t.Fatalf("long-running operation: %v %v", lroErr, lro)
	}
	for i := range got {
		if errs[i] != nil || !strings.Contains(got[i], fmt.Sprintf("concurrent message %d", i)) {
			t.Errorf("echo %d: %q %v", i, got[i], errs[i])
		}
	}

	tr.mu.Lock()
	defer tr.mu.Unlock()
	var lroID string
	for _, line := range tr.sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Params.Name == "trigger-long-running-operation" {
			lroID = string(m.ID)
		}
	}
	result, progress := -1, []int{}
	for i, line := range tr.recv {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Token    any `json:"progressToken"`
				Progress int `json:"progress"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method == "notifications/progress" && m.Params.Token == lroToken:
			if result >= 0 {
				t.Errorf("progress %d of the operation came after its result", m.Params.Progress)
			}
			progress = append(progress, m.Params.Progress)
		case m.Method == "" && lroID != "" && string(m.ID) == lroID:
			result = i
		}
	}
	if result < 0 || fmt.Sprint(progress) != fmt.Sprint([]int{1, 2, 3, 4}) {
		t.Errorf("operation %s: result at %d, progress %v", lroID, result, progress)
	}
}

// TestStdioEverythingConcurrent: server-everything (npm, pinned) through
// the stdio proxy, on each revision the client negotiates: a long-running
// operation with progress and echo calls at once in one session (the
// proxy's passes run concurrently), every message schema-valid.
func TestStdioEverythingConcurrent(t *testing.T) {
	srv := peertest.Install(t)
	for _, rev := range []string{"2025-11-25", ""} {
		t.Run(revName(rev), func(t *testing.T) {
			h := startStdioClient(t, exec.Command(srv.Node, srv.Everything, "stdio"), everythingClient(), &mcp.ClientSessionOptions{ProtocolVersion: rev})
			everythingConcurrent(t, h.session, h.tr)
			rv := h.revision()
			if r := h.close(); r.err != nil {
				t.Errorf("proxy: %v", r.err)
			}
			checkTraffic(t, h.tr, rv, nil)
		})
	}
}

// TestHTTPEverythingConcurrent: the same over Streamable HTTP (SSE
// answers) through the HTTP proxy.
func TestHTTPEverythingConcurrent(t *testing.T) {
	up := startEverythingHTTP(t)
	for _, rev := range []string{"2025-11-25", ""} {
		t.Run(revName(rev), func(t *testing.T) {
			rc, purl := startHTTPProxy(t, up, nil)
			s, err := everythingClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: purl}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatal(err)
			}
			everythingConcurrent(t, s, rc.tr)
			rv := s.InitializeResult().ProtocolVersion
			s.Close()
			checkTraffic(t, rc.tr, rv, nil)
		})
	}
}

func revName(rev string) string {
	if rev == "" {
		return "latest"
	}
	return rev
}
