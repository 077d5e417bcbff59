package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// stateLog is a log sink the command writes while the test reads it.
type stateLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *stateLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *stateLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines returns the log records, failing on a line that is not JSON.
func (l *stateLog) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// find returns the first record with msg and the given attributes.
func (l *stateLog) find(t *testing.T, msg string, attrs map[string]string) map[string]any {
	t.Helper()
	for _, m := range l.lines(t) {
		if m["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range attrs {
			if s, _ := m[k].(string); s != v {
				ok = false
			}
		}
		if ok {
			return m
		}
	}
	return nil
}

type stateProc struct {
	cancel context.CancelFunc
	done   chan int
	log    *stateLog
	url    string
}

// startStateCmd runs the state command in a goroutine (with the process
// environment when env is nil) and waits for its ready record.
func startStateCmd(t *testing.T, env map[string]string, args ...string) *stateProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &stateProc{cancel: cancel, done: make(chan int, 1), log: &stateLog{}}
	go func() {
		if env == nil {
			p.done <- runState(ctx, args, strings.NewReader(""), &bytes.Buffer{}, p.log)
			return
		}
		p.done <- runStateEnv(ctx, args, stateLookup(env), p.log)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
		}
	})
	testnats.CheckFor(t, 15*time.Second, 20*time.Millisecond, func() error {
		select {
		case code := <-p.done:
			t.Fatalf("state exited with %d before ready: %s", code, p.log.String())
		default:
		}
		ready := p.log.find(t, "ready", nil)
		if ready == nil {
			return errors.New("no ready record yet")
		}
		p.url, _ = ready["natsUrl"].(string)
		return nil
	})
	return p
}

// stop cancels the command's context and returns its exit code.
func (p *stateProc) stop(t *testing.T) int {
	t.Helper()
	p.cancel()
	select {
	case code := <-p.done:
		p.done <- code // for the cleanup
		return code
	case <-time.After(15 * time.Second):
		t.Fatal("state did not stop within 15s")
		return -1
	}
}

func stateLookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

var (
	cmdIdentity  = map[string]string{"subject": "user-123", "tenant": "acme", "clientId": "client-abc"}
	cmdOperation = map[string]any{"method": "tools/call", "name": "book_meeting", "arguments": map[string]any{"room": "A"}}
)

type cmdStateReply struct {
	OK           bool   `json:"ok"`
	RequestState string `json:"requestState"`
	FlowID       string `json:"flowId"`
	KeyID        string `json:"keyId"`
	Error        *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func cmdStateRequest(t *testing.T, nc *nats.Conn, subject string, body map[string]any) cmdStateReply {
	t.Helper()
	b, _ := json.Marshal(body)
	m, err := nc.Request(subject, b, 5*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", subject, err)
	}
	var r cmdStateReply
	if err := json.Unmarshal(m.Data, &r); err != nil {
		t.Fatalf("%s reply %s: %v", subject, m.Data, err)
	}
	return r
}

func cmdSeal(t *testing.T, nc *nats.Conn) cmdStateReply {
	t.Helper()
	r := cmdStateRequest(t, nc, worker.SubjectStateSeal, map[string]any{"identity": cmdIdentity, "operation": cmdOperation, "ttlSeconds": 120})
	if !r.OK || !strings.HasPrefix(r.RequestState, "mrs1."+r.KeyID+".") {
		t.Fatalf("seal: %+v", r)
	}
	return r
}

func cmdVerify(t *testing.T, nc *nats.Conn, token string) cmdStateReply {
	t.Helper()
	return cmdStateRequest(t, nc, worker.SubjectStateVerify, map[string]any{"requestState": token, "identity": cmdIdentity, "operation": cmdOperation})
}

func stateConnect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, _ := testnats.Connect(t, url)
	return nc
}

