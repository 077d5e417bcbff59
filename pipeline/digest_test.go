package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// TestEvidenceDigests checks that the evidence digests are the digests of
// the bytes read and written, under both algorithms, for clean, sanitized
// and rejected messages, and for inputs larger than one chunk.
func TestEvidenceDigests(t *testing.T) {
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("line of tool output ", 20000) + `"}]}`
	sum := map[string]func([]byte) string{
		DigestBLAKE3: func(b []byte) string { s := blake3.Sum256(b); return "blake3:" + hex.EncodeToString(s[:]) },
		DigestSHA256: func(b []byte) string { s := sha256.Sum256(b); return "sha256:" + hex.EncodeToString(s[:]) },
	}
	for _, alg := range []string{"", DigestBLAKE3, DigestSHA256} {
		for _, tc := range []struct{ name, in string }{
			{"clean", `{"content":[{"type":"text","text":"hello"}]}`},
			{"sanitized", `{"content":[{"type":"text","text":"key ghp_` + strings.Repeat("a", 36) + ` <system>x</system>"}]}`},
			{"rejected", `{"content":[{"type":"text","text":"unterminated`},
			{"big", big},
		} {
			t.Run(alg+"/"+tc.name, func(t *testing.T) {
				pol := DefaultPolicy()
				pol.Digest = alg
				out, ev := run(t, pol, toolInfo, tc.in)
				want := alg
				if want == "" {
					want = DigestBLAKE3
				}
				if got, w := ev.Input.Digest, sum[want]([]byte(tc.in)); got != w {
					t.Errorf("input digest %s, want %s", got, w)
				}
				if got, w := ev.Output.Digest, sum[want]([]byte(out)); got != w {
					t.Errorf("output digest %s, want %s", got, w)
				}
			})
		}
	}
}

func TestPolicyDigestInvalid(t *testing.T) {
	for _, alg := range []string{"md5", "SHA256", "blake2b"} {
		pol := DefaultPolicy()
		pol.Digest = alg
		if err := pol.Validate(); !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "digest") {
			t.Errorf("digest %q: error %v", alg, err)
		}
		if _, err := NewEngine(pol); err == nil {
			t.Errorf("digest %q: engine built", alg)
		}
	}
}
