package worker

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

var policyNow = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

func policyKey(id string, b byte) policyset.SigningKey {
	return policyset.SigningKey{ID: id, Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))}
}

func policyTrust(t testing.TB, keys ...policyset.SigningKey) policyset.Trust {
	t.Helper()
	m := map[string]ed25519.PublicKey{}
	for _, k := range keys {
		m[k.ID] = k.Public()
	}
	tr, err := policyset.NewTrust(m)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// signPolicy signs a policy document with a label template that names the
// version, so a reply shows which policy produced it.
func signPolicy(t testing.TB, k policyset.SigningKey, version string) []byte {
	t.Helper()
	doc := fmt.Sprintf("version: %s\nlabel: {template: \"[%s] output of {tool}:\\n\"}\n", version, version)
	b, _, err := policyset.Sign(k, []byte(doc), "", policyNow)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func policyBucket(t *testing.T, js jetstream.JetStream) jetstream.KeyValue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := EnsurePolicyBucket(ctx, js, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

func startWatcher(t *testing.T, kv jetstream.KeyValue, trust policyset.Trust, m *PolicyMetrics) *PolicyWatcher {
	t.Helper()
	w, err := NewPolicyWatcher(kv, trust, PolicyWatchOptions{Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func activeVersion(w *PolicyWatcher) string {
	if a := w.Active(); a != nil {
		return a.Version
	}
	return ""
}

// TestPolicyRefused: an unsigned, wrongly signed, altered or malformed
// envelope is refused by Push (nothing written) and, written into the
// bucket behind Push's back, by every watcher: it is counted and logged,
// and the running version stays.
func TestPolicyRefused(t *testing.T) {
	srv := serveTestServer(t)
	_, js := serveConnect(t, srv.ClientURL())
	kv := policyBucket(t, js)
	ops, rogue := policyKey("ops-1", 1), policyKey("ops-1", 9) // rogue claims ops' id
	trust := policyTrust(t, ops)
	store := PolicyStore{KV: kv, Trust: trust}
	ctx := context.Background()
	if _, err := store.Push(ctx, signPolicy(t, ops, "v1"), false); err != nil {
		t.Fatal(err)
	}
	m, _ := NewPolicyMetrics(nil)
	var logs bytes.Buffer
	var logMu sync.Mutex
	w, err := NewPolicyWatcher(kv, trust, PolicyWatchOptions{Metrics: m, Logger: slog.New(slog.NewJSONHandler(lockedWriter{&logs, &logMu}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if v := activeVersion(w); v != "v1" {
		t.Fatalf("active %q after start", v)
	}
	good := signPolicy(t, ops, "v2")
	var env map[string]any
	json.Unmarshal(good, &env)
	alter := func(f func(m map[string]any)) []byte {
		c := map[string]any{}
		for k, v := range env {
			c[k] = v
		}
		f(c)
		b, _ := json.Marshal(c)
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		reason policyset.Reason
	}{
		{"unsigned", alter(func(m map[string]any) { delete(m, "signature") }), policyset.ReasonUnsigned},
		{"wrongly signed", signPolicy(t, rogue, "v2"), policyset.ReasonBadSignature},
		{"untrusted key", signPolicy(t, policyKey("ops-2", 2), "v2"), policyset.ReasonUntrustedKey},
		{"altered", bytes.Replace(good, []byte(`[v2] output`), []byte(`[v3] output`), 1), policyset.ReasonBadSignature},
		{"not an envelope", []byte("version: v2\n"), policyset.ReasonMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			was, _ := store.Role(ctx, PolicyKeyActive)
			if _, err := store.Push(ctx, tc.data, false); policyset.ReasonOf(err) != tc.reason {
				t.Fatalf("push: err %v, want %s", err, tc.reason)
			}
			if b, _ := store.Role(ctx, PolicyKeyActive); !bytes.Equal(b, was) {
				t.Fatal("a refused push changed the active key")
			}
			before := counterValue(m.Refused.WithLabelValues(string(tc.reason)))
			if _, err := kv.Put(ctx, PolicyKeyActive, tc.data); err != nil {
				t.Fatal(err)
			}
			checkFor(t, 5*time.Second, func() error {
				if got := counterValue(m.Refused.WithLabelValues(string(tc.reason))); got != before+1 {
					return fmt.Errorf("refused{%s} = %v", tc.reason, got)
				}
				return nil
			})
			if v := activeVersion(w); v != "v1" {
				t.Fatalf("active %q after a refused envelope", v)
			}
			if got := m.Version(PolicyRoleActive); got != "v1" {
				t.Fatalf("metric version %q", got)
			}
		})
	}
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	if !strings.Contains(out, `"reason":"bad-signature"`) || !strings.Contains(out, "the running policy stays") {
		t.Fatalf("refusals not logged: %s", out)
	}
	if strings.Contains(out, "output of") {
		t.Fatal("the log holds policy text")
	}
	// Deleting "active" does not downgrade a worker either.
	if err := kv.Delete(ctx, PolicyKeyActive); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Push(ctx, signPolicy(t, ops, "v2"), false); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 5*time.Second, func() error {
		if v := activeVersion(w); v != "v2" {
			return fmt.Errorf("active %q", v)
		}
		return nil
	})
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestPolicyFleet runs three workers on one server, each with its own
// connection, watcher and metrics. A push reaches all three within two
// seconds, each reports it (policy_info), and every reply and evidence
// record after that names the new version; a rollback returns them all.
func TestPolicyFleet(t *testing.T) {
	srv := serveTestServer(t)
	_, js := serveConnect(t, srv.ClientURL())
	kv := policyBucket(t, js)
	ops := policyKey("ops-1", 1)
	trust := policyTrust(t, ops)
	store := PolicyStore{KV: kv, Trust: trust}
	ctx := context.Background()
	if _, err := store.Push(ctx, signPolicy(t, ops, "v1"), false); err != nil {
		t.Fatal(err)
	}
	type member struct {
		w   *PolicyWatcher
		m   *PolicyMetrics
		reg *prometheus.Registry
	}
	var fleet []member
	for i := 0; i < 3; i++ {
		nc, wjs := serveConnect(t, srv.ClientURL())
		reg := prometheus.NewRegistry()
		m, err := NewPolicyMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		wkv, err := wjs.KeyValue(ctx, wire.BucketPolicies)
		if err != nil {
			t.Fatal(err)
		}
		w := startWatcher(t, wkv, trust, m)
		startService(t, nc, WithPolicySource(w), WithDurable(false))
		fleet = append(fleet, member{w, m, reg})
	}
	reported := func(version string) func() error {
		return func() error {
			for i, f := range fleet {
				mfs, err := f.reg.Gather()
				if err != nil {
					return err
				}
				found := false
				for _, mf := range mfs {
					if mf.GetName() != "mcp_sanitize_policy_info" {
						continue
					}
					for _, mt := range mf.GetMetric() {
						lv := map[string]string{}
						for _, l := range mt.GetLabel() {
							lv[l.GetName()] = l.GetValue()
						}
						if lv["role"] == "active" && mt.GetGauge().GetValue() == 1 {
							if lv["version"] != version {
								return fmt.Errorf("worker %d reports %s", i, lv["version"])
							}
							found = true
						}
					}
				}
				if !found || activeVersion(f.w) != version {
					return fmt.Errorf("worker %d runs %q", i, activeVersion(f.w))
				}
			}
			return nil
		}
	}
	checkFor(t, 5*time.Second, reported("v1"))

	client, cjs := serveConnect(t, srv.ClientURL())
	request := func(i int) *nats.Msg {
		t.Helper()
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(wire.HeaderTool, "read_file")
		m.Header.Set(wire.HeaderRequestID, fmt.Sprintf("fleet-%d", i))
		m.Data = testMessage(i)
		r, err := client.RequestMsg(m, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	start := time.Now()
	if _, err := store.Push(ctx, signPolicy(t, ops, "v2"), false); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, reported("v2"))
	t.Logf("three workers report v2 %v after the push", time.Since(start).Round(time.Millisecond))

	for i := 0; i < 24; i++ {
		r := request(i)
		if !bytes.Contains(r.Data, []byte(`[v2] output of read_file:`)) || !bytes.Contains(r.Data, []byte(`"`+wire.MetaPrefix+wire.MetaPolicy+`":"v2"`)) {
			t.Fatalf("reply %d not produced by v2: %s", i, r.Data)
		}
		noSecrets(t, "reply", r.Data)
	}
	checkFor(t, 5*time.Second, func() error {
		n := 0
		for _, e := range streamMsgs(t, cjs, wire.StreamEvidence) {
			if strings.HasPrefix(e.Header.Get(wire.HeaderRequestID), "fleet-") {
				if !bytes.Contains(e.Data, []byte(`"policyVersion":"v2"`)) {
					return fmt.Errorf("evidence of another version: %s", e.Data)
				}
				n++
			}
		}
		if n != 24 {
			return fmt.Errorf("%d evidence records", n)
		}
		return nil
	})

	// A tenant pinned by a header to the old version still gets it.
	m := nats.NewMsg("mcp.sanitize.tool-result")
	m.Header.Set(wire.HeaderTool, "read_file")
	m.Header.Set(wire.HeaderPolicy, "v1")
	m.Data = testMessage(99)
	r, err := client.RequestMsg(m, 10*time.Second)
	if err != nil || !bytes.Contains(r.Data, []byte(`[v1] output of read_file:`)) {
		t.Fatalf("pinned v1: %v %s", err, r.Data)
	}
	m.Header.Set(wire.HeaderPolicy, "v7")
	r, err = client.RequestMsg(m, 10*time.Second)
	if err != nil || r.Header.Get(wire.HeaderCode) != string(wire.CodeInternal) {
		t.Fatalf("unknown pinned version: %v %v", err, r.Header)
	}

	if sp, err := store.Rollback(ctx, ""); err != nil || sp.Envelope.Version != "v1" {
		t.Fatalf("rollback: %v", err)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, reported("v1"))
	if _, err := store.Rollback(ctx, "v2"); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, reported("v2"))

	list, err := store.List(ctx)
	if err != nil || len(list) != 2 || list[0].Version != "v1" || list[1].Version != "v2" || !list[1].Active || list[0].Active || !list[0].Verified {
		t.Fatalf("list %+v %v", list, err)
	}
	// A version is written once.
	_, _, _ = policyset.Sign(ops, []byte("version: v1\n"), "", policyNow)
	other, _, _ := policyset.Sign(ops, []byte("version: v1\nlimits: {text-chars: 9}\n"), "", policyNow)
	if _, err := store.Push(ctx, other, false); !errors.Is(err, ErrPolicyVersionExists) {
		t.Fatalf("push of v1 with another digest: %v", err)
	}
}

// TestTenantPin: a tenant pinned by configuration runs its version while
// the others run the active one.
func TestTenantPin(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	kv := policyBucket(t, js)
	ops := policyKey("ops-1", 1)
	store := PolicyStore{KV: kv, Trust: policyTrust(t, ops)}
	ctx := context.Background()
	for _, v := range []string{"v1", "v2"} {
		if _, err := store.Push(ctx, signPolicy(t, ops, v), false); err != nil {
			t.Fatal(err)
		}
	}
	w := startWatcher(t, kv, store.Trust, nil)
	startService(t, nc, WithPolicySource(w), WithDurable(false), WithTenantPolicy("legacy", "v1"))
	for tenant, want := range map[string]string{"legacy": "[v1]", "acme": "[v2]", "": "[v2]"} {
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTool, "t")
		if tenant != "" {
			m.Header.Set(wire.HeaderTenant, tenant)
		}
		m.Data = testMessage(1)
		r, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil || !bytes.Contains(r.Data, []byte(want+" output of t:")) {
			t.Fatalf("tenant %q: %v %s", tenant, err, r.Data)
		}
	}
}

// rolloutDeadline is how soon every worker must run a pushed policy: the
// issue's "within a second or two". Under -race on a loaded two-core
// machine the whole process runs several times slower, so the bound there
// only checks that the push arrives.
var rolloutDeadline = func() time.Duration {
	if raceBuild {
		return 15 * time.Second
	}
	return 2 * time.Second
}()
