package statekeys_test

import (
	"context"
	"encoding/json"
	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSealVerifyRoundTrip(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	if !strings.HasPrefix(s.RequestState, "mrs1."+f.ring.Ring().Active().ID+".") {
		t.Fatalf("token shape: %.20s...", s.RequestState)
	}
	if s.ExpiresAt != t0.Add(DefaultTTL) {
		t.Fatalf("expiry %v", s.ExpiresAt)
	}
	v, ev, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState))
	if err != nil {
		t.Fatalf("Verify: %v (%s)", err, ReasonOf(err))
	}
	if v.FlowID != s.FlowID || string(v.AppState) != `{"step":2}` || ev.Decision != DecisionAccept {
		t.Fatalf("verified %+v evidence %+v", v, ev)
	}
	got := v.Responses["contact"]
	if got.Action != ActionAccept || string(got.Content) != `{"age":36,"email":"ada@example.com","name":"Ada","topics":["news"]}` {
		t.Fatalf("response %+v %s", got, got.Content)
	}
	if ev.Rule != RuleForm || len(ev.Inputs) != 1 || ev.Inputs[0].Action != ActionAccept {
		t.Fatalf("evidence %+v", ev)
	}
}

func TestVerifyStateOnly(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, SealRequest{Identity: alice, Operation: Operation{Method: MethodResourcesRead, Name: "file:///report.pdf"}})
	v, _, err := f.keeper.Verify(context.Background(), VerifyRequest{RequestState: s.RequestState, Identity: alice,
		Operation: Operation{Method: MethodResourcesRead, Name: "file:///report.pdf", Arguments: json.RawMessage(`{}`)}})
	if err != nil || v.FlowID != s.FlowID {
		t.Fatalf("Verify: %v %s", err, ReasonOf(err))
	}
}

// Every cross-binding retry is refused with the same public error.
func TestVerifyBindings(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*VerifyRequest)
		want   Reason
	}{
		{"cross-subject", func(r *VerifyRequest) { r.Identity.Subject = "user-mallory" }, ReasonSubjectMismatch},
		{"cross-tenant", func(r *VerifyRequest) { r.Identity.Tenant = "globex" }, ReasonTenantMismatch},
		{"cross-client", func(r *VerifyRequest) { r.Identity.ClientID = "client-2" }, ReasonClientMismatch},
		{"cross-method", func(r *VerifyRequest) { r.Operation.Method = MethodPromptsGet }, ReasonMethodMismatch},
		{"cross-method-unlisted", func(r *VerifyRequest) { r.Operation.Method = "tools/list" }, ReasonMethodMismatch},
		{"cross-name", func(r *VerifyRequest) { r.Operation.Name = "delete_meeting" }, ReasonNameMismatch},
		{"changed-argument", func(r *VerifyRequest) {
			r.Operation.Arguments = json.RawMessage(`{"room":"B","when":"2026-12-02T10:00:00Z","size":4}`)
		}, ReasonArgumentsMismatch},
		{"added-argument", func(r *VerifyRequest) {
			r.Operation.Arguments = json.RawMessage(`{"room":"A","when":"2026-12-02T10:00:00Z","size":4,"admin":true}`)
		}, ReasonArgumentsMismatch},
		{"dropped-arguments", func(r *VerifyRequest) { r.Operation.Arguments = nil }, ReasonArgumentsMismatch},
		{"duplicate-key-arguments", func(r *VerifyRequest) { r.Operation.Arguments = json.RawMessage(`{"room":"A","room":"B"}`) }, ReasonArgumentsInvalid},
		{"changed-schema", func(r *VerifyRequest) {
			r.InputRequests = formInputs(strings.Replace(contactSchema, `"maxLength":100`, `"maxLength":1000`, 1))
		}, ReasonSchemaChanged},
		{"changed-message", func(r *VerifyRequest) {
			r.InputRequests = json.RawMessage(strings.Replace(string(formInputs(contactSchema)), "reach you", "reach you now", 1))
		}, ReasonInputChanged},
		{"dropped-input-request", func(r *VerifyRequest) { r.InputRequests = nil }, ReasonInputKeysMismatch},
		{"renamed-input-request", func(r *VerifyRequest) {
			r.InputRequests = json.RawMessage(strings.Replace(string(formInputs(contactSchema)), `"contact"`, `"contact2"`, 1))
		}, ReasonInputKeysMismatch},
		{"missing-response", func(r *VerifyRequest) { r.InputResponses = json.RawMessage(`{}`) }, ReasonInputKeysMismatch},
		{"extra-response", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"decline"},"other":{"action":"accept"}}`)
		}, ReasonInputKeysMismatch},
		{"extra-property", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":"Ada","isAdmin":true}}}`)
		}, ReasonResponseSchema},
		{"coerced-integer", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":"Ada","age":"36"}}}`)
		}, ReasonResponseSchema},
		{"missing-required", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"age":36}}}`)
		}, ReasonResponseSchema},
		{"nested-object", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":{"first":"Ada"}}}}`)
		}, ReasonResponseSchema},
		{"bad-format", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":"Ada","email":"not an email"}}}`)
		}, ReasonResponseSchema},
		{"enum-outside", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":"Ada","topics":["admin"]}}}`)
		}, ReasonResponseSchema},
		{"over-byte-cap", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","content":{"name":"` + strings.Repeat("a", 99) + `","email":"` + strings.Repeat("b", 450) + `@example.com"}}}`)
		}, ReasonResponseTooLarge},
		{"unknown-action", func(r *VerifyRequest) { r.InputResponses = json.RawMessage(`{"contact":{"action":"approve"}}`) }, ReasonResponseAction},
		{"decline-with-content", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"decline","content":{"name":"Ada"}}}`)
		}, ReasonResponseInvalid},
		{"accept-without-content", func(r *VerifyRequest) { r.InputResponses = json.RawMessage(`{"contact":{"action":"accept"}}`) }, ReasonResponseInvalid},
		{"extra-result-key", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"cancel","why":"x"}}`)
		}, ReasonResponseInvalid},
		{"duplicate-response-key", func(r *VerifyRequest) {
			r.InputResponses = json.RawMessage(`{"contact":{"action":"accept","action":"cancel"}}`)
		}, ReasonResponseInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.seal(t, baseSeal())
			req := baseVerify(s.RequestState)
			tt.mutate(&req)
			_, ev, err := f.keeper.Verify(context.Background(), req)
			assertPublic(t, err, ev, s.RequestState, tt.want)
			// A refused retry does not burn the flow: the right retry works.
			if _, _, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState)); err != nil {
				t.Fatalf("legitimate retry after a refused one: %v (%s)", err, ReasonOf(err))
			}
		})
	}
}

