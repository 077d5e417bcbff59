package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

const serveTestSecret = "ghp_R8nQ2vXk7LmP4sT9wYz1aBcD3eFgH5iJ6kLm"

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestServeConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "serve.yaml")
	os.WriteFile(cfg, []byte(`
concurrency: 7
timeout: 5s
backoff: [40s, 1m]
max-deliver: 3
policies:
  strict: ./strict.yaml
http-addr: ""
inline: false
`), 0o600)
	env := envOf(map[string]string{"MCP_SANITIZE_CONFIG": cfg, "MCP_SANITIZE_CONCURRENCY": "9", "XDG_STATE_HOME": "/var/lib/x"})
	f, err := parseServeFlags([]string{"--timeout", "6s"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"env wins over file", f.concurrency, 9},
		{"flag wins over file", f.timeout, 6 * time.Second},
		{"file list", len(f.backoffSteps), 2},
		{"file duration list", f.backoffSteps[0], 40 * time.Second},
		{"file map", f.namedPolicies["strict"], "./strict.yaml"},
		{"file empty string", f.httpAddr, ""},
		{"file bool", f.inline, false},
		{"default kept", f.durable, true},
		{"XDG state dir", f.embeddedDir, "/var/lib/x/mcp-sanitize/nats"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	f, err = parseServeFlags(nil, envOf(nil), io.Discard)
	if err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	if f.embeddedDir != ".sanitize-data" || f.httpAddr != "127.0.0.1:9090" || !f.inline || !f.durable || !f.claims {
		t.Errorf("defaults: %+v", f)
	}
}

// TestServeDeployConfig keeps deploy/serve.yaml and the serve.yaml files of
// the kustomize base and overlays (deploy/kubernetes/) in step with the
// flags, and their policy.yaml files with the policy format.
func TestServeDeployConfig(t *testing.T) {
	if _, err := parseServeFlags([]string{"--config", "../../deploy/serve.yaml"}, envOf(nil), io.Discard); err != nil {
		t.Fatalf("deploy/serve.yaml: %v", err)
	}
	cfgs, _ := filepath.Glob("../../deploy/kubernetes/*/serve.yaml")
	more, _ := filepath.Glob("../../deploy/kubernetes/overlays/*/serve.yaml")
	cfgs = append(cfgs, more...)
	if len(cfgs) < 2 {
		t.Fatalf("serve.yaml of the base and the dev overlay not found: %v", cfgs)
	}
	for _, cfg := range cfgs {
		if _, err := parseServeFlags([]string{"--config", cfg}, envOf(nil), io.Discard); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	policies, _ := filepath.Glob("../../deploy/kubernetes/*/policy.yaml")
	if len(policies) == 0 {
		t.Fatal("no policy.yaml in deploy/kubernetes/base")
	}
	for _, p := range policies {
		if _, err := pipeline.LoadPolicy(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("concurency: 3\n"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"creds without url", []string{"--creds", "x.creds"}, "needs --nats-url"},
		{"embedded flag with url", []string{"--nats-url", "nats://h:4222", "--embedded-dir", "d"}, "embedded server only"},
		{"bad url", []string{"--nats-url", "http://user:pw@h"}, "scheme"},
		{"bad backoff", []string{"--backoff", "1m,soon"}, `"soon" is not a duration`},
		{"ack wait under timeout", []string{"--backoff", "10s", "--max-deliver", "2"}, "must exceed the message timeout"},
		{"bad ack mode", []string{"--ack-mode", "twice"}, "--ack-mode"},
		{"nothing to serve", []string{"--inline=false", "--durable=false"}, "nothing to serve"},
		{"bad compress", []string{"--compress", "gzip"}, "--compress"},
		{"bad framing", []string{"--framing", "xml"}, "--framing must be bare, jsonrpc or auto"},
		{"unknown file key", []string{"--config", unknown}, `unknown setting "concurency"`},
		{"missing file", []string{"--config", filepath.Join(dir, "none.yaml")}, "cannot read none.yaml"},
		{"bad policies", []string{"--policies", "strict"}, "NAME=FILE"},
		{"argument", []string{"extra"}, "unexpected argument"},
	} {
		var stderr bytes.Buffer
		code := runServeEnv(context.Background(), tc.args, envOf(nil), &stderr, nil)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.name, code, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), "pw") {
			t.Errorf("%s: stderr repeats a credential", tc.name)
		}
	}
}

// TestServeEmbedded runs the command as `serve` with an embedded server: an
// inline request and a durable message are sanitized, the HTTP endpoints
// answer, and cancelling the context (SIGTERM) drains it to exit 0.
func TestServeEmbedded(t *testing.T) {
	dir := t.TempDir()
	var logs stateLog
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type addrs struct{ nats, http string }
	readyc := make(chan addrs, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--embedded-dir", dir, "--embedded-port", "-1", "--http-addr", "127.0.0.1:0", "--log-level", "debug"},
			envOf(nil), &logs, func(n, h string) { readyc <- addrs{n, h} })
	}()
	var a addrs
	select {
	case a = <-readyc:
	case code := <-exit:
		t.Fatalf("serve exited with %d: %s", code, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve not ready: %s", logs.String())
	}
	nc, err := nats.Connect(a.nats)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	msg := []byte(`{"content":[{"type":"text","text":"GITHUB_TOKEN=` + serveTestSecret + `"}]}`)

	req := nats.NewMsg("mcp.sanitize.tool-result")
	req.Header.Set(wire.HeaderTenant, "acme")
	req.Data = msg
	r, err := nc.RequestMsg(req, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Get(wire.HeaderOutcome) != "sanitized" || bytes.Contains(r.Data, []byte(serveTestSecret)) {
		t.Fatalf("inline reply %v %s", r.Header, r.Data)
	}

	js, _ := jetstream.New(nc)
	if _, err := js.Publish(ctx, "mcp.raw.acme.files.tool-result", msg); err != nil {
		t.Fatal(err)
	}
	cons, err := js.OrderedConsumer(ctx, wire.StreamClean, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Subject() != "mcp.clean.acme.files.tool-result" || bytes.Contains(cm.Data(), []byte(serveTestSecret)) {
		t.Fatalf("clean output %s", cm.Subject())
	}

	for path, want := range map[string]string{"/readyz": "ok", "/healthz": "ok", "/metrics": `mcp_sanitize_messages_total{kind="tool-result",outcome="sanitized",path="durable"} 1`} {
		// The durable message is counted once its input is acknowledged,
		// which may come after its output reached MCP_CLEAN: poll.
		var status int
		var body string
		for deadline := time.Now().Add(10 * time.Second); ; {
			resp, err := http.Get("http://" + a.http + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status, body = resp.StatusCode, string(b)
			if status == 200 && strings.Contains(body, want) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q", path, status, want)
		}
	}

	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	logs.find(t, "stopped", nil)
	if strings.Contains(logs.String(), serveTestSecret) || strings.Contains(logs.String(), "GITHUB_TOKEN") {
		t.Error("log carries payload text")
	}
	if _, err := os.Stat(filepath.Join(dir, "jetstream")); err != nil {
		t.Errorf("embedded store not under --embedded-dir: %v", err)
	}
}

func TestServeExternalUnreachable(t *testing.T) {
	var logs stateLog
	code := runServeEnv(context.Background(), []string{"--nats-url", "nats://127.0.0.1:1", "--http-addr", ""}, envOf(nil), &logs, nil)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(logs.String(), "cannot connect to NATS") {
		t.Errorf("log: %s", logs.String())
	}
}

// TestServeStateService: with --state-keys the state service answers on the
// worker's connection; a malformed verify request gets its coded error.
func TestServeStateService(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "keys.json")
	if code, _, stderr := keysCmd(t, "new", "--file", keyFile); code != exitOK {
		t.Fatalf("keys new: %s", stderr)
	}
	var logs stateLog
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readyc := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--embedded-dir", filepath.Join(dir, "nats"), "--embedded-port", "-1", "--http-addr", "", "--durable=false", "--state-keys", keyFile},
			envOf(nil), &logs, func(n, _ string) { readyc <- n })
	}()
	var url string
	select {
	case url = <-readyc:
	case code := <-exit:
		t.Fatalf("serve exited with %d: %s", code, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve not ready: %s", logs.String())
	}
	logs.find(t, "state service ready", nil)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r, err := nc.Request(wire.SubjectStateVerify, []byte(`{"requestState":"x","unknown":1}`), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Data), `"ok":false`) || !strings.Contains(string(r.Data), `"code":`) {
		t.Fatalf("verify reply %s", r.Data)
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit %d", code)
	}
}

// TestServeCatalog: serve fills the tool catalog from a tools/list result
// published on mcp.tools.put.<server>, gives tool results of that tool its
// outputSchema (undeclared properties projected away, a non-conforming
// result rejected with SCHEMA_MISMATCH), and answers mcp.args.validate.
func TestServeCatalog(t *testing.T) {
	dir := t.TempDir()
	var logs stateLog
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readyc := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--embedded-dir", dir, "--embedded-port", "-1", "--http-addr", "", "--durable=false"},
			envOf(nil), &logs, func(n, _ string) { readyc <- n })
	}()
	var url string
	select {
	case url = <-readyc:
	case code := <-exit:
		t.Fatalf("serve exited with %d: %s", code, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve not ready: %s", logs.String())
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	tools := `{"tools":[{"name":"weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},` +
		`"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}}]}`
	r, err := nc.Request(wire.Subject(wire.ToolsPutPrefix, "files"), []byte(tools), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Header.Get(wire.HeaderCode); c != "" {
		t.Fatalf("tools put answered %s: %s", c, r.Data)
	}

	call := func(body string) *nats.Msg {
		t.Helper()
		req := nats.NewMsg("mcp.sanitize.tool-result")
		req.Header.Set(wire.HeaderTenant, "acme")
		req.Header.Set(wire.HeaderServer, "files")
		req.Header.Set(wire.HeaderTool, "weather")
		req.Data = []byte(body)
		r, err := nc.RequestMsg(req, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r = call(`{"content":[{"type":"text","text":"{\"temp\":21.5,\"owner\":\"x\"}"}],"structuredContent":{"temp":21.5,"owner":"x"}}`)
	if o := r.Header.Get(wire.HeaderOutcome); o == "rejected" || bytes.Contains(r.Data, []byte("owner")) || !bytes.Contains(r.Data, []byte(`"temp":21.5`)) {
		t.Fatalf("projected reply %s: %s", o, r.Data)
	}
	r = call(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"temperature":"warm"}}`)
	if o, c := r.Header.Get(wire.HeaderOutcome), r.Header.Get(wire.HeaderCode); o != "rejected" || c != "SCHEMA_MISMATCH" || bytes.Contains(r.Data, []byte("warm")) {
		t.Fatalf("non-conforming reply %s %s: %s", o, c, r.Data)
	}

	areq := nats.NewMsg(wire.SubjectArgsValidate)
	areq.Header.Set(wire.HeaderServer, "files")
	areq.Header.Set(wire.HeaderTool, "weather")
	areq.Data = []byte(`{"town":"Paris"}`)
	r, err = nc.RequestMsg(areq, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Header.Get(wire.HeaderCode); !strings.HasPrefix(c, "ARGS_") || c == "ARGS_VALID" || !bytes.Contains(r.Data, []byte("weather")) {
		t.Fatalf("args reply %s: %s", c, r.Data)
	}
	areq.Data = []byte(`{"city":"Paris"}`)
	if r, err = nc.RequestMsg(areq, 10*time.Second); err != nil || !bytes.Contains(r.Data, []byte(`"valid":true`)) {
		t.Fatalf("args reply for valid arguments: %v %s", err, r.Data)
	}

	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
