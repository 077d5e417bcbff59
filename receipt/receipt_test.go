package receipt

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
)

var (
	now     = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	content = []byte("# Guide\nhello\n")
	adapter = strings.Repeat("ab", 32)
)

func keys(t testing.TB, seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	priv := ed25519.NewKeyFromSeed(s)
	return priv.Public().(ed25519.PublicKey), priv
}

func goodReceipt() Receipt {
	sum := sha256.Sum256(content)
	return Receipt{
		AdapterBuildSha256: adapter,
		BytesSha256:        hex.EncodeToString(sum[:]),
		Control:            Control,
		IssuedAt:           now.Add(-10 * time.Second).Format(time.RFC3339),
		ExpiresAt:          now.Add(50 * time.Second).Format(time.RFC3339),
		ObjectIdentity:     ObjectIdentity{FileID: "inode-4411", LinkCount: 1, Size: int64(len(content)), Type: TypeRegular, VolumeID: "vol-7"},
		Operation:          OperationRead,
		Outcome:            OutcomePass,
		PlatformProfile:    "linux-openat2-v1",
		PolicyVersion:      "2026-12-01.3",
		RelativePath:       "guide/intro.md",
		RootID:             "root-docs-1",
		SchemaVersion:      SchemaVersion,
	}
}

func goodExpect() Expect {
	return Expect{RootID: "root-docs-1", RelativePath: "guide/intro.md", PolicyVersion: "2026-12-01.3",
		AdapterBuildSha256: adapter, MaxBytes: 1 << 20, ContentBytes: int64(len(content)),
		ContentSHA256: sha256.Sum256(content), Now: now}
}

