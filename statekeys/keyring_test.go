package statekeys_test

import (
	"context"
	"encoding/base64"
	"fmt"
	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRingFileRoundTrip(t *testing.T) {
	r, err := GenerateRing(nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err = r.Rotate(nil, t0.Add(time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := ParseRing(b)
	if err != nil {
		t.Fatalf("ParseRing: %v", err)
	}
	if fmt.Sprint(r2.Keys()) != fmt.Sprint(r.Keys()) || r2.Active().ID != r.Active().ID {
		t.Fatalf("keys changed: %v vs %v", r2.Keys(), r.Keys())
	}
	ks := r2.Keys()
	if len(ks) != 2 || ks[0].State != KeyVerify || ks[1].State != KeyActive {
		t.Fatalf("states %v", ks)
	}
}

func TestRingNeverPrintsKeyMaterial(t *testing.T) {
	r, _ := GenerateRing(nil, t0)
	secret := base64.RawURLEncoding.EncodeToString(RingSecret(r, 0))
	ring, _ := NewKeyring(r)
	for _, s := range []string{
		fmt.Sprint(r), fmt.Sprintf("%v", r), fmt.Sprintf("%+v", r), fmt.Sprintf("%#v", r),
		fmt.Sprint(r.Keys()), fmt.Sprintf("%+v", r.Active()), fmt.Sprintf("%+v", ring.Ring()),
	} {
		if strings.Contains(s, secret) || strings.Contains(s, fmt.Sprint(RingSecret(r, 0))) {
			t.Fatalf("key material printed: %s", s)
		}
	}
}

func TestParseRingRejects(t *testing.T) {
	const sec = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" // 32 zero bytes
	key := func(id, state, secret string) string {
		return fmt.Sprintf(`{"id":%q,"state":%q,"created":"2026-12-01T00:00:00Z","secret":%q}`, id, state, secret)
	}
	tests := []struct {
		name, doc string
		want      Reason
	}{
		{"valid", `{"version":1,"keys":[` + key("k1", "active", sec) + `]}`, ReasonNone},
		{"no-active", `{"version":1,"keys":[` + key("k1", "verify", sec) + `]}`, ReasonRingActive},
		{"two-active", `{"version":1,"keys":[` + key("k1", "active", sec) + `,` + key("k2", "active", sec) + `]}`, ReasonRingActive},
		{"duplicate-id", `{"version":1,"keys":[` + key("k1", "active", sec) + `,` + key("k1", "verify", sec) + `]}`, ReasonRingDuplicate},
		{"short-secret", `{"version":1,"keys":[` + key("k1", "active", "AAAA") + `]}`, ReasonRingKey},
		{"padded-secret", `{"version":1,"keys":[` + key("k1", "active", sec+"=") + `]}`, ReasonRingKey},
		{"bad-state", `{"version":1,"keys":[` + key("k1", "primary", sec) + `]}`, ReasonRingKey},
		{"bad-id", `{"version":1,"keys":[` + key("k 1", "active", sec) + `]}`, ReasonRingKey},
		{"version", `{"version":2,"keys":[` + key("k1", "active", sec) + `]}`, ReasonRingMalformed},
		{"unknown-field", `{"version":1,"extra":1,"keys":[` + key("k1", "active", sec) + `]}`, ReasonRingMalformed},
		{"syntax-with-secret", `{"version":1,"keys":[{"secret":"TOPSECRETMATERIAL"x}]}`, ReasonRingMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRing([]byte(tt.doc))
			if ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, ReasonOf(err), tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), "TOPSECRET") || strings.Contains(err.Error(), sec)) {
				t.Fatalf("error leaks input: %v", err)
			}
		})
	}
}