func TestCrossTenantEvidenceNamesSealedTenant(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	req := baseVerify(s.RequestState)
	req.Identity.Tenant = "globex"
	_, ev, _ := f.keeper.Verify(context.Background(), req)
	if ev.Tenant != "globex" || ev.SealedTenant != "acme" {
		t.Fatalf("evidence %+v", ev)
	}
}

func TestVerifyArgumentsCanonical(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	req := baseVerify(s.RequestState)
	// Same arguments, other member order, whitespace, escapes and number spelling.
	req.Operation.Arguments = json.RawMessage(`{ "size" : 4.0, "when":"2026-12-02T10:00:00Z", "room":"\u0041" }`)
	if _, _, err := f.keeper.Verify(context.Background(), req); err != nil {
		t.Fatalf("canonically equal arguments refused: %s", ReasonOf(err))
	}
}

func TestVerifyResponseActions(t *testing.T) {
	for _, action := range []string{ActionAccept, ActionDecline, ActionCancel} {
		t.Run(action, func(t *testing.T) {
			f := newFixture(t)
			s := f.seal(t, baseSeal())
			req := baseVerify(s.RequestState)
			if action != ActionAccept {
				req.InputResponses = json.RawMessage(`{"contact":{"action":"` + action + `","_meta":{}}}`)
			}
			v, _, err := f.keeper.Verify(context.Background(), req)
			if err != nil {
				t.Fatalf("%s refused: %s", action, ReasonOf(err))
			}
			r := v.Responses["contact"]
			if r.Action != action || (action != ActionAccept) != (r.Content == nil) {
				t.Fatalf("response %+v", r)
			}
		})
	}
}

func TestVerifyExpired(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	f.clock.Add(DefaultTTL)
	_, ev, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState))
	assertPublic(t, err, ev, s.RequestState, ReasonExpired)
}

func TestVerifyNotYetValid(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	f.clock.Add(-time.Hour)
	_, ev, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState))
	assertPublic(t, err, ev, s.RequestState, ReasonNotYetValid)
}

