package elicit

// Fixtures of the Keeper with this package's Guard, for the tests that
// seal through a statekeys.Keeper (statekeys_test has its own, for the
// Keeper's tests).

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
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
	fr := map[string]FieldRule{}
	for f, class := range fields {
		fr[f] = FieldRule{DataClass: class, Purpose: "test purpose for " + f}
	}
	p := FormPolicy{Version: 1, PolicyID: "pol-test", Forms: map[string]FormRule{
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
	sp, err := SignFormPolicy(reviewerKey, reviewerID, policyFor(t, schema, exp, fields))
	if err != nil {
		t.Fatalf("SignFormPolicy: %v", err)
	}
	return sp
}

var contactFields = map[string]string{"name": "contact_name", "email": "contact_email", "age": "age", "topics": "preference"}

func formInputs(schema string) json.RawMessage {
	return json.RawMessage(`{"contact":{"method":"elicitation/create","params":{"mode":"form","message":"Please tell us how to reach you","requestedSchema":` + schema + `}}}`)
}

var (
	alice = statekeys.Identity{Subject: "user-alice", Tenant: "acme", ClientID: "client-1"}
	opA   = statekeys.Operation{Method: statekeys.MethodToolsCall, Name: "book_meeting", Arguments: json.RawMessage(`{"room":"A","when":"2026-12-02T10:00:00Z","size":4}`)}
)

// newGuard returns an elicitation guard trusting reviewerKey, with the
// given policies installed.
func newGuard(t testing.TB, policies ...SignedFormPolicy) *Guard {
	t.Helper()
	g, err := New(WithPolicyKeys(trustedReviewers), WithFormPolicies(policies...))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

type fixture struct {
	clock  *testClock
	ring   *statekeys.Keyring
	store  *statekeys.MemoryStore
	keeper *statekeys.Keeper
}

func newFixture(t testing.TB, opts ...statekeys.Option) *fixture {
	t.Helper()
	clock := &testClock{t: t0}
	r, err := statekeys.GenerateRing(nil, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := statekeys.NewKeyring(r)
	store := &statekeys.MemoryStore{Now: clock.Now}
	all := append([]statekeys.Option{
		statekeys.WithClock(clock.Now),
		statekeys.WithGuard(newGuard(t, signedPolicy(t, contactSchema, t0.Add(24*time.Hour), contactFields))),
	}, opts...)
	k, err := statekeys.New(ring, store, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &fixture{clock: clock, ring: ring, store: store, keeper: k}
}

func baseSeal() statekeys.SealRequest {
	return statekeys.SealRequest{Identity: alice, Operation: opA, InputRequests: formInputs(contactSchema), AppState: []byte(`{"step":2}`)}
}
