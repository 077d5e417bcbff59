package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// TestGuardedInputDigest: a guarded message whose guard rewrites the input
// (the resource's URI) names the input as sent, hashed by the pass's
// own digester, under every digest policy; nothing under NoDigests; and a
// message after it on the same engine (the same pass from the free list)
// has its input digest again.
func TestGuardedInputDigest(t *testing.T) {
	in := `{"contents":[{"uri":"https://Example.com/x","text":"hello ` + strings.Repeat("resource text ", 400) + `"}]}`
	plain := `{"content":[{"type":"text","text":"after"}]}`
	sum := func(alg string, b string) string {
		if alg == DigestSHA256 || (alg == DigestAuto && len(b) <= digestSmall) {
			s := sha256.Sum256([]byte(b))
			return "sha256:" + hex.EncodeToString(s[:])
		}
		s := blake3.Sum256([]byte(b))
		return "blake3:" + hex.EncodeToString(s[:])
	}
	for _, alg := range []string{DigestAuto, DigestBLAKE3, DigestSHA256} {
		pol := resourcePolicy()
		pol.Digest = alg
		e, err := NewEngine(pol)
		if err != nil {
			t.Fatal(err)
		}
		for _, noDigests := range []bool{false, true} {
			info := resourceInfo("https://example.com/x", "ALLOW")
			info.NoDigests = noDigests
			var out Buffer
			ev, err := e.Sanitize(context.Background(), strings.NewReader(in), &out, info)
			if err != nil || ev.Outcome == OutcomeRejected {
				t.Fatalf("%s: %v %s", alg, err, ev.Reason)
			}
			want := sum(alg, in)
			if noDigests {
				want = ""
			}
			if ev.Input.Digest != want || ev.Input.Bytes != int64(len(in)) {
				t.Errorf("%s, NoDigests %v: input %+v, want %s", alg, noDigests, ev.Input, want)
			}
			out.Reset()
			ev, err = e.Sanitize(context.Background(), strings.NewReader(plain), &out, toolInfo)
			if err != nil || ev.Input.Digest != sum(alg, plain) {
				t.Errorf("%s: the next message's input %+v (%v), want %s", alg, ev.Input, err, sum(alg, plain))
			}
		}
	}
}
