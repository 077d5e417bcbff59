package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

func stateTestRing(t *testing.T) *statekeys.Keyring {
	t.Helper()
	r, err := statekeys.GenerateRing(nil, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := statekeys.NewKeyring(r)
	return k
}

func startStateService(t *testing.T, nc *nats.Conn, js jetstream.JetStream, ring *statekeys.Keyring, opts ...StateOption) *StateService {
	t.Helper()
	svc, err := NewStateService(nc, js, ring, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { svc.Stop() })
	return svc
}

var (
	stIdentity  = statekeys.Identity{Subject: "user-alice", Tenant: "acme", ClientID: "client-1"}
	stOperation = statekeys.Operation{Method: "tools/call", Name: "book_meeting", Arguments: json.RawMessage(`{"room":"A"}`)}
	stURLInputs = json.RawMessage(`{"login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://auth.example.com/connect","elicitationId":"elic-0123456789"}}}`)
)

type stateReply struct {
	OK             bool                               `json:"ok"`
	RequestState   string                             `json:"requestState"`
	FlowID         string                             `json:"flowId"`
	KeyID          string                             `json:"keyId"`
	ExpiresAt      *time.Time                         `json:"expiresAt"`
	InputResponses map[string]statekeys.InputResponse `json:"inputResponses"`
	AppState       []byte                             `json:"appState"`
	Error          *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func stateRequest(t *testing.T, nc *nats.Conn, subject string, v any) stateReply {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	m, err := nc.Request(subject, b, 5*time.Second)
	if err != nil {
		t.Fatalf("request %s: %v", subject, err)
	}
	var r stateReply
	if err := json.Unmarshal(m.Data, &r); err != nil {
		t.Fatalf("reply: %v: %s", err, m.Data)
	}
	return r
}

func stateSealMsg() map[string]any {
	return map[string]any{"identity": stIdentity, "operation": stOperation, "inputRequests": stURLInputs, "ttlSeconds": 120, "appState": []byte("step-2")}
}

func stateVerifyMsg(token string) map[string]any {
	return map[string]any{
		"requestState":   token,
		"identity":       stIdentity,
		"operation":      stOperation,
		"inputRequests":  stURLInputs,
		"inputResponses": json.RawMessage(`{"login":{"action":"accept"}}`),
		"urlCompletions": map[string]statekeys.Identity{"elic-0123456789": stIdentity},
	}
}

func TestStateServiceSealVerifyReplay(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc, js := testnats.Connect(t, s.ClientURL())
	ring := stateTestRing(t)
	startStateService(t, nc, js, ring)

	client, _ := testnats.Connect(t, s.ClientURL())
	evsub, err := client.SubscribeSync(DefaultStateEvidencePrefix + ".>")
	if err != nil {
		t.Fatal(err)
	}
	client.Flush()

	sr := stateRequest(t, client, SubjectStateSeal, stateSealMsg())
	if !sr.OK || !strings.HasPrefix(sr.RequestState, "mrs1."+ring.Ring().Active().ID+".") || sr.FlowID == "" {
		t.Fatalf("seal stateReply %+v", sr)
	}
	vr := stateRequest(t, client, SubjectStateVerify, stateVerifyMsg(sr.RequestState))
	if !vr.OK || vr.FlowID != sr.FlowID || string(vr.AppState) != "step-2" || vr.InputResponses["login"].Action != "accept" {
		t.Fatalf("verify stateReply %+v", vr)
	}
	again := stateRequest(t, client, SubjectStateVerify, stateVerifyMsg(sr.RequestState))
	if again.OK || again.Error == nil || again.Error.Code != "STATE_REJECTED" || again.Error.Message != "request state rejected" {
		t.Fatalf("replay stateReply %+v", again)
	}
	// Cross-tenant retry: same public error.
	m := stateVerifyMsg(sr.RequestState)
	m["identity"] = statekeys.Identity{Subject: "user-alice", Tenant: "globex", ClientID: "client-1"}
	cross := stateRequest(t, client, SubjectStateVerify, m)
	if cross.OK || cross.Error.Code != "STATE_REJECTED" || cross.Error.Message != again.Error.Message {
		t.Fatalf("cross-tenant stateReply %+v", cross)
	}

	// Evidence: seal accept, verify accept, verify reject (replayed) on
	// mcp.evidence.acme, then tenant-mismatch on mcp.evidence.globex.
	want := []struct{ subject, decision, reason string }{
		{"mcp.evidence.acme", "accept", ""},
		{"mcp.evidence.acme", "accept", ""},
		{"mcp.evidence.acme", "reject", "replayed"},
		{"mcp.evidence.globex", "reject", "tenant-mismatch"},
		{"mcp.evidence.acme", "reject", "tenant-mismatch"},
	}
	for i, w := range want {
		msg, err := evsub.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatalf("evidence %d: %v", i, err)
		}
		var ev struct {
			Kind     string `json:"kind"`
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
			FlowID   string `json:"flowId"`
		}
		json.Unmarshal(msg.Data, &ev)
		if msg.Subject != w.subject || ev.Kind != "statekeys" || ev.Decision != w.decision || ev.Reason != w.reason || ev.FlowID != sr.FlowID {
			t.Fatalf("evidence %d on %s: %s", i, msg.Subject, msg.Data)
		}
		if strings.Contains(string(msg.Data), sr.RequestState) || strings.Contains(string(msg.Data), "user-alice") {
			t.Fatalf("evidence leaks token or subject: %s", msg.Data)
		}
	}
}

func TestStateServiceBadRequests(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc, js := testnats.Connect(t, s.ClientURL())
	startStateService(t, nc, js, stateTestRing(t), WithStateMaxRequestBytes(4096))
	client, _ := testnats.Connect(t, s.ClientURL())
	tests := []struct {
		name, subject, body, code string
	}{
		{"not-json", SubjectStateSeal, `{`, "STATE_INVALID_REQUEST"},
		{"unknown-field", SubjectStateSeal, `{"identity":{},"bogus":1}`, "STATE_INVALID_REQUEST"},
		{"too-large", SubjectStateVerify, `{"requestState":"` + strings.Repeat("A", 5000) + `"}`, "STATE_INVALID_REQUEST"},
		{"bad-method", SubjectStateSeal, `{"identity":{"subject":"u","tenant":"acme","clientId":"c"},"operation":{"method":"tools/list","name":"x"}}`, "STATE_INVALID_REQUEST"},
		{"garbage-token", SubjectStateVerify, `{"requestState":"mrs1.k1.AAAA","identity":{"subject":"u","tenant":"acme","clientId":"c"},"operation":{"method":"tools/call","name":"x"}}`, "STATE_REJECTED"},
		{"http-url", SubjectStateSeal, `{"identity":{"subject":"u","tenant":"acme","clientId":"c"},"operation":{"method":"tools/call","name":"x"},"inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"http://a.example.com/","elicitationId":"elic-0123456789"}}}}`, "ELICITATION_URL_REFUSED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := client.Request(tt.subject, []byte(tt.body), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var r stateReply
			json.Unmarshal(m.Data, &r)
			if r.OK || r.Error == nil || r.Error.Code != tt.code || r.Error.Message != statekeys.PublicMessage(statekeys.Code(tt.code)) {
				t.Fatalf("reply %s", m.Data)
			}
		})
	}
}

