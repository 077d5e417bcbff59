package policyset

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
)

var testNow = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// testKey derives a signing key from a fixed seed, so envelopes are the
// same on every run.
func testKey(t testing.TB, id string, b byte) SigningKey {
	t.Helper()
	return SigningKey{ID: id, Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))}
}

func testTrust(t testing.TB, keys ...SigningKey) Trust {
	t.Helper()
	m := map[string]ed25519.PublicKey{}
	for _, k := range keys {
		m[k.ID] = k.Public()
	}
	tr, err := NewTrust(m)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

const testPolicyYAML = `
version: team-a.7
limits:
  text-chars: 5000
rules:
  custom:
    - id: acme-key
      keywords: [acme_]
      pattern: "acme_[0-9a-f]{32}"
`

func signTest(t testing.TB, k SigningKey) []byte {
	t.Helper()
	b, s, err := Sign(k, []byte(testPolicyYAML), "", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if s.Policy.Version != "team-a.7" || s.Envelope.Version != "team-a.7" {
		t.Fatalf("version %q/%q", s.Policy.Version, s.Envelope.Version)
	}
	return b
}

// mutate decodes an envelope, lets f change it and encodes it again
// (without signing again).
func mutate(t testing.TB, b []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resign builds an envelope around a policy document as Sign would, but
// without Sign's checks of the policy (to test Verify's).
func resign(t testing.TB, k SigningKey, version string, policy string) []byte {
	t.Helper()
	canon, err := jcs.Canonicalize([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	env := Envelope{Format: Format, Version: version, Digest: digestOf(canon), SignedAt: testNow.Format(time.RFC3339), KeyID: k.ID, Policy: json.RawMessage(policy)}
	msg, err := signingInput(&env)
	if err != nil {
		t.Fatal(err)
	}
	env.Signature = base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.Key, msg))
	b, err := json.Marshal(&env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerify(t *testing.T) {
	ops := testKey(t, "ops-1", 1)
	other := testKey(t, "ops-2", 2)
	trust := testTrust(t, ops)
	good := signTest(t, ops)
	forged := other
	forged.ID = "ops-1" // a key that claims a trusted id
	for _, tc := range []struct {
		name string
		data []byte
		want Reason // "" accepts
	}{
		{"signed", good, ""},
		{"indented", func() []byte {
			var buf bytes.Buffer
			json.Indent(&buf, good, "", "    ")
			return buf.Bytes()
		}(), ""},
		{"unsigned", mutate(t, good, func(m map[string]any) { delete(m, "signature") }), ReasonUnsigned},
		{"empty signature", mutate(t, good, func(m map[string]any) { m["signature"] = "" }), ReasonUnsigned},
		{"no key id", mutate(t, good, func(m map[string]any) { m["keyId"] = "" }), ReasonUnsigned},
		{"untrusted key", signTest(t, other), ReasonUntrustedKey},
		{"wrong key under a trusted id", signTest(t, forged), ReasonBadSignature},
		{"policy changed", mutate(t, good, func(m map[string]any) {
			m["policy"].(map[string]any)["limits"].(map[string]any)["text-chars"] = 5001
		}), ReasonBadSignature},
		{"version changed", mutate(t, good, func(m map[string]any) { m["version"] = "team-a.8" }), ReasonBadSignature},
		{"digest changed", mutate(t, good, func(m map[string]any) { m["digest"] = "sha256:" + strings.Repeat("0", 64) }), ReasonBadSignature},
		{"time changed", mutate(t, good, func(m map[string]any) { m["signedAt"] = "2026-12-07T12:00:01Z" }), ReasonBadSignature},
		{"signature not base64url", mutate(t, good, func(m map[string]any) { m["signature"] = "!!" }), ReasonBadSignature},
		{"signature padded", mutate(t, good, func(m map[string]any) { m["signature"] = m["signature"].(string) + "==" }), ReasonBadSignature},
		{"unknown member", mutate(t, good, func(m map[string]any) { m["extra"] = 1 }), ReasonMalformed},
		{"format 2", mutate(t, good, func(m map[string]any) { m["format"] = 2 }), ReasonMalformed},
		{"bad version", mutate(t, good, func(m map[string]any) { m["version"] = "a b" }), ReasonMalformed},
		{"bad time", mutate(t, good, func(m map[string]any) { m["signedAt"] = "yesterday" }), ReasonMalformed},
		{"policy not an object", mutate(t, good, func(m map[string]any) { m["policy"] = "x" }), ReasonBadSignature},
		{"not JSON", []byte("version: x\n"), ReasonMalformed},
		{"empty", nil, ReasonMalformed},
		{"duplicate member", append([]byte(`{"format":1,"format":1,`), good[1:]...), ReasonMalformed},
		{"too large", bytes.Repeat([]byte(" "), MaxEnvelopeBytes+1), ReasonTooLarge},
		{"invalid policy signed", resign(t, ops, "v2", `{"version":"v2","limits":{"no-such-bound":1}}`), ReasonInvalidPolicy},
		{"version differs from the policy's", resign(t, ops, "v2", `{"version":"v3"}`), ReasonInvalidPolicy},
		{"digest of other bytes signed", func() []byte {
			b := resign(t, ops, "v2", `{"version":"v2"}`)
			return mutate(t, b, func(m map[string]any) {}) // same members, still verifies
		}(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Verify(tc.data, trust)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if s.Policy == nil || s.Policy.Version != s.Envelope.Version {
					t.Fatalf("policy %+v", s.Policy)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrRefused) || ReasonOf(err) != tc.want {
				t.Fatalf("err %v, want reason %s", err, tc.want)
			}
		})
	}
}

// TestVerifyDigestMismatch signs an envelope whose digest is not that of
// its policy: the signature holds, the digest does not.
func TestVerifyDigestMismatch(t *testing.T) {
	ops := testKey(t, "ops-1", 1)
	env := Envelope{Format: Format, Version: "v1", Digest: "sha256:" + strings.Repeat("ab", 32), SignedAt: testNow.Format(time.RFC3339), KeyID: ops.ID, Policy: json.RawMessage(`{"version":"v1"}`)}
	msg, _ := signingInput(&env)
	env.Signature = base64.RawURLEncoding.EncodeToString(ed25519.Sign(ops.Key, msg))
	b, _ := json.Marshal(&env)
	if _, err := Verify(b, testTrust(t, ops)); ReasonOf(err) != ReasonDigestMismatch {
		t.Fatalf("err %v", err)
	}
}

func TestSignRefuses(t *testing.T) {
	ops := testKey(t, "ops-1", 1)
	for _, tc := range []struct {
		name, doc, version string
	}{
		{"no version", "limits: {text-chars: 10}\n", ""},
		{"default version", "version: default\n", ""},
		{"bad version flag", "{}", "a b"},
		{"unknown field", "version: v1\nnoSuchField: 1\n", ""},
		{"not an object", "[1]", "v1"},
		{"not YAML", "a: [", "v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := Sign(ops, []byte(tc.doc), tc.version, testNow); ReasonOf(err) != ReasonInvalidPolicy {
				t.Fatalf("err %v", err)
			}
		})
	}
	b, s, err := Sign(ops, []byte("version: v1\n"), "v9", testNow)
	if err != nil || s.Envelope.Version != "v9" || s.Policy.Version != "v9" {
		t.Fatalf("version flag: %v %+v", err, s)
	}
	if _, err := Verify(b, testTrust(t, ops)); err != nil {
		t.Fatal(err)
	}
}

// TestSignDeterministic: the same document, key and time give the same
// envelope (Ed25519 is deterministic), and YAML and JSON spellings of one
// policy have one digest.
func TestSignDeterministic(t *testing.T) {
	ops := testKey(t, "ops-1", 1)
	a, sa, _ := Sign(ops, []byte(testPolicyYAML), "", testNow)
	b, _, _ := Sign(ops, []byte(testPolicyYAML), "", testNow)
	if !bytes.Equal(a, b) {
		t.Fatal("two signatures of one document differ")
	}
	js := `{"rules":{"custom":[{"pattern":"acme_[0-9a-f]{32}","keywords":["acme_"],"id":"acme-key"}]},"limits":{"text-chars":5000},"version":"team-a.7"}`
	_, sj, err := Sign(ops, []byte(js), "", testNow)
	if err != nil || sj.Envelope.Digest != sa.Envelope.Digest {
		t.Fatalf("digest %v: %s vs %s", err, sj.Envelope.Digest, sa.Envelope.Digest)
	}
}

func TestKeyFiles(t *testing.T) {
	k, err := GenerateKey("ops-1")
	if err != nil {
		t.Fatal(err)
	}
	kb, err := MarshalSigningKey(k)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := ParseSigningKey(kb)
	if err != nil || !k2.Key.Equal(k.Key) || k2.ID != "ops-1" {
		t.Fatalf("signing key round trip: %v", err)
	}
	tb, err := MarshalTrust(testTrust(t, k))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ParseTrust(tb)
	if err != nil || tr.Len() != 1 || !tr.keys["ops-1"].Equal(k.Public()) {
		t.Fatalf("trust round trip: %v", err)
	}
	pub := base64.RawURLEncoding.EncodeToString(k.Public())
	for _, bad := range []string{
		``, `{}`, `{"version":1,"keys":[]}`,
		`{"version":2,"keys":[{"id":"a","publicKey":"` + pub + `"}]}`,
		`{"version":1,"keys":[{"id":"a b","publicKey":"` + pub + `"}]}`,
		`{"version":1,"keys":[{"id":"a","publicKey":"` + pub + `="}]}`,
		`{"version":1,"keys":[{"id":"a","publicKey":"` + pub[:40] + `"}]}`,
		`{"version":1,"keys":[{"id":"a","publicKey":"` + pub + `"},{"id":"a","publicKey":"` + pub + `"}]}`,
		`{"version":1,"keys":[{"id":"a","publicKey":"` + pub + `","extra":1}]}`,
		`{"version":1,"Keys":[{"id":"a","publicKey":"` + pub + `"}]}`,
	} {
		if _, err := ParseTrust([]byte(bad)); ReasonOf(err) != ReasonBadKeyFile {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

func FuzzVerify(f *testing.F) {
	ops := testKey(f, "ops-1", 1)
	trust := testTrust(f, ops)
	good := signTest(f, ops)
	ref, err := Verify(good, trust)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format":1}`))
	f.Add(mutate(f, good, func(m map[string]any) { delete(m, "signature") }))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Verify(data, trust)
		if err != nil {
			if !errors.Is(err, ErrRefused) || ReasonOf(err) == "" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// Whatever verifies was signed: it is the reference envelope,
		// however it is spelled.
		if s.Envelope.Digest != ref.Envelope.Digest || !bytes.Equal(s.Envelope.Policy, ref.Envelope.Policy) ||
			s.Envelope.Version != ref.Envelope.Version || s.Envelope.SignedAt != ref.Envelope.SignedAt {
			t.Fatalf("a different envelope verified: %+v", s.Envelope)
		}
	})
}