func TestVerifyPolicyExpiredBeforeResponse(t *testing.T) {
	f := newFixture(t)
	// A policy that expires in 2 minutes shortens the state to 2 minutes;
	// declining needs no policy, accepting is refused once it has expired.
	sp := signedPolicy(t, contactSchema, t0.Add(2*time.Minute), contactFields)
	k, err := New(f.ring, f.store, WithClock(f.clock.Now), WithGuard(newGuard(t, sp)))
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := k.Seal(context.Background(), baseSeal())
	if err != nil {
		t.Fatal(err)
	}
	if !s.ExpiresAt.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("state expiry %v not clamped to the policy's", s.ExpiresAt)
	}
	f.clock.Add(2 * time.Minute)
	_, ev, err := k.Verify(context.Background(), baseVerify(s.RequestState))
	assertPublic(t, err, ev, s.RequestState, ReasonExpired)
}

func TestVerifyReplaySequential(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState)); err != nil {
		t.Fatal(err)
	}
	_, ev, err := f.keeper.Verify(context.Background(), baseVerify(s.RequestState))
	assertPublic(t, err, ev, s.RequestState, ReasonReplayed)
	// Replay stays refused for the whole lifetime.
	f.clock.Add(DefaultTTL - time.Second)
	_, ev, err = f.keeper.Verify(context.Background(), baseVerify(s.RequestState))
	assertPublic(t, err, ev, s.RequestState, ReasonReplayed)
}

func TestVerifyReplayConcurrent(t *testing.T) {
	f := newFixture(t)
	// Two keepers sharing one store, as two workers share one KV bucket.
	k2, err := New(f.ring, f.store, WithClock(f.clock.Now), WithGuard(newGuard(t)))
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		s := f.seal(t, baseSeal())
		var accepted, replayed atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			k := f.keeper
			if i%2 == 1 {
				k = k2
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := k.Verify(context.Background(), baseVerify(s.RequestState))
				switch ReasonOf(err) {
				case ReasonNone:
					accepted.Add(1)
				case ReasonReplayed:
					replayed.Add(1)
				default:
					t.Errorf("unexpected %s", ReasonOf(err))
				}
			}()
		}
		wg.Wait()
		if accepted.Load() != 1 || replayed.Load() != 7 {
			t.Fatalf("round %d: accepted %d, replayed %d", round, accepted.Load(), replayed.Load())
		}
	}
}

type failingStore struct{}

func (failingStore) Consume(context.Context, string, time.Duration) (bool, error) {
	return false, context.DeadlineExceeded
}

func TestVerifyStoreFailureFailsClosed(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	k, _ := New(f.ring, failingStore{}, WithClock(f.clock.Now), WithGuard(newGuard(t)))
	_, ev, err := k.Verify(context.Background(), baseVerify(s.RequestState))
	if CodeOf(err) != CodeUnavailable || ev.Reason != ReasonStoreFailed || strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err %v code %s evidence %+v", err, CodeOf(err), ev)
	}
}

// Changing any single character of a token makes it fail, and so does
// truncating it at any length.
func TestVerifyTamperEveryByte(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	tok := s.RequestState
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	ring := f.ring.Ring()
	for i := 0; i < len(tok); i++ {
		for _, c := range []byte(alphabet + "=+/ \x00\xff") {
			if c == tok[i] {
				continue
			}
			b := []byte(tok)
			b[i] = c
			if p, _, r := OpenToken(ring, string(b), DefaultMaxTokenBytes); r == ReasonNone {
				t.Fatalf("tampered token opened (pos %d, %q): flow %s", i, c, p.Fid)
			}
		}
	}
	for n := 0; n < len(tok); n++ {
		if _, _, r := OpenToken(ring, tok[:n], DefaultMaxTokenBytes); r == ReasonNone {
			t.Fatalf("truncated token (%d bytes) opened", n)
		}
	}
	// Through the full Verify path, a sample of positions gives the one error.
	for _, i := range []int{0, 3, 5, 10, len(tok) / 2, len(tok) - 1} {
		b := []byte(tok)
		b[i] ^= 0x01
		_, ev, err := f.keeper.Verify(context.Background(), baseVerify(string(b)))
		if err == nil || err.Error() != "request state rejected" || ev.Decision != DecisionReject {
			t.Fatalf("pos %d: %v", i, err)
		}
	}
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(tok)); err != nil {
		t.Fatalf("original after tampering attempts: %s", ReasonOf(err))
	}
}

