package worker

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

var guardAdapter = strings.Repeat("cd", 32)

func guardBroker() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)) }

func resourceEngine(t *testing.T) *pipeline.Engine {
	t.Helper()
	e, err := pipeline.NewEngine(&pipeline.Policy{Version: "res-7", Resources: &resgate.Policy{
		Schemes:            []resuri.Scheme{{Name: "aidefend-file", Kind: resuri.KindRoot}, {Name: "https", Kind: resuri.KindHTTPS}},
		Roots:              map[string]resgate.Root{"docs": {RootID: "root-docs", MIMEType: "text/markdown"}},
		AdapterBuildSha256: guardAdapter,
		BrokerKeys:         map[string]string{"b1": base64.RawURLEncoding.EncodeToString(guardBroker().Public().(ed25519.PublicKey))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func localResult(t *testing.T, content string) []byte {
	sum := sha256.Sum256([]byte(content))
	now := time.Now().UTC()
	rec, err := receipt.Sign(guardBroker(), "b1", receipt.Receipt{AdapterBuildSha256: guardAdapter, BytesSha256: hex.EncodeToString(sum[:]),
		Control: receipt.Control, IssuedAt: now.Add(-time.Second).Format(time.RFC3339), ExpiresAt: now.Add(time.Minute).Format(time.RFC3339),
		ObjectIdentity: receipt.ObjectIdentity{FileID: "1", LinkCount: 1, Size: int64(len(content)), Type: "regular", VolumeID: "v"},
		Operation:      "read", Outcome: "PASS", PlatformProfile: "linux", PolicyVersion: "res-7", RelativePath: "a.md",
		RootID: "root-docs", SchemaVersion: receipt.SchemaVersion})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "result": map[string]any{"contents": []any{map[string]any{
		"uri": "aidefend-file://docs/a.md", "text": content, "_meta": map[string]any{resgate.MetaReceipt: json.RawMessage(rec)}}}}})
	return b
}

// TestResourceGuardOverNATS runs the resources guard in the worker with
// the authorization hook answered by a NATS responder, and with no
// responder at all (an outage, which must refuse).
func TestResourceGuardOverNATS(t *testing.T) {
	srv := serveTestServer(t)
	nc, _ := serveConnect(t, srv.ClientURL())
	hook, _ := serveConnect(t, srv.ClientURL())

	var asked atomic.Int32
	var lastReq atomic.Value
	sub, err := hook.Subscribe("acme.authz.resource", func(m *nats.Msg) {
		asked.Add(1)
		var req resgate.AuthzRequest
		if err := json.Unmarshal(m.Data, &req); err != nil {
			m.Respond([]byte(`{"outcome":"DENY"}`))
			return
		}
		lastReq.Store(req)
		if req.Principal == "alice" {
			m.Respond([]byte(`{"outcome":"ALLOW"}`))
			return
		}
		m.Respond([]byte(`{"outcome":"DENY"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	hook.Flush()
	az, err := NewNATSAuthorizer(nc, "acme.authz.resource", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	eng := resourceEngine(t)
	startServiceWith(t, nc, eng, WithAuthorizer(az), WithDurable(false))

	ask := func(principal string, body []byte) *nats.Msg {
		m := nats.NewMsg("mcp.sanitize.resource-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(wire.HeaderPrincipal, principal)
		m.Header.Set(wire.HeaderRequestParams, `{"uri":"aidefend-file://docs/a.md"}`)
		m.Data = body
		r, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := ask("alice", localResult(t, "hello "+testGitHubToken))
	if r.Header.Get(wire.HeaderOutcome) == "rejected" || strings.Contains(string(r.Data), testGitHubToken) ||
		!strings.Contains(string(r.Data), resgate.MetaReceiptSha256) || !strings.Contains(string(r.Data), `"mimeType":"text/markdown"`) {
		t.Fatalf("allowed read: %s %s", r.Header.Get(wire.HeaderCode), r.Data)
	}
	if asked.Load() != 2 {
		t.Fatalf("hook asked %d times, want 2 (requested and opened)", asked.Load())
	}
	if req := lastReq.Load().(resgate.AuthzRequest); req.Phase != resgate.PhaseOpened || req.Tenant != "acme" || req.OpenedObject == nil {
		t.Fatalf("last request %+v", req)
	}
	r = ask("mallory", localResult(t, "hello"))
	if r.Header.Get(wire.HeaderCode) != string(wire.CodeResourceUnavailable) || strings.Contains(string(r.Data), "a.md") {
		t.Fatalf("denied read: %s %s", r.Header.Get(wire.HeaderCode), r.Data)
	}
	r = ask("", localResult(t, "hello"))
	if r.Header.Get(wire.HeaderCode) != string(wire.CodeResourceUnavailable) {
		t.Fatalf("read without principal: %s", r.Header.Get(wire.HeaderCode))
	}

	// Outage: the hook goes away; the read fails closed, with the same
	// public error.
	sub.Unsubscribe()
	hook.Flush()
	r = ask("alice", localResult(t, "hello"))
	if r.Header.Get(wire.HeaderCode) != string(wire.CodeResourceUnavailable) {
		t.Fatalf("read during an outage: %s %s", r.Header.Get(wire.HeaderCode), r.Data)
	}
	var body struct {
		Error struct {
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Data, &body); err != nil || body.Error.Message != wire.CodeResourceUnavailable.PublicMessage() {
		t.Fatalf("error result %s", r.Data)
	}
	if _, ok := body.Error.Data[wire.MetaKey(wire.MetaReason)]; ok {
		t.Fatalf("the reason reached the reply: %s", r.Data)
	}
}

func TestNATSAuthorizerAnswers(t *testing.T) {
	srv := serveTestServer(t)
	nc, _ := serveConnect(t, srv.ClientURL())
	answers := map[string]string{
		"allow":       `{"outcome":"ALLOW"}`,
		"deny":        `{"outcome":"DENY"}`,
		"lower":       `{"outcome":"allow"}`,
		"extra":       `{"outcome":"ALLOW","why":"x"}`,
		"duplicate":   `{"outcome":"DENY","outcome":"ALLOW"}`,
		"not json":    `ALLOW`,
		"wrong type":  `{"outcome":true}`,
		"empty reply": ``,
	}
	for name, ans := range answers {
		subj := "authz.t." + strings.ReplaceAll(name, " ", "-")
		ans := ans
		if _, err := nc.Subscribe(subj, func(m *nats.Msg) { m.Respond([]byte(ans)) }); err != nil {
			t.Fatal(err)
		}
	}
	nc.Flush()
	for name, want := range map[string]bool{"allow": true, "deny": false, "lower": false, "extra": false,
		"duplicate": false, "not json": false, "wrong type": false, "empty reply": false} {
		a, err := NewNATSAuthorizer(nc, "authz.t."+strings.ReplaceAll(name, " ", "-"), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.Authorize(context.Background(), resgate.AuthzRequest{Principal: "p", Action: "read", CanonicalURI: "https://x/", Phase: resgate.PhaseRequested})
		if allowed := err == nil && d.Outcome == resgate.OutcomeAllow; allowed != want {
			t.Errorf("%s: allowed %v (%v, %v)", name, allowed, d, err)
		}
	}
	a, _ := NewNATSAuthorizer(nc, "authz.nobody", 200*time.Millisecond)
	if _, err := a.Authorize(context.Background(), resgate.AuthzRequest{}); err == nil {
		t.Error("no responder is not an outage")
	}
	if _, err := NewNATSAuthorizer(nc, "authz.*", 0); err == nil {
		t.Error("wildcard subject accepted")
	}
}

// startServiceWith starts a service on engine eng (startService uses the
// default engine).
func startServiceWith(t *testing.T, nc *nats.Conn, eng *pipeline.Engine, opts ...ServeOption) *Service {
	t.Helper()
	svc, err := NewService(nc, eng, append([]ServeOption{WithMessageTimeout(5 * time.Second), WithConsumerStatsEvery(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		svc.Stop(ctx)
	})
	return svc
}