// Two verifiers on two separate connections, each with its own KVStore over
// the same bucket, race on every token: exactly one accepts.
func TestKVStoreConcurrentVerifiers(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc1, js1 := testnats.Connect(t, s.ClientURL())
	_, js2 := testnats.Connect(t, s.ClientURL())
	ctx := context.Background()
	kv1, err := EnsureReplayBucket(ctx, js1, DefaultReplayBucketConfig())
	if err != nil {
		t.Fatal(err)
	}
	kv2, err := js2.KeyValue(ctx, DefaultReplayBucket)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc1
	ring := stateTestRing(t)
	k1, _ := statekeys.New(ring, NewKVStore(kv1))
	k2, _ := statekeys.New(ring, NewKVStore(kv2))
	for round := 0; round < 25; round++ {
		sealed, _, err := k1.Seal(ctx, statekeys.SealRequest{Identity: stIdentity, Operation: stOperation})
		if err != nil {
			t.Fatal(err)
		}
		var accepted, replayed atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, k := range []*statekeys.Keeper{k1, k2, k1, k2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, _, err := k.Verify(ctx, statekeys.VerifyRequest{RequestState: sealed.RequestState, Identity: stIdentity, Operation: stOperation})
				switch statekeys.ReasonOf(err) {
				case statekeys.ReasonNone:
					accepted.Add(1)
				case statekeys.ReasonReplayed:
					replayed.Add(1)
				default:
					t.Errorf("unexpected: %v (%s)", err, statekeys.ReasonOf(err))
				}
			}()
		}
		close(start)
		wg.Wait()
		if accepted.Load() != 1 || replayed.Load() != 3 {
			t.Fatalf("round %d: accepted %d replayed %d", round, accepted.Load(), replayed.Load())
		}
	}
}