func verifier(t testing.TB) *Verifier {
	pub, _ := keys(t, 1)
	v, err := NewVerifier(map[string]ed25519.PublicKey{"broker-1": pub}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// signBody signs an arbitrary receipt object (for shapes Sign cannot make).
func signBody(t *testing.T, priv ed25519.PrivateKey, keyID string, body map[string]any) []byte {
	t.Helper()
	canon, err := jcs.Append(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := json.Marshal(Signed{KeyID: keyID, Receipt: canon, Signature: base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, canon))})
	return env
}

func bodyOf(t *testing.T, signed []byte) map[string]any {
	var env struct{ Receipt json.RawMessage }
	if err := json.Unmarshal(signed, &env); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(env.Receipt)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestVerifyAccepts(t *testing.T) {
	_, priv := keys(t, 1)
	signed, err := Sign(priv, "broker-1", goodReceipt())
	if err != nil {
		t.Fatal(err)
	}
	r, err := verifier(t).Verify(signed, goodExpect())
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !hex64.MatchString(r.ReceiptSha256) || r.ObjectIdentity.Size != int64(len(content)) {
		t.Fatalf("receipt %+v", r)
	}
}

// TestVerifyRefuses holds one case per binding of G003: each changes one
// thing of a good receipt, re-signed by the trusted key unless the case is
// about the signature.
func TestVerifyRefuses(t *testing.T) {
	_, priv := keys(t, 1)
	_, other := keys(t, 2)
	sign := func(mut func(*Receipt)) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			r := goodReceipt()
			mut(&r)
			s, err := Sign(priv, "broker-1", r)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	body := func(mut func(map[string]any)) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			m := bodyOf(t, s)
			mut(m)
			return signBody(t, priv, "broker-1", m)
		}
	}
	expect := func(mut func(*Expect)) Expect { e := goodExpect(); mut(&e); return e }
	cases := []struct {
		name   string
		signed func(*testing.T) []byte
		expect Expect
		want   Reason
	}{
		// Forgery.
		{"signed by an untrusted key", func(t *testing.T) []byte { s, _ := Sign(other, "broker-1", goodReceipt()); return s }, goodExpect(), ReasonSignature},
		{"unknown key id", func(t *testing.T) []byte { s, _ := Sign(priv, "broker-9", goodReceipt()); return s }, goodExpect(), ReasonUnknownKey},
		{"field changed after signing", func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			return []byte(strings.Replace(string(s), "guide/intro.md", "guide/other.md", 1))
		}, expect(func(e *Expect) { e.RelativePath = "guide/other.md" }), ReasonSignature},
		{"signature truncated", func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			var env Signed
			json.Unmarshal(s, &env)
			env.Signature = env.Signature[:20]
			out, _ := json.Marshal(env)
			return out
		}, goodExpect(), ReasonSignature},
		{"signature with padding", func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			var env Signed
			json.Unmarshal(s, &env)
			env.Signature += "=="
			out, _ := json.Marshal(env)
			return out
		}, goodExpect(), ReasonSignature},
		// Shape.
		{"extra receipt field", body(func(m map[string]any) { m["note"] = "x" }), goodExpect(), ReasonMalformed},
		{"missing receipt field", body(func(m map[string]any) { delete(m, "platformProfile") }), goodExpect(), ReasonMalformed},
		{"mistyped field", body(func(m map[string]any) { m["rootId"] = json.Number("7") }), goodExpect(), ReasonMalformed},
		{"fractional size (same number under RFC 8785)", func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			out := strings.Replace(string(s), `"size":14`, `"size":14.0`, 1)
			if out == string(s) {
				t.Fatal("size not found")
			}
			return []byte(out)
		}, goodExpect(), ReasonMalformed},
		{"extra identity field", body(func(m map[string]any) { m["objectIdentity"].(map[string]any)["path"] = "/etc" }), goodExpect(), ReasonMalformed},
		{"not JSON", func(*testing.T) []byte { return []byte("{") }, goodExpect(), ReasonMalformed},
		{"duplicate member", func(t *testing.T) []byte {
			s, _ := Sign(priv, "broker-1", goodReceipt())
			return []byte(strings.Replace(string(s), `{"keyId":"broker-1"`, `{"keyId":"broker-1","keyId":"broker-1"`, 1))
		}, goodExpect(), ReasonMalformed},
		{"oversized", func(*testing.T) []byte { return []byte(`"` + strings.Repeat("a", MaxReceiptBytes) + `"`) }, goodExpect(), ReasonMalformed},
		// Fixed values.
		{"schema version", sign(func(r *Receipt) { r.SchemaVersion = "aidefend.path-broker-receipt.v2" }), goodExpect(), ReasonSchemaVersion},
		{"control", sign(func(r *Receipt) { r.Control = "AID-H-018.008" }), goodExpect(), ReasonControl},
		{"outcome", sign(func(r *Receipt) { r.Outcome = "FAIL" }), goodExpect(), ReasonOutcome},
		{"operation", sign(func(r *Receipt) { r.Operation = "write" }), goodExpect(), ReasonOperation},
		// Bindings.
		{"root id", sign(func(r *Receipt) { r.RootID = "root-other" }), goodExpect(), ReasonRoot},
		{"relative path", sign(func(r *Receipt) { r.RelativePath = "guide/../intro.md" }), goodExpect(), ReasonPath},
		{"relative path case", sign(func(r *Receipt) { r.RelativePath = "Guide/intro.md" }), goodExpect(), ReasonPath},
		{"policy version", sign(func(r *Receipt) { r.PolicyVersion = "2026-11-01.1" }), goodExpect(), ReasonPolicyVersion},
		{"adapter digest", sign(func(r *Receipt) { r.AdapterBuildSha256 = strings.Repeat("cd", 32) }), goodExpect(), ReasonAdapter},
		{"adapter digest upper-case", sign(func(r *Receipt) { r.AdapterBuildSha256 = strings.ToUpper(adapter) }), goodExpect(), ReasonAdapter},
		{"empty platform profile", sign(func(r *Receipt) { r.PlatformProfile = "" }), goodExpect(), ReasonPlatform},
		{"over the byte cap", sign(func(*Receipt) {}), expect(func(e *Expect) { e.MaxBytes = 4 }), ReasonTooLarge},
		// Times.
		{"expired", sign(func(*Receipt) {}), expect(func(e *Expect) { e.Now = now.Add(time.Minute) }), ReasonStale},
		{"issued in the future", sign(func(*Receipt) {}), expect(func(e *Expect) { e.Now = now.Add(-11 * time.Second) }), ReasonStale},
		{"lifetime too long", sign(func(r *Receipt) { r.ExpiresAt = now.Add(24 * time.Hour).Format(time.RFC3339) }), goodExpect(), ReasonStale},
		{"expiry before issue", sign(func(r *Receipt) { r.ExpiresAt, r.IssuedAt = r.IssuedAt, r.ExpiresAt }), goodExpect(), ReasonStale},
		{"unparseable time", sign(func(r *Receipt) { r.IssuedAt = "yesterday" }), goodExpect(), ReasonStale},
		// Content.
		{"changed content", sign(func(*Receipt) {}), expect(func(e *Expect) { e.ContentSHA256 = sha256.Sum256([]byte("# Guide\nhellO\n")) }), ReasonContent},
		{"digest upper-case", sign(func(r *Receipt) { r.BytesSha256 = strings.ToUpper(r.BytesSha256) }), goodExpect(), ReasonContent},
		{"size differs from content", sign(func(r *Receipt) { r.ObjectIdentity.Size++ }), goodExpect(), ReasonObject},
		{"truncated content", sign(func(*Receipt) {}), expect(func(e *Expect) {
			e.ContentBytes = 3
			e.ContentSHA256 = sha256.Sum256(content[:3])
		}), ReasonContent},
		{"not a regular file", sign(func(r *Receipt) { r.ObjectIdentity.Type = "symlink" }), goodExpect(), ReasonObject},
		{"hard link", sign(func(r *Receipt) { r.ObjectIdentity.LinkCount = 2 }), goodExpect(), ReasonObject},
		{"no links", sign(func(r *Receipt) { r.ObjectIdentity.LinkCount = 0 }), goodExpect(), ReasonObject},
		{"empty file id", sign(func(r *Receipt) { r.ObjectIdentity.FileID = "" }), goodExpect(), ReasonObject},
		{"receipt digest wrong", body(func(m map[string]any) { m["receiptSha256"] = strings.Repeat("0", 64) }), goodExpect(), ReasonDigest},
		{"receipt digest not hex", body(func(m map[string]any) { m["receiptSha256"] = "x" }), goodExpect(), ReasonDigest},
	}
	v := verifier(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(c.signed(t), c.expect)
			if !errors.Is(err, &Error{Reason: c.want}) {
				t.Fatalf("Verify = %v, want %s", err, c.want)
			}
			if strings.Contains(err.Error(), "guide") || strings.Contains(err.Error(), "root-") {
				t.Fatalf("error %q carries input", err)
			}
		})
	}
}

