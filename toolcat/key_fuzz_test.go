package toolcat

import (
	"regexp"
	"testing"
)

// kvKey is the key charset of NATS KV (nats.go's validKeyRe), tokens
// separated by single dots.
var kvKey = regexp.MustCompile(`^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$`)

// FuzzToolToken: every accepted name maps to a valid two-token KV key that
// parses back to the same server and name.
func FuzzToolToken(f *testing.F) {
	for _, s := range []string{"search", "admin.tools.list", "a b", "=x", "café ☕", "a/b", "-", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		key, err := Key("srv", name)
		if err != nil {
			return
		}
		if !kvKey.MatchString(key) {
			t.Fatalf("key %q outside the KV charset", key)
		}
		server, back, err := ParseKey(key)
		if err != nil || server != "srv" || back != name {
			t.Fatalf("ParseKey(%q) = %q %q %v, want %q", key, server, back, err, name)
		}
	})
}