// Two services (two connections) in one queue group; concurrent retries of
// the same state through NATS: exactly one ok.
func TestStateServiceConcurrentReplayOverNATS(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	ring := stateTestRing(t)
	nc1, js1 := testnats.Connect(t, s.ClientURL())
	nc2, js2 := testnats.Connect(t, s.ClientURL())
	startStateService(t, nc1, js1, ring)
	startStateService(t, nc2, js2, ring)
	client, _ := testnats.Connect(t, s.ClientURL())
	sr := stateRequest(t, client, SubjectStateSeal, stateSealMsg())
	if !sr.OK {
		t.Fatalf("seal %+v", sr)
	}
	const n = 12
	var ok, rejected atomic.Int32
	var wg sync.WaitGroup
	body, _ := json.Marshal(stateVerifyMsg(sr.RequestState))
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := client.Request(SubjectStateVerify, body, 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			var r stateReply
			json.Unmarshal(m.Data, &r)
			if r.OK {
				ok.Add(1)
			} else if r.Error != nil && r.Error.Code == "STATE_REJECTED" {
				rejected.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || rejected.Load() != n-1 {
		t.Fatalf("ok %d rejected %d", ok.Load(), rejected.Load())
	}
}

func TestKVStoreRecordExpires(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	_, js := testnats.Connect(t, s.ClientURL())
	ctx := context.Background()
	kv, err := EnsureReplayBucket(ctx, js, DefaultReplayBucketConfig())
	if err != nil {
		t.Fatal(err)
	}
	st := NewKVStore(kv)
	if first, err := st.Consume(ctx, "flow-1", 300*time.Millisecond); err != nil || !first {
		t.Fatalf("first: %v %v", first, err)
	}
	if first, err := st.Consume(ctx, "flow-1", time.Second); err != nil || first {
		t.Fatalf("second: %v %v", first, err)
	}
	// The TTL (rounded up to one second) ends the record; poll for it.
	testnats.CheckFor(t, 10*time.Second, 100*time.Millisecond, func() error {
		if _, err := kv.Get(ctx, "f.flow-1"); err == nil {
			return errStoreUnavailable
		}
		return nil
	})
}

func TestKVKeySourceRotationWithoutRestart(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc, js := testnats.Connect(t, s.ClientURL())
	ctx := context.Background()
	keys, err := EnsureKeyBucket(ctx, js, DefaultKeyBucket, 1)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := statekeys.GenerateRing(nil, time.Now().Add(-time.Hour))
	if err := PutKeyRing(ctx, keys, "", first); err != nil {
		t.Fatal(err)
	}
	src := KVKeySource{KV: keys}
	loaded, err := src.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := statekeys.NewKeyring(loaded)
	startStateService(t, nc, js, ring, WithKVKeySource(src))
	client, _ := testnats.Connect(t, s.ClientURL())

	old := stateRequest(t, client, SubjectStateSeal, stateSealMsg())
	oldB := stateRequest(t, client, SubjectStateSeal, stateSealMsg())
	if !old.OK || old.KeyID != first.Active().ID || oldB.KeyID != first.Active().ID {
		t.Fatalf("seal %+v", old)
	}
	rotated, info, err := first.Rotate(nil, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := PutKeyRing(ctx, keys, "", rotated); err != nil {
		t.Fatal(err)
	}
	var fresh stateReply
	testnats.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		fresh = stateRequest(t, client, SubjectStateSeal, stateSealMsg())
		if fresh.KeyID != info.ID {
			return errStoreUnavailable
		}
		return nil
	})
	// The state sealed before rotation still verifies.
	if r := stateRequest(t, client, SubjectStateVerify, stateVerifyMsg(old.RequestState)); !r.OK {
		t.Fatalf("old state after rotation: %+v", r.Error)
	}
	// Retire the old key: its states stop opening.
	retired, err := rotated.Retire(first.Active().ID)
	if err != nil {
		t.Fatal(err)
	}
	old2 := stateRequest(t, client, SubjectStateSeal, stateSealMsg()) // sealed with the new key
	PutKeyRing(ctx, keys, "", retired)
	testnats.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		for _, k := range ring.Ring().Keys() {
			if k.ID == first.Active().ID && k.State == statekeys.KeyRetired {
				return nil
			}
		}
		return errStoreUnavailable
	})
	if r := stateRequest(t, client, SubjectStateVerify, stateVerifyMsg(old2.RequestState)); !r.OK {
		t.Fatalf("new-key state after retiring the old key: %+v", r.Error)
	}
	if r := stateRequest(t, client, SubjectStateVerify, stateVerifyMsg(oldB.RequestState)); r.OK || r.Error.Code != "STATE_REJECTED" {
		t.Fatalf("retired-key state still opens: %+v", r)
	}
	// A garbage revision leaves the ring in place.
	keys.Put(ctx, DefaultKeyRingKey, []byte("{"))
	if r := stateRequest(t, client, SubjectStateSeal, stateSealMsg()); !r.OK || r.KeyID != info.ID {
		t.Fatalf("after a garbage revision: %+v", r)
	}
}