func TestVerifyWrongKeyID(t *testing.T) {
	f := newFixture(t)
	s := f.seal(t, baseSeal())
	kid := f.ring.Ring().Active().ID
	// Rotate so another key exists, then relabel the token with it.
	r2, info, err := f.ring.Ring().Rotate(nil, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ring.Swap(r2); err != nil {
		t.Fatal(err)
	}
	relabeled := strings.Replace(s.RequestState, kid, info.ID, 1)
	_, ev, err := f.keeper.Verify(context.Background(), baseVerify(relabeled))
	assertPublic(t, err, ev, relabeled, ReasonAuthFailed)
	unknown := strings.Replace(s.RequestState, kid, "k20990101-deadbeef", 1)
	_, ev, err = f.keeper.Verify(context.Background(), baseVerify(unknown))
	assertPublic(t, err, ev, unknown, ReasonUnknownKey)
}

func TestVerifyMalformedTokens(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, token string
		want        Reason
	}{
		{"empty", "", ReasonTokenMalformed},
		{"spec-example", "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0", ReasonTokenMalformed},
		{"no-blob", "mrs1.kid", ReasonTokenMalformed},
		{"bad-kid", "mrs1.k!d.AAAA", ReasonTokenAlphabet}, // '!' is outside the token alphabet
		{"short-blob", "mrs1.kid.AAAA", ReasonTokenMalformed},
		{"padding", "mrs1.kid." + strings.Repeat("A", 60) + "==", ReasonTokenAlphabet}, // '=' too
		{"huge", "mrs1.kid." + strings.Repeat("A", DefaultMaxTokenBytes), ReasonTokenTooLarge},
		{"wrong-version", "mrs2.kid." + strings.Repeat("A", 64), ReasonTokenMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ev, err := f.keeper.Verify(context.Background(), baseVerify(tt.token))
			assertPublic(t, err, ev, tt.token, tt.want)
		})
	}
}

func TestRotationKeepsOldTokensUntilRetired(t *testing.T) {
	f := newFixture(t)
	old := f.seal(t, baseSeal())
	oldKID := f.ring.Ring().Active().ID
	r2, _, err := f.ring.Ring().Rotate(nil, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := f.ring.Swap(r2); err != nil || !changed {
		t.Fatalf("swap: %v %v", changed, err)
	}
	fresh := f.seal(t, baseSeal())
	if fresh.KeyID == oldKID {
		t.Fatal("new state sealed with the old key")
	}
	// Old-key state still opens after rotation.
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(old.RequestState)); err != nil {
		t.Fatalf("old-key state after rotation: %s", ReasonOf(err))
	}
	// After retiring the old key, its states no longer open.
	old2 := old
	r3, err := r2.Retire(oldKID)
	if err != nil {
		t.Fatal(err)
	}
	f.ring.Swap(r3)
	_, ev, err := f.keeper.Verify(context.Background(), baseVerify(old2.RequestState))
	assertPublic(t, err, ev, old2.RequestState, ReasonRetiredKey)
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(fresh.RequestState)); err != nil {
		t.Fatalf("new-key state: %s", ReasonOf(err))
	}
}

