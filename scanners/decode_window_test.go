package scanners

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// envFile builds an env file of about n bytes whose line at position at
// (0..1) holds secret.
func envFile(n int, at float64, secret string) string {
	var b strings.Builder
	placed := false
	for i := 0; b.Len() < n; i++ {
		if !placed && float64(b.Len()) >= at*float64(n) {
			b.WriteString(secret + "\n")
			placed = true
		}
		fmt.Fprintf(&b, "FEATURE_FLAG_%04d=enabled-for-region-%d # rollout note %d\n", i, i%7, i*31)
	}
	if !placed {
		b.WriteString(secret + "\n")
	}
	return b.String()
}

// TestLongRunWindows: a secret in a base64 run of any length (an env file
// base64'd into a Kubernetes Secret, 4 KiB to 200 KiB) is found wherever
// it stands, also across a window boundary, fed whole and in chunks, and
// the Redactor agrees with the reference; the hold stays bounded.
func TestLongRunWindows(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	tok := withCRC("ghp_", fakeChars(base62Alphabet, 30, 7))
	pw := "DB_PASSWORD=" + fakeChars(base62Alphabet, 18, 8) + "7!"
	for _, size := range []int{3 << 10, 5 << 10, 9 << 10, 40 << 10, 200 << 10} {
		for _, at := range []float64{0, 0.31, 0.5, 0.77, 1} {
			for k, secret := range []string{"GITHUB_TOKEN=" + tok, pw} {
				env := envFile(size, at, secret)
				for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
					run := enc.EncodeToString([]byte(env))
					doc := "apiVersion: v1\nkind: Secret\ndata:\n  .env: " + run + "\n  other: eA==\n"
					name := fmt.Sprintf("size%d/at%.2f/secret%d", size, at, k)
					for _, chunk := range []int{0, 4093} {
						out, fs := redactChunks(t, r, doc, chunk)
						if len(fs) == 0 || strings.Contains(out, run) {
							t.Errorf("%s chunk %d: not redacted (%d findings)", name, chunk, len(fs))
							continue
						}
						// Nothing of the secret's encoding survives: every
						// window that holds it is replaced.
						if dec := decodedSurvivors(out, enc); strings.Contains(dec, secret[len(secret)-12:]) {
							t.Errorf("%s chunk %d: the secret survives in what is left", name, chunk)
						}
					}
					if size <= 9<<10 && k == 0 {
						checkAgainstReference(t, c, CatalogOptions{}, doc, 1024)
					}
				}
			}
		}
	}
}

// decodedSurvivors decodes every base64 piece of out between markers
// (aligned to whole quanta from each piece's start) and joins them.
func decodedSurvivors(out string, enc *base64.Encoding) string {
	var b strings.Builder
	for _, part := range markerRe.Split(out, -1) {
		for _, f := range strings.Fields(part) {
			f = strings.TrimRight(strings.TrimPrefix(f, ".env:"), "=")
			for off := 0; off < 4 && off < len(f); off++ {
				body := f[off:]
				body = body[:len(body)&^3]
				if d, err := base64.RawStdEncoding.DecodeString(body); err == nil {
					b.Write(d)
				}
				if d, err := base64.RawURLEncoding.DecodeString(body); err == nil {
					b.Write(d)
				}
			}
		}
	}
	return b.String()
}
