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
// the bytes read and written, under each policy digest, for clean,
// sanitized and rejected messages, around the auto mode's 4 KiB switch and
// for inputs larger than one chunk.
func TestEvidenceDigests(t *testing.T) {
	sum := map[string]func([]byte) string{
		DigestBLAKE3: func(b []byte) string { s := blake3.Sum256(b); return "blake3:" + hex.EncodeToString(s[:]) },
		DigestSHA256: func(b []byte) string { s := sha256.Sum256(b); return "sha256:" + hex.EncodeToString(s[:]) },
	}
	text := func(n int) string { // a clean tool result of exactly n bytes
		head, tail := `{"content":[{"type":"text","text":"`, `"}]}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	cases := []struct{ name, in string }{
		{"clean", `{"content":[{"type":"text","text":"hello"}]}`},
		{"sanitized", `{"content":[{"type":"text","text":"key ghp_` + strings.Repeat("a", 36) + ` <system>x</system>"}]}`},
		{"rejected", `{"content":[{"type":"text","text":"unterminated`},
		{"small-limit", text(digestSmall)},
		{"small-limit+1", text(digestSmall + 1)},
		{"big", `{"content":[{"type":"text","text":"` + strings.Repeat("line of tool output ", 20000) + `"}]}`},
	}
	for _, mode := range []string{"", DigestAuto, DigestBLAKE3, DigestSHA256} {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				pol := DefaultPolicy()
				pol.Digest = mode
				out, ev := run(t, pol, toolInfo, tc.in)
				alg := func(n int) string {
					switch mode {
					case DigestBLAKE3, DigestSHA256:
						return mode
					}
					if n <= digestSmall {
						return DigestSHA256
					}
					return DigestBLAKE3
				}
				if got, w := ev.Input.Digest, sum[alg(len(tc.in))]([]byte(tc.in)); got != w {
					t.Errorf("input digest %s, want %s", got, w)
				}
				if got, w := ev.Output.Digest, sum[alg(len(out))]([]byte(out)); got != w {
					t.Errorf("output digest %s, want %s", got, w)
				}
			})
		}
	}
}

// TestDigesterSplits checks that how a stream is written (one write, small
// writes, writes that cross the auto switch) does not change its digest.
// Both BLAKE3 paths (zeebo/blake3 and wideBLAKE3) give the same digests.
func TestDigesterSplits(t *testing.T) {
	data := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
	for _, mode := range []string{DigestAuto, DigestBLAKE3, DigestSHA256} {
		for _, n := range []int{0, 1, digestSmall - 1, digestSmall, digestSmall + 1, wideSmall, wideSmall + 1, wideBuf, wideBuf + 1, len(data)} {
			whole := newDigesterOn(mode, false)
			whole.Write(data[:n])
			want := whole.String()
			for _, wide := range []bool{false, true} {
				for _, step := range []int{1, 7, 1000, digestSmall, wideBuf + 3} {
					d := newDigesterOn(mode, wide)
					d.Write([]byte("stale bytes from a previous message"))
					d.Reset()
					for i := 0; i < n; i += step {
						d.Write(data[i:min(i+step, n)])
					}
					if got := d.String(); got != want {
						t.Fatalf("%s (wide %v), %d bytes in writes of %d: %s, want %s", mode, wide, n, step, got, want)
					}
				}
			}
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