func TestSealRefusals(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*SealRequest)
		code   Code
		want   Reason
	}{
		{"method-not-allowed", func(r *SealRequest) { r.Operation.Method = "tools/list" }, CodeInvalidRequest, ReasonMethodNotAllowed},
		{"sampling-method", func(r *SealRequest) { r.Operation.Method = "sampling/createMessage" }, CodeInvalidRequest, ReasonMethodNotAllowed},
		{"empty-subject", func(r *SealRequest) { r.Identity.Subject = "" }, CodeInvalidRequest, ReasonIdentityInvalid},
		{"tenant-not-token", func(r *SealRequest) { r.Identity.Tenant = "acme.>" }, CodeInvalidRequest, ReasonIdentityInvalid},
		{"empty-client", func(r *SealRequest) { r.Identity.ClientID = "" }, CodeInvalidRequest, ReasonIdentityInvalid},
		{"empty-name", func(r *SealRequest) { r.Operation.Name = "" }, CodeInvalidRequest, ReasonNameInvalid},
		{"arguments-array", func(r *SealRequest) { r.Operation.Arguments = json.RawMessage(`[1]`) }, CodeInvalidRequest, ReasonArgumentsInvalid},
		{"ttl-too-long", func(r *SealRequest) { r.TTL = time.Hour }, CodeInvalidRequest, ReasonTTLInvalid},
		{"ttl-negative", func(r *SealRequest) { r.TTL = -time.Second }, CodeInvalidRequest, ReasonTTLInvalid},
		{"app-state-too-large", func(r *SealRequest) { r.AppState = make([]byte, DefaultMaxAppStateBytes+1) }, CodeInvalidRequest, ReasonAppStateTooLarge},
		{"unknown-input-method", func(r *SealRequest) {
			r.InputRequests = json.RawMessage(`{"x":{"method":"tools/call","params":{}}}`)
		}, CodeInvalidRequest, ReasonInputInvalid},
		{"bad-input-key", func(r *SealRequest) {
			r.InputRequests = json.RawMessage(`{"a b":{"method":"roots/list"}}`)
		}, CodeInvalidRequest, ReasonInputInvalid},
		{"form-not-covered", func(r *SealRequest) {
			r.InputRequests = formInputs(strings.Replace(contactSchema, `"maxLength":100`, `"maxLength":99`, 1))
		}, CodeFormRefused, ReasonFormNotCovered},
		{"url-http", func(r *SealRequest) {
			r.InputRequests = json.RawMessage(strings.Replace(urlInputs, "https://", "http://", 1))
		}, CodeURLRefused, ReasonURLNotHTTPS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := baseSeal()
			tt.mutate(&req)
			_, ev, err := f.keeper.Seal(context.Background(), req)
			if CodeOf(err) != tt.code || ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s / %s", err, ReasonOf(err), tt.code, tt.want)
			}
			if ev.Decision != DecisionReject || ev.Reason != tt.want {
				t.Fatalf("evidence %+v", ev)
			}
		})
	}
}

func TestURLFlowBoundToIdentity(t *testing.T) {
	f := newFixture(t)
	req := baseSeal()
	req.InputRequests = json.RawMessage(urlInputs)
	s := f.seal(t, req)
	verify := func(resp string, completions map[string]Identity) (Verified, Evidence, error) {
		vr := baseVerify(s.RequestState)
		vr.InputRequests = json.RawMessage(urlInputs)
		vr.InputResponses = json.RawMessage(resp)
		vr.URLCompletions = completions
		return f.keeper.Verify(context.Background(), vr)
	}
	_, ev, err := verify(`{"login":{"action":"accept"}}`, nil)
	assertPublic(t, err, ev, s.RequestState, ReasonURLNotCompleted)
	bob := alice
	bob.Subject = "user-bob"
	_, ev, err = verify(`{"login":{"action":"accept"}}`, map[string]Identity{"elic-0123456789": bob})
	assertPublic(t, err, ev, s.RequestState, ReasonURLIdentity)
	_, ev, err = verify(`{"login":{"action":"accept","content":{"x":"y"}}}`, map[string]Identity{"elic-0123456789": alice})
	assertPublic(t, err, ev, s.RequestState, ReasonResponseInvalid)
	v, _, err := verify(`{"login":{"action":"accept"}}`, map[string]Identity{"elic-0123456789": alice})
	if err != nil || v.Responses["login"].Action != ActionAccept {
		t.Fatalf("completed url flow refused: %s", ReasonOf(err))
	}
}

func TestSamplingAndRootsInputs(t *testing.T) {
	f := newFixture(t)
	inputs := `{"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":100}},"roots":{"method":"roots/list"}}`
	req := baseSeal()
	req.InputRequests = json.RawMessage(inputs)
	s := f.seal(t, req)
	vr := baseVerify(s.RequestState)
	vr.InputRequests = json.RawMessage(inputs)
	vr.InputResponses = json.RawMessage(`{"capital":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"},"roots":{"roots":[]}}`)
	v, _, err := f.keeper.Verify(context.Background(), vr)
	if err != nil || v.Responses["capital"].Kind != KindSampling || v.Responses["roots"].Kind != KindRoots {
		t.Fatalf("verify: %v %s %+v", err, ReasonOf(err), v)
	}
}

func TestErrorsCarryNoInput(t *testing.T) {
	f := newFixture(t)
	req := baseSeal()
	req.Operation.Arguments = json.RawMessage(`{"password":"hunter2"`)
	_, ev, err := f.keeper.Seal(context.Background(), req)
	b, _ := json.Marshal(ev)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(string(b), "hunter2") {
		t.Fatalf("err %v evidence %s", err, b)
	}
}