func TestRotateStageThenPromote(t *testing.T) {
	r, _ := GenerateRing(nil, t0)
	first := r.Active().ID
	staged, info, err := r.Rotate(nil, t0.Add(time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	if staged.Active().ID != first || info.State != KeyStaged {
		t.Fatalf("staging changed the active key: %v %v", staged.Keys(), info)
	}
	// A staged key opens at once.
	if aead, r := RingOpener(staged, info.ID); aead == nil || r != ReasonNone {
		t.Fatalf("staged key does not open: %s", r)
	}
	if _, _, err := staged.Rotate(nil, t0, true); ReasonOf(err) != ReasonRingStaged {
		t.Fatalf("second staged key: %v", err)
	}
	promoted, pinfo, err := staged.Rotate(nil, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	if pinfo.ID != info.ID || promoted.Active().ID != info.ID || len(promoted.Keys()) != 2 {
		t.Fatalf("promotion: %v", promoted.Keys())
	}
	if _, err := promoted.Retire(info.ID); ReasonOf(err) != ReasonRingKey {
		t.Fatalf("retiring the active key: %v", err)
	}
	retired, err := promoted.Retire(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, r := RingOpener(retired, first); r != ReasonRetiredKey {
		t.Fatalf("retired key opens: %s", r)
	}
}

func TestFileSourceAndReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ring.json")
	r, _ := GenerateRing(nil, t0)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	src := FileSource{Path: path}
	loaded, err := src.Load(context.Background())
	if err != nil || loaded.Active().ID != r.Active().ID {
		t.Fatalf("load: %v", err)
	}
	ring, _ := NewKeyring(loaded)
	if changed, err := ring.Reload(context.Background(), src); err != nil || changed {
		t.Fatalf("reload of the same file: %v %v", changed, err)
	}
	r2, _, _ := r.Rotate(nil, t0.Add(time.Hour), false)
	if err := r2.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if changed, err := ring.Reload(context.Background(), src); err != nil || !changed || ring.Ring().Active().ID != r2.Active().ID {
		t.Fatalf("reload after rotation: %v %v", changed, err)
	}
	// A broken file leaves the ring in place.
	os.WriteFile(path, []byte("{"), 0o600)
	if _, err := ring.Reload(context.Background(), src); err == nil || ring.Ring().Active().ID != r2.Active().ID {
		t.Fatalf("broken file: %v", err)
	}
	// World-readable files are refused.
	r2.WriteFile(path)
	os.Chmod(path, 0o644)
	if _, err := src.Load(context.Background()); ReasonOf(err) != ReasonRingFile {
		t.Fatalf("world-readable file: %v", err)
	}
}

func TestKeyringWatchPicksUpRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ring.json")
	r, _ := GenerateRing(nil, t0)
	r.WriteFile(path)
	ring, _ := NewKeyring(r)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { ring.Watch(ctx, FileSource{Path: path}, 5*time.Millisecond, nil); close(done) }()
	r2, _, _ := r.Rotate(nil, t0.Add(time.Hour), false)
	r2.WriteFile(path)
	deadline := time.Now().Add(5 * time.Second)
	for ring.Ring().Active().ID != r2.Active().ID {
		if time.Now().After(deadline) {
			t.Fatal("rotation not picked up")
		}
		time.Sleep(time.Millisecond) // polling interval of the check, not a wait for a fixed time
	}
	cancel()
	<-done
}

func TestEnvSource(t *testing.T) {
	r, _ := GenerateRing(nil, t0)
	b, _ := r.MarshalFile()
	env := map[string]string{
		"RAW": string(b),
		"B64": "base64:" + base64.StdEncoding.EncodeToString(b),
		"BAD": "base64:!!!",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, name := range []string{"RAW", "B64"} {
		got, err := EnvSource{Name: name, Lookup: lookup}.Load(context.Background())
		if err != nil || got.Active().ID != r.Active().ID {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"BAD", "MISSING"} {
		if _, err := (EnvSource{Name: name, Lookup: lookup}).Load(context.Background()); err == nil {
			t.Fatalf("%s accepted", name)
		}
	}
}

func TestMemoryStoreExpires(t *testing.T) {
	c := &testClock{t: t0}
	s := &MemoryStore{Now: c.Now}
	ctx := context.Background()
	if ok, _ := s.Consume(ctx, "f", time.Minute); !ok {
		t.Fatal("first consume refused")
	}
	if ok, _ := s.Consume(ctx, "f", time.Minute); ok {
		t.Fatal("second consume accepted")
	}
	c.Add(time.Minute)
	if ok, _ := s.Consume(ctx, "f", time.Minute); !ok {
		t.Fatal("record outlived its ttl")
	}
}
