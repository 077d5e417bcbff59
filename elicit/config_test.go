package elicit

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

func TestParsePolicyKeys(t *testing.T) {
	pub := base64.RawURLEncoding.EncodeToString(reviewerKey.Public().(ed25519.PublicKey))
	key := func(id, pk string) string { return fmt.Sprintf(`{"id":%q,"publicKey":%q}`, id, pk) }
	doc := func(keys ...string) string { return `{"version":1,"keys":[` + strings.Join(keys, ",") + `]}` }
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"valid", doc(key(reviewerID, pub)), true},
		{"two-keys", doc(key(reviewerID, pub), key("reviewer-2", pub)), true},
		{"no-keys", doc(), false},
		{"version", `{"version":2,"keys":[` + key(reviewerID, pub) + `]}`, false},
		{"no-version", `{"keys":[` + key(reviewerID, pub) + `]}`, false},
		{"duplicate-id", doc(key(reviewerID, pub), key(reviewerID, pub)), false},
		{"bad-id", doc(key("reviewer 1", pub)), false},
		{"short-key", doc(key(reviewerID, pub[:40])), false},
		{"padded-key", doc(key(reviewerID, pub+"=")), false},
		{"std-alphabet-key", doc(key(reviewerID, strings.NewReplacer("-", "+", "_", "/").Replace(pub)+"A")), false},
		{"key-with-lf", doc(key(reviewerID, pub[:20]+"\n"+pub[20:])), false},
		{"key-trailing-bits", doc(key(reviewerID, pub[:42]+trailingBitsVariant(pub[42]))), false},
		{"other-case-member", doc(`{"id":"reviewer-1","PublicKey":"` + pub + `"}`), false},
		{"other-case-top", `{"Version":1,"keys":[` + key(reviewerID, pub) + `]}`, false},
		{"unknown-member", doc(`{"id":"reviewer-1","publicKey":"` + pub + `","note":"x"}`), false},
		{"duplicate-member", doc(`{"id":"reviewer-1","id":"reviewer-2","publicKey":"` + pub + `"}`), false},
		{"invalid-utf8", doc(key("reviewer-\xff", pub)), false},
		{"not-json", `{`, false},
		{"too-large", doc(key(reviewerID, pub)) + strings.Repeat(" ", MaxConfigBytes), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := ParsePolicyKeys([]byte(tt.doc))
			if tt.ok {
				if err != nil || !keys[reviewerID].Equal(reviewerKey.Public()) {
					t.Fatalf("refused: %v %s", err, statekeys.ReasonOf(err))
				}
				return
			}
			if statekeys.CodeOf(err) != statekeys.CodeFormRefused || statekeys.ReasonOf(err) != statekeys.ReasonFormPolicyKeys {
				t.Fatalf("got %v / %s", err, statekeys.ReasonOf(err))
			}
			if strings.Contains(err.Error(), pub[:10]) {
				t.Fatalf("error repeats the document: %v", err)
			}
		})
	}
}

func TestParseFormPolicies(t *testing.T) {
	sp := signedPolicy(t, contactSchema, t0.Add(time.Hour), contactFields)
	b, err := MarshalFormPolicies(sp)
	if err != nil {
		t.Fatal(err)
	}
	one := fmt.Sprintf(`{"policy":%s,"keyId":%q,"signature":%q}`, sp.Policy, sp.KeyID, sp.Signature)
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"marshalled", string(b), true},
		{"valid", `{"version":1,"policies":[` + one + `]}`, true},
		{"none", `{"version":1,"policies":[]}`, false},
		{"version", `{"version":0,"policies":[` + one + `]}`, false},
		{"other-case-member", `{"version":1,"Policies":[` + one + `]}`, false},
		{"other-case-key-id", `{"version":1,"policies":[` + strings.Replace(one, `"keyId"`, `"keyID"`, 1) + `]}`, false},
		{"unknown-member", `{"version":1,"policies":[` + one + `],"extra":true}`, false},
		{"duplicate-member", `{"version":1,"version":1,"policies":[` + one + `]}`, false},
		{"invalid-utf8", "{\"version\":1,\"policies\":[" + strings.Replace(one, `"keyId":"`, "\"keyId\":\"\xfe", 1) + "]}", false},
		{"not-json", `[`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParseFormPolicies([]byte(tt.doc))
			if tt.ok {
				if err != nil || len(ps) != 1 || ps[0].KeyID != reviewerID {
					t.Fatalf("refused: %v %s", err, statekeys.ReasonOf(err))
				}
				if _, err := New(WithPolicyKeys(trustedReviewers), WithFormPolicies(ps...)); err != nil {
					t.Fatalf("the parsed policy does not verify: %s", statekeys.ReasonOf(err))
				}
				return
			}
			if statekeys.CodeOf(err) != statekeys.CodeFormRefused || statekeys.ReasonOf(err) != statekeys.ReasonFormPolicyInvalid {
				t.Fatalf("got %v / %s", err, statekeys.ReasonOf(err))
			}
		})
	}
}