// BenchmarkStateService measures stateRequest/stateReply round trips through an
// embedded server on loopback: seal, and verify (each verify consumes a new
// flow id in the JetStream KV bucket). SetBytes is the stateRequest size.
func BenchmarkStateService(b *testing.B) {
	for _, bc := range []string{"seal", "verify"} {
		b.Run(bc, func(b *testing.B) {
			s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: b.TempDir(), NoLog: true, NoSigs: true})
			if err != nil {
				b.Fatal(err)
			}
			go s.Start()
			if !s.ReadyForConnections(10 * time.Second) {
				b.Fatal("not ready")
			}
			defer func() { s.Shutdown(); s.WaitForShutdown() }()
			nc, _ := nats.Connect(s.ClientURL())
			defer nc.Close()
			js, _ := jetstream.New(nc)
			r, _ := statekeys.GenerateRing(nil, time.Now().Add(-time.Hour))
			ring, _ := statekeys.NewKeyring(r)
			svc, err := NewStateService(nc, js, ring)
			if err != nil {
				b.Fatal(err)
			}
			if err := svc.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer svc.Stop()
			client, _ := nats.Connect(s.ClientURL())
			defer client.Close()
			sealBody, _ := json.Marshal(stateSealMsg())
			bodies := [][]byte{sealBody}
			if bc == "verify" {
				bodies = make([][]byte, b.N)
				for i := range bodies {
					m, err := client.Request(SubjectStateSeal, sealBody, 5*time.Second)
					if err != nil {
						b.Fatal(err)
					}
					var r stateReply
					json.Unmarshal(m.Data, &r)
					bodies[i], _ = json.Marshal(stateVerifyMsg(r.RequestState))
				}
			}
			b.SetBytes(int64(len(bodies[0])))
			b.ReportAllocs()
			var next atomic.Int64
			b.SetParallelism(8) // 8 requests in flight per GOMAXPROCS
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(next.Add(1) - 1)
					body := bodies[0]
					if bc == "verify" {
						body = bodies[i]
					}
					m, err := client.Request(stateSubjectFor(bc), body, 5*time.Second)
					if err != nil {
						b.Error(err)
						return
					}
					if !bytes.Contains(m.Data, []byte(`"ok":true`)) {
						b.Errorf("reply %s", m.Data)
						return
					}
				}
			})
		})
	}
}

