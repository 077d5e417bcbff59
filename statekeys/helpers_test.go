package statekeys_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClock is a settable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// reviewerKey is a deterministic Ed25519 key for signing test policies.
var reviewerKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

const reviewerID = "reviewer-1"

var trustedReviewers = map[string]ed25519.PublicKey{reviewerID: reviewerKey.Public().(ed25519.PublicKey)}

const contactSchema = `{"type":"object","properties":{"name":{"type":"string","description":"Your full name","maxLength":100},"email":{"type":"string","format":"email"},"age":{"type":"integer","minimum":18},"topics":{"type":"array","items":{"type":"string","enum":["news","offers"]}}},"required":["name"]}`

func schemaDigest(t testing.TB, schema string) string {
	t.Helper()
	c, err := jcs.Canonicalize([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(c)
	return hex.EncodeToString(d[:])
}

// policyFor returns a policy document covering schema with the given field
// classes, expiring at exp.
func policyFor(t testing.TB, schema string, exp time.Time, fields map[string]string) []byte {
	t.Helper()
	fr := map[string]elicit.FieldRule{}
	for f, class := range fields {
		fr[f] = elicit.FieldRule{DataClass: class, Purpose: "test purpose for " + f}
	}
	p := elicit.FormPolicy{Version: 1, PolicyID: "pol-test", Forms: map[string]elicit.FormRule{
		"contact": {SchemaSHA256: schemaDigest(t, schema), ExpiresAt: exp, MaxResponseBytes: 512, Fields: fr},
	}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func signedPolicy(t testing.TB, schema string, exp time.Time, fields map[string]string) SignedFormPolicy {
	t.Helper()
	sp, err := elicit.SignFormPolicy(reviewerKey, reviewerID, policyFor(t, schema, exp, fields))
	if err != nil {
		t.Fatalf("SignFormPolicy: %v", err)
	}
	return sp
}

var contactFields = map[string]string{"name": "contact_name", "email": "contact_email", "age": "age", "topics": "preference"}

func formInputs(schema string) json.RawMessage {
	return json.RawMessage(`{"contact":{"method":"elicitation/create","params":{"mode":"form","message":"Please tell us how to reach you","requestedSchema":` + schema + `}}}`)
}

const urlInputs = `{"login":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in to the calendar","url":"https://auth.example.com/connect?flow=abc","elicitationId":"elic-0123456789"}}}`

var (
	alice = Identity{Subject: "user-alice", Tenant: "acme", ClientID: "client-1"}
	opA   = Operation{Method: MethodToolsCall, Name: "book_meeting", Arguments: json.RawMessage(`{"room":"A","when":"2026-12-02T10:00:00Z","size":4}`)}
)

// newGuard returns an elicitation guard trusting reviewerKey, with the
// given policies installed.
func newGuard(t testing.TB, policies ...SignedFormPolicy) *elicit.Guard {
	t.Helper()
	g, err := elicit.New(elicit.WithPolicyKeys(trustedReviewers), elicit.WithFormPolicies(policies...))
	if err != nil {
		t.Fatalf("elicit.New: %v", err)
	}
	return g
}

type fixture struct {
	clock  *testClock
	ring   *Keyring
	store  *MemoryStore
	keeper *Keeper
}

func newFixture(t testing.TB, opts ...Option) *fixture {
	t.Helper()
	clock := &testClock{t: t0}
	r, err := GenerateRing(nil, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := NewKeyring(r)
	store := &MemoryStore{Now: clock.Now}
	all := append([]Option{
		WithClock(clock.Now),
		WithGuard(newGuard(t, signedPolicy(t, contactSchema, t0.Add(24*time.Hour), contactFields))),
	}, opts...)
	k, err := New(ring, store, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &fixture{clock: clock, ring: ring, store: store, keeper: k}
}

func (f *fixture) seal(t testing.TB, req SealRequest) Sealed {
	t.Helper()
	s, ev, err := f.keeper.Seal(context.Background(), req)
	if err != nil {
		t.Fatalf("Seal: %v (reason %s, input %q, field %q)", err, ReasonOf(err), ev.InputKey, ev.Field)
	}
	return s
}

func baseSeal() SealRequest {
	return SealRequest{Identity: alice, Operation: opA, InputRequests: formInputs(contactSchema), AppState: []byte(`{"step":2}`)}
}

func baseVerify(token string) VerifyRequest {
	return VerifyRequest{
		RequestState:   token,
		Identity:       alice,
		Operation:      opA,
		InputRequests:  formInputs(contactSchema),
		InputResponses: json.RawMessage(`{"contact":{"action":"accept","content":{"name":"Ada","email":"ada@example.com","age":36,"topics":["news"]}}}`),
	}
}

// assertPublic checks the one-public-error property of a verification
// failure, and that nothing sensitive reached the evidence.
func assertPublic(t *testing.T, err error, ev Evidence, token string, want Reason) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want reason %s", want)
	}
	if err.Error() != "request state rejected" || CodeOf(err) != CodeRejected {
		t.Fatalf("public error = %q (%s), want the one rejection", err.Error(), CodeOf(err))
	}
	if got := ReasonOf(err); got != want {
		t.Fatalf("reason = %s, want %s", got, want)
	}
	if ev.Decision != DecisionReject || ev.Reason != want || ev.Code != CodeRejected {
		t.Fatalf("evidence = %+v", ev)
	}
	b, _ := json.Marshal(ev)
	for _, secret := range []string{token, alice.Subject, "Ada", "ada@example.com"} {
		if secret != "" && len(secret) > 3 && strings.Contains(string(b), secret) {
			t.Fatalf("evidence contains %q: %s", secret, b)
		}
	}
}