// A guard configured from the two documents seals a covered form and
// validates its response, through a Keeper.
func TestGuardFromDocuments(t *testing.T) {
	kb, err := MarshalPolicyKeys(trustedReviewers)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := MarshalFormPolicies(signedPolicy(t, contactSchema, t0.Add(time.Hour), contactFields))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParsePolicyKeys(kb)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParseFormPolicies(pb)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(WithPolicyKeys(keys), WithFormPolicies(ps...))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	k, err := statekeys.New(f.ring, f.store, statekeys.WithClock(f.clock.Now), statekeys.WithGuard(g))
	if err != nil {
		t.Fatal(err)
	}
	s, ev, err := k.Seal(context.Background(), baseSeal())
	if err != nil || len(ev.Inputs) != 1 || ev.Inputs[0].SchemaDigest != schemaDigest(t, contactSchema) {
		t.Fatalf("seal: %v %+v", err, ev)
	}
	_, _, err = k.Verify(context.Background(), statekeys.VerifyRequest{
		RequestState: s.RequestState, Identity: alice, Operation: opA, InputRequests: formInputs(contactSchema),
		InputResponses: []byte(`{"contact":{"action":"accept","content":{"name":"Ada"}}}`),
	})
	if err != nil {
		t.Fatalf("verify: %s", statekeys.ReasonOf(err))
	}
}

// A policy document has exact member names (a reviewer who signed
// "PolicyID" signed something this package does not read as a policy),
// and a signature has one spelling.
func TestFormPolicyOneSpelling(t *testing.T) {
	good := signedPolicy(t, contactSchema, t0.Add(time.Hour), contactFields)
	resign := func(doc string) SignedFormPolicy {
		c, err := jcs.Canonicalize([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return SignedFormPolicy{Policy: c, KeyID: reviewerID, Signature: base64.RawURLEncoding.EncodeToString(ed25519.Sign(reviewerKey, c))}
	}
	tests := []struct {
		name string
		sp   SignedFormPolicy
		want statekeys.Reason
	}{
		{"valid", good, statekeys.ReasonNone},
		{"other-case-policy-id", resign(strings.Replace(string(good.Policy), `"policyId"`, `"PolicyID"`, 1)), statekeys.ReasonFormPolicyInvalid},
		{"other-case-max-bytes", resign(strings.Replace(string(good.Policy), `"maxResponseBytes"`, `"MaxResponseBytes"`, 1)), statekeys.ReasonFormPolicyInvalid},
		{"other-case-data-class", resign(strings.Replace(string(good.Policy), `"dataClass"`, `"dataclass"`, 1)), statekeys.ReasonFormPolicyInvalid},
		{"signature-with-lf", SignedFormPolicy{Policy: good.Policy, KeyID: good.KeyID, Signature: good.Signature[:30] + "\n" + good.Signature[30:]}, statekeys.ReasonFormPolicyForged},
		{"signature-with-crlf-at-end", SignedFormPolicy{Policy: good.Policy, KeyID: good.KeyID, Signature: good.Signature + "\r\n"}, statekeys.ReasonFormPolicyForged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := VerifyFormPolicy(tt.sp, trustedReviewers)
			if statekeys.ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, statekeys.ReasonOf(err), tt.want)
			}
		})
	}
}

// trailingBitsVariant returns the base64url character that differs from
// c only in its lowest bit, a trailing bit of a 43-character key.
func trailingBitsVariant(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	return string(alphabet[strings.IndexByte(alphabet, c)^1])
}