// ringSecrets returns the key material of a ring file, to check it never
// reaches the log.
func ringSecrets(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []struct {
			Secret string `json:"secret"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range doc.Keys {
		out = append(out, k.Secret)
	}
	return out
}

func assertNotLogged(t *testing.T, log *stateLog, what string, secrets ...string) {
	t.Helper()
	s := log.String()
	for _, x := range secrets {
		if x != "" && strings.Contains(s, x) {
			t.Fatalf("the log holds %s", what)
		}
	}
}

// TestStateCommandFileKeys runs the command on an embedded server with a
// key file, seals and verifies over NATS, rejects a replay, rotates the file
// with `keys rotate` and sees the new key seal while a state sealed before
// the rotation still opens, and stops on cancel with exit 0.
func TestStateCommandFileKeys(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "statekeys.json")
	if code, _, stderr := keysCmd(t, "new", "--file", keyFile); code != exitOK {
		t.Fatalf("keys new: %s", stderr)
	}
	first := loadRing(t, keyFile).Active().ID

	p := startStateCmd(t, nil,
		"--embedded-dir", filepath.Join(dir, "nats"), "--embedded-port", "-1",
		"--keys", keyFile, "--keys-reload", "50ms", "--concurrency", "4")
	if !strings.HasPrefix(p.url, "nats://127.0.0.1:") {
		t.Fatalf("ready natsUrl %q", p.url)
	}
	ready := p.log.find(t, "ready", nil)
	if subj, _ := ready["subjects"].([]any); len(subj) != 2 || subj[0] != worker.SubjectStateSeal || subj[1] != worker.SubjectStateVerify {
		t.Fatalf("ready subjects: %v", ready["subjects"])
	}
	if p.log.find(t, "start", map[string]string{"nats": "embedded", "keySource": "file"}) == nil {
		t.Fatalf("no start record: %s", p.log.String())
	}

	nc := stateConnect(t, p.url)
	evidence, err := nc.SubscribeSync("mcp.evidence.acme")
	if err != nil {
		t.Fatal(err)
	}
	nc.Flush()

	sealed := cmdSeal(t, nc)
	if sealed.KeyID != first {
		t.Fatalf("sealed with %s, want %s", sealed.KeyID, first)
	}
	if v := cmdVerify(t, nc, sealed.RequestState); !v.OK || v.FlowID != sealed.FlowID {
		t.Fatalf("verify: %+v", v)
	}
	replay := cmdVerify(t, nc, sealed.RequestState)
	if replay.OK || replay.Error == nil || replay.Error.Code != "STATE_REJECTED" || replay.Error.Message != "request state rejected" {
		t.Fatalf("replayed verify: %+v", replay)
	}
	var reasons []string
	for range 3 {
		m, err := evidence.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatalf("evidence: %v", err)
		}
		var ev struct{ Reason string }
		json.Unmarshal(m.Data, &ev)
		reasons = append(reasons, ev.Reason)
	}
	if reasons[2] != string(statekeys.ReasonReplayed) {
		t.Fatalf("evidence reasons %v, want the third to be replayed", reasons)
	}

	// A state sealed before the rotation must still open after it.
	before := cmdSeal(t, nc)
	if code, stdout, stderr := keysCmd(t, "rotate", "--file", keyFile); code != exitOK {
		t.Fatalf("keys rotate: %s %s", stdout, stderr)
	}
	second := loadRing(t, keyFile).Active().ID
	testnats.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if r := cmdSeal(t, nc); r.KeyID != second {
			return errors.New("still sealing with " + r.KeyID)
		}
		return nil
	})
	if v := cmdVerify(t, nc, before.RequestState); !v.OK || v.KeyID != first {
		t.Fatalf("state sealed before the rotation: %+v", v)
	}
	testnats.CheckFor(t, 5*time.Second, 20*time.Millisecond, func() error {
		if p.log.find(t, "key ring reloaded", map[string]string{"activeKey": second}) == nil {
			return errors.New("no reload record")
		}
		return nil
	})

	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit code %d: %s", code, p.log.String())
	}
	if p.log.find(t, "stopped", nil) == nil {
		t.Fatalf("no stopped record: %s", p.log.String())
	}
	assertNotLogged(t, p.log, "key material", ringSecrets(t, keyFile)...)
	assertNotLogged(t, p.log, "a token", sealed.RequestState, before.RequestState, sealed.FlowID)
	// The embedded server is gone with the command.
	if _, err := nats.Connect(p.url, nats.Timeout(time.Second)); err == nil {
		t.Fatal("embedded server still accepts connections after stop")
	}
}

// TestStateCommandKVKeys runs the command against an existing server
// (--nats-url with credentials, which must not be logged) with the ring in
// a KV bucket, and swaps a rotated ring in without a restart.
func TestStateCommandKVKeys(t *testing.T) {
	srv := testnats.RunServer(t, testnats.Options{})
	nc := stateConnect(t, srv.ClientURL())
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kv, err := worker.EnsureKeyBucket(ctx, js, "test_state_keys", 1)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := statekeys.GenerateRing(nil, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.PutKeyRing(ctx, kv, "", ring); err != nil {
		t.Fatal(err)
	}

	// The server has no authentication and ignores the user information.
	url := strings.Replace(srv.ClientURL(), "nats://", "nats://alice:hunter2-secret@", 1)
	p := startStateCmd(t, map[string]string{},
		"--nats-url", url, "--keys-kv", "test_state_keys", "--replay-bucket", "test_flows", "--queue", "q-test")
	if r := cmdSeal(t, nc); r.KeyID != ring.Active().ID {
		t.Fatalf("sealed with %s, want %s", r.KeyID, ring.Active().ID)
	}
	rotated, info, err := ring.Rotate(nil, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.PutKeyRing(ctx, kv, "", rotated); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if r := cmdSeal(t, nc); r.KeyID != info.ID {
			return errors.New("still sealing with " + r.KeyID)
		}
		return nil
	})
	testnats.CheckFor(t, 5*time.Second, 20*time.Millisecond, func() error {
		if p.log.find(t, "key ring reloaded", map[string]string{"activeKey": info.ID}) == nil {
			return errors.New("no reload record")
		}
		return nil
	})
	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit code %d: %s", code, p.log.String())
	}
	assertNotLogged(t, p.log, "the URL password", "hunter2-secret")
	if !strings.Contains(p.url, "redacted@127.0.0.1") || p.log.find(t, "start", map[string]string{"nats": "external", "queue": "q-test"}) == nil {
		t.Fatalf("start/ready records: %s", p.log.String())
	}
	if _, err := js.KeyValue(ctx, "test_flows"); err != nil {
		t.Fatalf("replay bucket --replay-bucket not created: %v", err)
	}
}

// TestStateCommandEnvironment takes every setting from the environment,
// the ring from --keys-env, and checks that a flag wins over its variable.
func TestStateCommandEnvironment(t *testing.T) {
	ring, err := statekeys.GenerateRing(nil, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := ring.MarshalFile()
	secret := ringSecretsOf(t, doc)
	env := map[string]string{
		"MCP_SANITIZE_NATS_EMBEDDED_DIR":  filepath.Join(t.TempDir(), "nats"),
		"MCP_SANITIZE_NATS_EMBEDDED_PORT": "-1",
		"MCP_SANITIZE_STATE_KEYS_ENV":     "TEST_RING",
		"TEST_RING":                       "base64:" + base64.StdEncoding.EncodeToString(doc),
		"MCP_SANITIZE_STATE_QUEUE":        "from-env",
		"MCP_SANITIZE_LOG_LEVEL":          "debug",
	}
	p := startStateCmd(t, env, "--queue", "from-flag")
	if p.log.find(t, "ready", map[string]string{"queue": "from-flag"}) == nil {
		t.Fatalf("flag did not win over the environment: %s", p.log.String())
	}
	if p.log.find(t, "start", map[string]string{"keySource": "env", "keysEnv": "TEST_RING"}) == nil {
		t.Fatalf("start record: %s", p.log.String())
	}
	nc := stateConnect(t, p.url)
	s := cmdSeal(t, nc)
	if s.KeyID != ring.Active().ID {
		t.Fatalf("sealed with %s", s.KeyID)
	}
	if v := cmdVerify(t, nc, s.RequestState); !v.OK {
		t.Fatalf("verify: %+v", v)
	}
	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	assertNotLogged(t, p.log, "key material", append(secret, env["TEST_RING"])...)
}

func ringSecretsOf(t *testing.T, doc []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ring.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return ringSecrets(t, path)
}

func TestStateCommandUsageErrors(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "ring.json")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		msg  string
	}{
		{"no-key-source", nil, nil, exitUsage, "a key source is required"},
		{"two-key-sources", []string{"--keys", keys, "--keys-env", "RING"}, nil, exitUsage, "exactly one key source may be given, not --keys and --keys-env"},
		{"three-key-sources", []string{"--keys", keys, "--keys-env", "RING", "--keys-kv", "b"}, nil, exitUsage, "--keys and --keys-env and --keys-kv"},
		{"key-source-from-env-and-flag", []string{"--keys-kv", "b"}, map[string]string{"MCP_SANITIZE_STATE_KEYS": keys}, exitUsage, "not --keys and --keys-kv"},
		{"bad-url-scheme", []string{"--keys", keys, "--nats-url", "http://127.0.0.1:4222"}, nil, exitUsage, "scheme must be nats, tls, ws or wss"},
		{"bad-url-parse", []string{"--keys", keys, "--nats-url", "nats://u:pw-secret@[::1"}, nil, exitUsage, "URL 1 does not parse"},
		{"bad-url-port", []string{"--keys", keys, "--nats-url", "nats://a:4222,nats://b:99999"}, nil, exitUsage, "URL 2: port must be"},
		{"bad-url-empty-entry", []string{"--keys", keys, "--nats-url", "nats://a:4222,"}, nil, exitUsage, "URL 2 is empty"},
		{"bad-url-from-env", []string{"--keys", keys}, map[string]string{"MCP_SANITIZE_NATS_URL": "ftp://x"}, exitUsage, "scheme"},
		{"creds-without-url", []string{"--keys", keys, "--creds", "x.creds"}, nil, exitUsage, "--creds needs --nats-url"},
		{"creds-and-nkey", []string{"--keys", keys, "--nats-url", "nats://a", "--creds", "c", "--nkey", "n"}, nil, exitUsage, "--creds and --nkey"},
		{"tls-cert-without-key", []string{"--keys", keys, "--nats-url", "tls://a", "--tls-cert", "c.pem"}, nil, exitUsage, "--tls-cert and --tls-key go together"},
		{"embedded-port-with-url", []string{"--keys", keys, "--nats-url", "nats://a", "--embedded-port", "5000"}, nil, exitUsage, "--embedded-port applies to the embedded server only"},
		{"embedded-port-range", []string{"--keys", keys, "--embedded-port", "0"}, nil, exitUsage, "--embedded-port must be"},
		{"ttl-over-max", []string{"--keys", keys, "--ttl", "10m", "--max-ttl", "5m"}, nil, exitUsage, "--max-ttl"},
		{"concurrency", []string{"--keys", keys, "--concurrency", "0"}, nil, exitUsage, "--concurrency"},
		{"max-request-bytes", []string{"--keys", keys, "--max-request-bytes", "10"}, nil, exitUsage, "--max-request-bytes"},
		{"evidence-prefix", []string{"--keys", keys, "--evidence-prefix", "mcp.>"}, nil, exitUsage, "--evidence-prefix"},
		{"replicas", []string{"--keys", keys, "--replay-replicas", "7"}, nil, exitUsage, "--replay-replicas"},
		{"log-level", []string{"--keys", keys, "--log-level", "loud"}, nil, exitUsage, "--log-level"},
		{"bad-env-value", []string{"--keys", keys}, map[string]string{"MCP_SANITIZE_STATE_CONCURRENCY": "many"}, exitUsage, "MCP_SANITIZE_STATE_CONCURRENCY: invalid value for --concurrency"},
		{"unknown-flag", []string{"--bogus"}, nil, exitUsage, "bogus"},
		{"extra-argument", []string{"--keys", keys, "serve"}, nil, exitUsage, "unexpected argument"},
		{"help", []string{"-h"}, nil, exitOK, "MCP_SANITIZE_STATE_KEYS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr stateLog
			env := tt.env
			if env == nil {
				env = map[string]string{}
			}
			code := runStateEnv(context.Background(), tt.args, stateLookup(env), &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.msg) {
				t.Fatalf("code %d, stderr %q", code, stderr.String())
			}
			if strings.Contains(stderr.String(), "pw-secret") {
				t.Fatal("usage error repeats URL credentials")
			}
		})
	}
}

// TestStateCommandFailures: what cannot start exits 1 with a JSON log
// record, and shuts the embedded server down.
func TestStateCommandFailures(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	var stderr stateLog
	code := runStateEnv(context.Background(),
		[]string{"--keys", missing, "--embedded-port", "-1", "--embedded-dir", filepath.Join(dir, "nats")},
		stateLookup(map[string]string{}), &stderr)
	if code != exitFailure || stderr.find(t, "cannot load the key ring (missing, mode not 0600/0640, or malformed)", map[string]string{"reason": string(statekeys.ReasonRingFile)}) == nil {
		t.Fatalf("missing key file: %d %s", code, stderr.String())
	}

	// Nothing listens on port 1.
	stderr2 := &stateLog{}
	keyFile := filepath.Join(dir, "ring.json")
	keysCmd(t, "new", "--file", keyFile)
	code = runStateEnv(context.Background(), []string{"--keys", keyFile, "--nats-url", "nats://127.0.0.1:1"}, stateLookup(map[string]string{}), stderr2)
	if code != exitFailure || stderr2.find(t, "cannot connect to NATS", nil) == nil {
		t.Fatalf("unreachable server: %d %s", code, stderr2.String())
	}

	// A ring bucket that does not exist.
	srv, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), Port: natsembed.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	stderr3 := &stateLog{}
	code = runStateEnv(context.Background(), []string{"--keys-kv", "no_such_bucket", "--nats-url", srv.ClientURL()}, stateLookup(map[string]string{}), stderr3)
	if code != exitFailure || !strings.Contains(stderr3.String(), "key ring bucket not found") {
		t.Fatalf("missing bucket: %d %s", code, stderr3.String())
	}
}
