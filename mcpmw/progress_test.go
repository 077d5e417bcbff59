package mcpmw_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/mcpmw"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// TestProgressToken: a tool's progress notifications reach the client with
// the progress token the client sent, even one that reads like a
// credential assignment to the secret rules (the pass alone redacts it),
// and with their message sanitized.
func TestProgressToken(t *testing.T) {
	const token = "lro-progress-1"
	srv := mcp.NewServer(&mcp.Implementation{Name: "progress", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "work", Description: "Works in steps.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 2; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
					Progress: float64(i), Total: 2, Message: "step " + tag}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	if err := mcpmw.Install(srv, proxy.Engine{E: engine(t)}, mcpmw.Options{Server: "progress"}); err != nil {
		t.Fatal(err)
	}
	type note struct {
		token any
		msg   string
	}
	notes := make(chan note, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			notes <- note{r.Params.ProgressToken, r.Params.Message}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	p := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}}
	p.SetProgressToken(token)
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		select {
		case n := <-notes:
			if n.token != token || strings.Contains(n.msg, "im_start") || !strings.Contains(n.msg, "step") {
				t.Errorf("progress %d: token %v, message %q", i, n.token, n.msg)
			}
		case <-ctx.Done():
			t.Fatalf("progress %d did not arrive", i)
		}
	}
}
