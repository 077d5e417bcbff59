package proxy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestNotificationRate: a server's notifications over the policy's rate
// are dropped, never queued, with one evidence record for the window; the
// ones within it are delivered sanitized.
func TestNotificationRate(t *testing.T) {
	p, evs := newTestProxy(t, nil, Options{Server: "srv", Notifications: pipeline.NotificationPolicy{MaxPerWindow: 5, WindowMillis: 60_000}})
	s := p.NewSession()
	delivered := 0
	for i := range 50 {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d,"message":"<system>step</system>"}}`, i)
		r := s.FromServer(context.Background(), []byte(msg), nil)
		if r.Client != nil {
			delivered++
			if strings.Contains(string(r.Client), "<system>") {
				t.Fatalf("delivered unsanitized: %s", r.Client)
			}
		}
	}
	if delivered != 5 {
		t.Fatalf("%d notifications delivered, want 5", delivered)
	}
	refused := 0
	for _, ev := range *evs {
		if ev.Reason == string(wire.ReasonNotificationRate) {
			refused++
			if ev.Code != wire.CodeBoundExceeded || ev.Kind != string(wire.KindNotification) {
				t.Fatalf("rate record: %+v", ev)
			}
		}
	}
	if refused != 1 {
		t.Fatalf("%d rate records, want one for the window", refused)
	}
	// Responses are not notifications: never limited.
	s.FromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if r := s.FromServer(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), nil); r.Client == nil {
		t.Fatal("a response was dropped by the notification limit")
	}
}