func stateSubjectFor(op string) string {
	if op == "seal" {
		return SubjectStateSeal
	}
	return SubjectStateVerify
}

// gateStore holds every Consume until the gate opens, so requests pile up
// in the service while a test stops it.
type gateStore struct {
	gate  chan struct{}
	inner statekeys.Store
}

func (g *gateStore) Consume(ctx context.Context, flowID string, ttl time.Duration) (bool, error) {
	<-g.gate
	return g.inner.Consume(ctx, flowID, ttl)
}

// Stop drains: requests this member already received are answered, none is
// dropped on the way out, even those still queued behind a slow one.
func TestStateServiceStopDrainsReceived(t *testing.T) {
	s := testnats.RunServer(t, testnats.Options{})
	nc, js := testnats.Connect(t, s.ClientURL())
	ring := stateTestRing(t)
	gs := &gateStore{gate: make(chan struct{}), inner: &statekeys.MemoryStore{}}
	svc := startStateService(t, nc, js, ring, WithStateConcurrency(1), WithReplayStore(gs))
	client, _ := testnats.Connect(t, s.ClientURL())

	const n = 6
	var tokens []string // sealing does not consume, so the gate does not hold it
	for i := 0; i < n; i++ {
		tokens = append(tokens, stateRequest(t, client, SubjectStateSeal, stateSealMsg()).RequestState)
	}

	inbox := nats.NewInbox()
	replies, err := client.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		b, _ := json.Marshal(stateVerifyMsg(tok))
		if err := client.PublishRequest(SubjectStateVerify, inbox, b); err != nil {
			t.Fatal(err)
		}
	}
	client.Flush()
	// Wait until every request has reached the service's connection: one
	// is held in Consume, the rest queue in the subscription.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := int(svc.received.Load()) - n // the seals went through dispatch too
		for _, sub := range svc.subs {
			if sub.Subject == SubjectStateVerify {
				p, _, _ := sub.Pending()
				got += p
			}
		}
		if got >= n {
			break
		}
		if time.Now().After(deadline) {
			close(gs.gate) // let the cleanup's Stop finish
			t.Fatalf("only %d of %d requests reached the service", got, n)
		}
		time.Sleep(time.Millisecond)
	}
	var vsub *nats.Subscription
	for _, sub := range svc.subs {
		if sub.Subject == SubjectStateVerify {
			vsub = sub
		}
	}
	stopped := make(chan error, 1)
	go func() { stopped <- svc.Stop() }()
	// Open the gate only once Stop has let go of the subscription, so the
	// requests still queued in it must survive that.
	for vsub.IsValid() && !vsub.IsDraining() {
		time.Sleep(time.Millisecond)
	}
	close(gs.gate)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for i := 0; i < n; i++ {
		m, err := replies.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatalf("reply %d of %d: %v", i+1, n, err)
		}
		var r stateReply
		if err := json.Unmarshal(m.Data, &r); err != nil || !r.OK {
			t.Fatalf("reply %d: %s", i+1, m.Data)
		}
	}
}
