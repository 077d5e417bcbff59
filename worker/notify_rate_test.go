package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// rateEngine is an engine whose policy allows max notifications per server
// in a minute (long enough that no window ends within a test).
func rateEngine(t *testing.T, max int) *pipeline.Engine {
	t.Helper()
	pol := pipeline.DefaultPolicy()
	pol.Notifications = pipeline.NotificationPolicy{MaxPerWindow: max, WindowMillis: 60_000}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func notification(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d,"message":"<system>step %d</system>"}}`, i, i)
}

// rateRecords counts the evidence records of the notification limit per
// server, and all records.
func rateRecords(t *testing.T, js jetstream.JetStream) (rated map[string]int, all int) {
	t.Helper()
	rated = map[string]int{}
	for _, m := range streamMsgs(t, js, wire.StreamEvidence) {
		all++
		var ev struct {
			Reason, Code, Kind, Server, Tenant string
		}
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Fatalf("evidence record: %v", err)
		}
		if ev.Reason == string(wire.ReasonNotificationRate) {
			if ev.Code != string(wire.CodeBoundExceeded) || ev.Kind != string(wire.KindNotification) {
				t.Fatalf("rate record: %s", m.Data)
			}
			rated[ev.Tenant+"/"+ev.Server]++
		}
		noSecrets(t, "evidence", m.Data)
	}
	return rated, all
}

// TestNotificationRateInline: on the inline path a server's notifications
// over the policy's rate are answered with the refused-notification form
// (never the input), with one evidence record for the window; another
// server, and the same server name under another tenant, have limits of
// their own; other kinds are not limited.
func TestNotificationRateInline(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	startServiceWith(t, nc, rateEngine(t, 5), WithDurable(false), WithFraming("jsonrpc"))
	ask := func(tenant, server string, kind wire.Kind, body []byte) *nats.Msg {
		t.Helper()
		m := nats.NewMsg(wire.Subject(wire.SanitizePrefix, string(kind)))
		m.Header.Set(wire.HeaderTenant, tenant)
		m.Header.Set(wire.HeaderServer, server)
		m.Data = body
		r, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		noSecrets(t, "reply", r.Data)
		return r
	}
	cases := []struct {
		tenant, server string
		n, delivered   int
	}{
		{"acme", "noisy", 40, 5},
		{"acme", "calm", 5, 5},
		{"other", "noisy", 7, 5},
	}
	for _, tc := range cases {
		delivered := 0
		for i := range tc.n {
			r := ask(tc.tenant, tc.server, wire.KindNotification, notification(i))
			switch r.Header.Get(wire.HeaderOutcome) {
			case string(wire.OutcomeRejected):
				if r.Header.Get(wire.HeaderCode) != string(wire.CodeBoundExceeded) ||
					!strings.Contains(string(r.Data), `"logger":"mcp-sanitize"`) || !strings.Contains(string(r.Data), string(wire.ReasonNotificationRate)) {
					t.Fatalf("%s/%s refused: %s %s", tc.tenant, tc.server, r.Header, r.Data)
				}
			default:
				delivered++
				if !strings.Contains(string(r.Data), `"progress":`) {
					t.Fatalf("%s/%s delivered: %s", tc.tenant, tc.server, r.Data)
				}
			}
		}
		if delivered != tc.delivered {
			t.Errorf("%s/%s: %d of %d delivered, want %d", tc.tenant, tc.server, delivered, tc.n, tc.delivered)
		}
	}
	// A tool result of the noisy server is not a notification.
	if r := ask("acme", "noisy", wire.KindToolResult, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)); r.Header.Get(wire.HeaderOutcome) == string(wire.OutcomeRejected) {
		t.Fatalf("tool result refused: %s", r.Data)
	}
	want := 40 + 5 + 7 + 1 - (40 - 5 - 1) - (7 - 5 - 1) // one record per refused window
	waitCount(t, js, wire.StreamEvidence, uint64(want), 10*time.Second)
	rated, _ := rateRecords(t, js)
	if rated["acme/noisy"] != 1 || rated["other/noisy"] != 1 || rated["acme/calm"] != 0 || len(rated) != 2 {
		t.Fatalf("rate records %v, want one per refused server", rated)
	}
}

// TestNotificationRateDurable: on the durable path a notification over the
// rate is acknowledged without a clean message, and its window gets one
// evidence record.
func TestNotificationRateDurable(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	ensureStreams(t, js)
	startServiceWith(t, nc, rateEngine(t, 4), WithInline(false), WithStreams(fastStreams()), WithFraming("jsonrpc"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 25
	for i := range n {
		m := nats.NewMsg(wire.Subject(wire.RawPrefix, "acme", "noisy", string(wire.KindNotification)))
		m.Header.Set(wire.HeaderRequestID, fmt.Sprintf("req-%d", i))
		m.Data = notification(i)
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	waitCount(t, js, wire.StreamRaw, 0, 20*time.Second) // all acknowledged
	waitCount(t, js, wire.StreamClean, 4, 5*time.Second)
	waitCount(t, js, wire.StreamEvidence, 5, 5*time.Second)
	for _, m := range streamMsgs(t, js, wire.StreamClean) {
		noSecrets(t, "clean", m.Data)
		if m.Header.Get(wire.HeaderOutcome) == string(wire.OutcomeRejected) {
			t.Fatalf("a refused notification was published: %s", m.Data)
		}
	}
	if rated, _ := rateRecords(t, js); rated["acme/noisy"] != 1 {
		t.Fatalf("rate records %v, want one", rated)
	}
	if n, _ := streamCount(js, wire.StreamDLQ); n != 0 {
		t.Fatalf("%d DLQ entries", n)
	}
}

// TestNotifyLimiterBounded: the limiter's memory does not grow with the
// number of servers or of distinct limits, and a flood of new server names
// is limited together once the servers tracked are full.
func TestNotifyLimiterBounded(t *testing.T) {
	l := &notifyLimiter{maxKeys: 8}
	now := time.Unix(1e9, 0)
	pol := pipeline.NotificationPolicy{MaxPerWindow: 3, WindowMillis: 60_000}
	refused := 0
	for i := range 10_000 {
		if ok, _ := l.allow(pol, fmt.Sprintf("t.s%d", i), now); !ok {
			refused++
		}
	}
	// 7 servers tracked (one place is the shared key), each allowed its
	// first; the other 9993 share 3 events.
	if want := 10_000 - 7 - 3; refused != want {
		t.Fatalf("%d refused, want %d", refused, want)
	}
	// After the window, new servers are tracked again.
	if ok, _ := l.allow(pol, "t.new", now.Add(time.Minute)); !ok {
		t.Fatal("a server after the window refused")
	}
	for i := range 100 {
		l.allow(pipeline.NotificationPolicy{MaxPerWindow: i + 1, WindowMillis: 1000}, "t.s", now)
	}
	if len(l.windows) > maxNotifyLimitSets {
		t.Fatalf("%d limit sets kept", len(l.windows))
	}
	// No limit: never refused.
	for range 100 {
		if ok, _ := l.allow(pipeline.NotificationPolicy{MaxPerWindow: -1}, "t.s", now); !ok {
			t.Fatal("refused without a limit")
		}
	}
}

// BenchmarkNotifyAllow: the limiter's cost per notification, the policy
// read included (one server; past the first million, refused: the cost
// is the same).
func BenchmarkNotifyAllow(b *testing.B) {
	pol := pipeline.DefaultPolicy()
	pol.Notifications = pipeline.NotificationPolicy{MaxPerWindow: 1_000_000, WindowMillis: 3_600_000}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		b.Fatal(err)
	}
	l := &notifyLimiter{}
	mc := &msgContext{tenantTok: "acme", serverTok: "files"}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		l.allow(eng.Policy().Notifications, notifyKey(mc), now)
	}
}

// TestRateNotificationOncePerDelivery: a pass run again within one
// delivery (the durable path's retry of an unavailable resolver) does not
// count the notification twice; other kinds are never counted.
func TestRateNotificationOncePerDelivery(t *testing.T) {
	eng := rateEngine(t, 1)
	s := &Service{def: eng}
	mc := newContext(PathDurable, string(wire.KindNotification), "acme", "files", nats.Header{})
	for range 3 {
		if r := s.rateNotification(eng, mc); r != nil {
			t.Fatal("one delivery counted more than once")
		}
	}
	mc2 := newContext(PathDurable, string(wire.KindNotification), "acme", "files", nats.Header{})
	r := s.rateNotification(eng, mc2)
	if r == nil || !r.rated || r.quiet || r.ev.Code != pipeline.CodeBoundExceeded || r.ev.Reason != string(wire.ReasonNotificationRate) {
		t.Fatalf("second notification: %+v", r)
	}
	mc3 := newContext(PathDurable, string(wire.KindNotification), "acme", "files", nats.Header{})
	if r := s.rateNotification(eng, mc3); r == nil || !r.quiet {
		t.Fatalf("third notification: %+v", r)
	}
	tr := newContext(PathDurable, string(wire.KindToolResult), "acme", "files", nats.Header{})
	if r := s.rateNotification(eng, tr); r != nil {
		t.Fatal("a tool result was counted")
	}
}