func TestVerifierOptions(t *testing.T) {
	pub, priv := keys(t, 1)
	r := goodReceipt()
	r.ObjectIdentity.LinkCount = 3
	signed, _ := Sign(priv, "broker-1", r)
	v, _ := NewVerifier(map[string]ed25519.PublicKey{"broker-1": pub}, Options{AllowHardLinks: true, PlatformProfiles: []string{"linux-openat2-v1"}})
	if _, err := v.Verify(signed, goodExpect()); err != nil {
		t.Fatalf("hard links allowed: %v", err)
	}
	v, _ = NewVerifier(map[string]ed25519.PublicKey{"broker-1": pub}, Options{AllowHardLinks: true, PlatformProfiles: []string{"windows-v1"}})
	if _, err := v.Verify(signed, goodExpect()); !errors.Is(err, &Error{Reason: ReasonPlatform}) {
		t.Fatalf("platform not listed: %v", err)
	}
	v, _ = NewVerifier(map[string]ed25519.PublicKey{"broker-1": pub}, Options{AllowHardLinks: true, ClockSkew: 30 * time.Second})
	e := goodExpect()
	e.Now = now.Add(-20 * time.Second)
	if _, err := v.Verify(signed, e); err != nil {
		t.Fatalf("within skew: %v", err)
	}
	if _, err := NewVerifier(nil, Options{}); err == nil {
		t.Fatal("no keys accepted")
	}
	if _, err := NewVerifier(map[string]ed25519.PublicKey{"bad id!": pub}, Options{}); err == nil {
		t.Fatal("bad key id accepted")
	}
}

func FuzzVerify(f *testing.F) {
	pub, priv := keys(f, 1)
	s, _ := Sign(priv, "broker-1", goodReceipt())
	f.Add(s)
	f.Add([]byte(`{"keyId":"broker-1","receipt":{},"signature":"AA"}`))
	v, _ := NewVerifier(map[string]ed25519.PublicKey{"broker-1": pub}, Options{})
	e := goodExpect()
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := v.Verify(data, e)
		if err == nil && (r.RootID != e.RootID || r.RelativePath != e.RelativePath) {
			t.Fatal("accepted a receipt of another object")
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	_, priv := keys(b, 1)
	s, _ := Sign(priv, "broker-1", goodReceipt())
	v := verifier(b)
	e := goodExpect()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(s, e); err != nil {
			b.Fatal(err)
		}
	}
}
