package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func runPolicyTest(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runPolicyEnv(context.Background(), args, envOf(nil), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestPolicyCommands runs keygen, sign, push, list, diff and rollback
// against a NATS server, with a serve worker watching the bucket: its
// /metrics and replies follow the pushes, and a push signed by a key it
// does not trust is refused by the command.
func TestPolicyCommands(t *testing.T) {
	url := catalogServer(t)
	dir := t.TempDir()
	key, trust := filepath.Join(dir, "ops.key"), filepath.Join(dir, "trust.json")
	if code, _, e := runPolicyTest(t, "keygen", "--id", "ops-1", "--key", key, "--trust", trust); code != exitOK {
		t.Fatalf("keygen: %d %s", code, e)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v", err)
	}
	if code, _, _ := runPolicyTest(t, "keygen", "--id", "ops-1", "--key", key, "--trust", trust); code != exitFailure {
		t.Fatal("keygen replaced a key file")
	}
	rogueKey := filepath.Join(dir, "rogue.key")
	if code, _, e := runPolicyTest(t, "keygen", "--id", "rogue", "--key", rogueKey); code != exitOK {
		t.Fatalf("keygen rogue: %d %s", code, e)
	}
	sign := func(k, version, doc string) string {
		t.Helper()
		pf := filepath.Join(dir, version+".yaml")
		os.WriteFile(pf, []byte(doc), 0o644)
		ef := filepath.Join(dir, version+"."+filepath.Base(k)+".env.json")
		if code, _, e := runPolicyTest(t, "sign", "--key", k, "--out", ef, pf); code != exitOK {
			t.Fatalf("sign %s: %d %s", version, code, e)
		}
		return ef
	}
	v1 := sign(key, "v1", "version: v1\nlabel: {template: \"[v1] {tool}:\\n\"}\n")
	v2 := sign(key, "v2", "version: v2\nlabel: {template: \"[v2] {tool}:\\n\"}\nlimits: {text-chars: 500}\n")
	rogue := sign(rogueKey, "v3", "version: v3\nlabel: {disabled: true}\n")

	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, v1); code != exitOK {
		t.Fatalf("push v1: %d %s", code, e)
	}

	// A worker that trusts ops-1 and watches the bucket.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs stateLog
	type addrs struct{ nats, http string }
	readyc := make(chan addrs, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--nats-url", url, "--http-addr", "127.0.0.1:0", "--durable=false", "--policy-trust", trust},
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
	defer func() {
		cancel()
		<-exit
	}()
	metricsShow := func(version string) func() error {
		return func() error {
			resp, err := http.Get("http://" + a.http + "/metrics")
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := fmt.Sprintf(`mcp_sanitize_policy_info{role="active",version=%q} 1`, version)
			if !bytes.Contains(b, []byte(want)) {
				return fmt.Errorf("metrics lack %s", want)
			}
			return nil
		}
	}
	testnats.CheckFor(t, 5*time.Second, 20*time.Millisecond, metricsShow("v1"))
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	reply := func() string {
		req := nats.NewMsg("mcp.sanitize.tool-result")
		req.Header.Set(wire.HeaderTool, "fetch")
		req.Data = []byte(`{"content":[{"type":"text","text":"GITHUB_TOKEN=` + serveTestSecret + `"}]}`)
		r, err := nc.RequestMsg(req, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(r.Data, []byte(serveTestSecret)) {
			t.Fatal("secret in reply")
		}
		return string(r.Data)
	}
	if r := reply(); !strings.Contains(r, "[v1] fetch:") {
		t.Fatalf("reply under v1: %s", r)
	}

	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, rogue); code != exitFailure || !strings.Contains(e, "untrusted-key") {
		t.Fatalf("push of an untrusted envelope: %d %s", code, e)
	}
	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, v2); code != exitOK {
		t.Fatalf("push v2: %d %s", code, e)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, metricsShow("v2"))
	if r := reply(); !strings.Contains(r, "[v2] fetch:") {
		t.Fatalf("reply under v2: %s", r)
	}

	code, out, e := runPolicyTest(t, "list", "--nats-url", url, "--trust", trust, "--json")
	var list []struct {
		Version  string
		Active   bool
		Verified bool
	}
	if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 || !list[1].Active || !list[0].Verified {
		t.Fatalf("list: %d %s %s", code, out, e)
	}
	code, out, e = runPolicyTest(t, "diff", "--nats-url", url, "v1", "active")
	if code != exitOK || !strings.Contains(out, `+ /limits/text-chars: 500`) || !strings.Contains(out, `~ /version: "v1" -> "v2"`) {
		t.Fatalf("diff: %d %q %s", code, out, e)
	}
	// A shadow candidate: replies stay v2's, shadow-report shows the difference.
	shadow := sign(key, "v3", "version: v3\nlabel: {template: \"[v3] {tool}:\\n\"}\nrules: {disabled: [github-pat]}\n")
	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, "--shadow", shadow); code != exitOK {
		t.Fatalf("push --shadow: %d %s", code, e)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, func() error {
		resp, err := http.Get("http://" + a.http + "/metrics")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(b, []byte(`mcp_sanitize_policy_info{role="shadow",version="v3"} 1`)) {
			return fmt.Errorf("no shadow in metrics")
		}
		return nil
	})
	for i := 0; i < 4; i++ {
		if r := reply(); !strings.Contains(r, "[v2] fetch:") {
			t.Fatalf("reply with a shadow: %s", r)
		}
	}
	testnats.CheckFor(t, 10*time.Second, 100*time.Millisecond, func() error {
		code, out, e := runPolicyTest(t, "shadow-report", "--nats-url", url, "--since", "1h")
		if code != exitOK || !strings.Contains(out, "shadow v3 vs active v2: 4 messages, 4 would change") {
			return fmt.Errorf("shadow-report: %d %s %s", code, out, e)
		}
		if !regexp.MustCompile(`github-pat\s+0\s+4\s+0\s+4`).MatchString(out) {
			return fmt.Errorf("shadow-report rules: %s", out)
		}
		return nil
	})
	if code, _, e := runPolicyTest(t, "unshadow", "--nats-url", url); code != exitOK {
		t.Fatalf("unshadow: %d %s", code, e)
	}
	if code, _, e := runPolicyTest(t, "rollback", "--nats-url", url, "--trust", trust); code != exitOK {
		t.Fatalf("rollback: %d %s", code, e)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, metricsShow("v1"))
	if !strings.Contains(logs.String(), `"msg":"policy in use"`) {
		t.Fatalf("swap not logged: %s", logs.String())
	}
}

