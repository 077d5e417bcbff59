package scanners

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonEsc writes s as the inside of a JSON string, n times over.
func jsonEsc(s string, n int) string {
	for range n {
		b, _ := json.Marshal(s)
		s = string(b[1 : len(b)-1])
	}
	return s
}

// TestKeyBlockInJSONText: a key block inside a string of text that is JSON
// (one to three levels deep) is redacted up to the end of that string and no
// further, with or without its END line, so the JSON around it stays valid
// (issue 17, class 9); a block in plain text still fails closed.
func TestKeyBlockInJSONText(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	body := strings.Repeat(fakeChars(base62Alphabet, 64, 7)+"\n", 3)
	blocks := map[string]string{
		"pem-open":      "-----BEGIN PRIVATE KEY-----\n" + body,
		"pem-closed":    "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "-----END OPENSSH PRIVATE KEY-----\n",
		"pgp-open":      "-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + body,
		"ssh2-open":     ssh2Begin + "\nComment: \"rsa-key\"\n" + body,
		"pem-repeated":  strings.Repeat("-----BEGIN PRIVATE KEY-----\n", 200),
		"pem-backslash": "-----BEGIN PRIVATE KEY-----\n" + body + `C:\keys\`,
	}
	for name, blk := range blocks {
		for level := 1; level <= 3; level++ {
			doc := `{"a":"` + jsonEsc(blk, 1) + `","b":"after"}`
			for range level - 1 {
				doc = `{"v":"` + jsonEsc(doc, 1) + `"}`
			}
			if !json.Valid([]byte(doc)) {
				t.Fatalf("%s: the test's document is not JSON", name)
			}
			for _, n := range []int{0, 1, 7, 64} {
				got, fs := redactChunks(t, r, doc, n)
				if len(fs) == 0 || strings.Contains(got, body[:40]) {
					t.Fatalf("%s level %d chunks %d: not redacted: %q", name, level, n, got)
				}
				cur := got
				for l := 0; l < level; l++ {
					var v map[string]any
					if err := json.Unmarshal([]byte(cur), &v); err != nil {
						t.Fatalf("%s level %d chunks %d: level %d no longer JSON: %q", name, level, n, l+1, got)
					}
					if s, ok := v["v"].(string); ok {
						cur = s
					} else if v["b"] != "after" {
						t.Fatalf("%s level %d chunks %d: the member after the key is gone: %q", name, level, n, got)
					}
				}
			}
		}
	}
	// Plain text: no JSON string to end at, the block fails closed.
	got, _ := redactChunks(t, r, "-----BEGIN PRIVATE KEY-----\n"+body+`"quoted" tail`, 0)
	if strings.Contains(got, "tail") {
		t.Fatalf("plain text block did not fail closed: %q", got)
	}
}