// TestPolicyFleetOfThree runs three serve processes' worth of workers (each
// its own connection, HTTP endpoint and watch) on one NATS server: a push
// shows on every /metrics within two seconds, and a refused push on none.
func TestPolicyFleetOfThree(t *testing.T) {
	url := catalogServer(t)
	dir := t.TempDir()
	key, trust := filepath.Join(dir, "ops.key"), filepath.Join(dir, "trust.json")
	if code, _, e := runPolicyTest(t, "keygen", "--id", "ops-1", "--key", key, "--trust", trust); code != exitOK {
		t.Fatalf("keygen: %s", e)
	}
	envelope := func(version string) string {
		pf := filepath.Join(dir, version+".yaml")
		os.WriteFile(pf, []byte("version: "+version+"\n"), 0o644)
		ef := pf + ".json"
		if code, _, e := runPolicyTest(t, "sign", "--key", key, "--out", ef, pf); code != exitOK {
			t.Fatalf("sign: %s", e)
		}
		return ef
	}
	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, envelope("fleet.1")); code != exitOK {
		t.Fatalf("push: %s", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var https []string
	exits := make([]chan int, 3)
	for i := range exits {
		var logs stateLog
		readyc := make(chan string, 1)
		exits[i] = make(chan int, 1)
		go func() {
			exits[i] <- runServeEnv(ctx, []string{"--nats-url", url, "--http-addr", "127.0.0.1:0", "--policy-trust", trust},
				envOf(nil), &logs, func(_, h string) { readyc <- h })
		}()
		select {
		case h := <-readyc:
			https = append(https, h)
		case code := <-exits[i]:
			t.Fatalf("serve %d exited with %d: %s", i, code, logs.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("serve %d not ready", i)
		}
	}
	defer func() {
		cancel()
		for _, e := range exits {
			<-e
		}
	}()
	all := func(version string) func() error {
		return func() error {
			for i, h := range https {
				resp, err := http.Get("http://" + h + "/metrics")
				if err != nil {
					return err
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Contains(b, []byte(`mcp_sanitize_policy_info{role="active",version="`+version+`"} 1`)) {
					return fmt.Errorf("worker %d does not report %s", i, version)
				}
			}
			return nil
		}
	}
	testnats.CheckFor(t, 5*time.Second, 20*time.Millisecond, all("fleet.1"))
	start := time.Now()
	if code, _, e := runPolicyTest(t, "push", "--nats-url", url, "--trust", trust, envelope("fleet.2")); code != exitOK {
		t.Fatalf("push: %s", e)
	}
	testnats.CheckFor(t, rolloutDeadline, 10*time.Millisecond, all("fleet.2"))
	t.Logf("three workers report fleet.2 %v after the push", time.Since(start).Round(time.Millisecond))

	// An envelope written into the bucket behind push's back, unsigned:
	// every worker refuses it and keeps fleet.2.
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(context.Background(), wire.BucketPolicies)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(envelope("fleet.3"))
	var env map[string]any
	json.Unmarshal(b, &env)
	delete(env, "signature")
	unsigned, _ := json.Marshal(env)
	if _, err := kv.Put(context.Background(), "active", unsigned); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 5*time.Second, 20*time.Millisecond, func() error {
		for i, h := range https {
			resp, err := http.Get("http://" + h + "/metrics")
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(b, []byte(`mcp_sanitize_policy_refused_total{reason="unsigned"} 1`)) {
				return fmt.Errorf("worker %d has not refused it", i)
			}
		}
		return nil
	})
	if err := all("fleet.2")(); err != nil {
		t.Fatal(err)
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
