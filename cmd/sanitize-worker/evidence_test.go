package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

func runEvidenceTest(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEvidenceEnv(context.Background(), args, envOf(nil), &out, &errb)
	return code, out.String(), errb.String()
}

// TestEvidenceVerifyServe runs serve with --evidence-key, stops it, and
// verifies the evidence stream and a file copy of it; then a removed
// record (stream) and an altered one (file) are named by exit code 3.
func TestEvidenceVerifyServe(t *testing.T) {
	url := catalogServer(t)
	dir := t.TempDir()
	key, trust := filepath.Join(dir, "ev.key"), filepath.Join(dir, "ev-trust.json")
	if code, _, e := runPolicyTest(t, "keygen", "--id", "ev-1", "--key", key, "--trust", trust); code != exitOK {
		t.Fatalf("keygen: %s", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var logs stateLog
	readyc := make(chan struct{}, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--nats-url", url, "--http-addr", "", "--evidence-key", key, "--checkpoint-every", "200ms"},
			envOf(nil), &logs, func(n, h string) { readyc <- struct{}{} })
	}()
	select {
	case <-readyc:
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
	for i := 0; i < 30; i++ {
		req := nats.NewMsg("mcp.sanitize.tool-result")
		req.Header.Set(wire.HeaderTenant, "acme")
		req.Data = []byte(`{"content":[{"type":"text","text":"GITHUB_TOKEN=` + serveTestSecret + `"}]}`)
		if _, err := nc.RequestMsg(req, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("serve exit %d: %s", code, logs.String())
	}
	code, out, e := runEvidenceTest(t, "verify", "--stream", wire.StreamEvidence, "--nats-url", url, "--trust", trust)
	if code != exitOK || !strings.Contains(out, "records 30 (unchained 0)") || !strings.HasSuffix(out, "OK\n") {
		t.Fatalf("verify stream: %d %s %s", code, out, e)
	}

	// A file copy, as evidence export writes it.
	js, _ := jetstream.New(nc)
	var seqOf5 uint64
	worker.ReadStream(context.Background(), js, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
		if bytes.Contains(data, []byte(`"seq":5,"prev"`)) {
			seqOf5 = seq
		}
		return nil
	})
	code, exported, e := runEvidenceTest(t, "export", "--stream", wire.StreamEvidence, "--nats-url", url)
	if code != exitOK || !strings.Contains(e, "records exported") {
		t.Fatalf("export: %d %s", code, e)
	}
	lines := bytes.Split(bytes.TrimSuffix([]byte(exported), []byte("\n")), []byte("\n"))
	file := filepath.Join(dir, "evidence.jsonl")
	os.WriteFile(file, []byte(exported), 0o600)
	if code, out, e := runEvidenceTest(t, "verify", "--in", file, "--trust", trust); code != exitOK {
		t.Fatalf("verify file: %d %s %s", code, out, e)
	}
	altered := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"seq":12,"prev"`)) {
			lines[i] = bytes.Replace(l, []byte(`"outcome":"sanitized"`), []byte(`"outcome":"clean"`), 1)
			altered = i + 1
		}
	}
	os.WriteFile(file, append(bytes.Join(lines, []byte("\n")), '\n'), 0o600)
	code, out, _ = runEvidenceTest(t, "verify", "--in", file, "--trust", trust)
	if code != exitBroken || strings.Count(out, "BROKEN") != 1 || !strings.Contains(out, fmt.Sprintf("BROKEN altered: line %d chain", altered)) || !strings.Contains(out, " seq 12:") {
		t.Fatalf("altered file: %d %s", code, out)
	}

	st, _ := js.Stream(context.Background(), wire.StreamEvidence)
	if err := st.DeleteMsg(context.Background(), seqOf5); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runEvidenceTest(t, "verify", "--stream", wire.StreamEvidence, "--nats-url", url, "--trust", trust)
	if code != exitBroken || strings.Count(out, "BROKEN") != 1 || !strings.Contains(out, "BROKEN missing") || !strings.Contains(out, "sequence 5 missing between stream seq") {
		t.Fatalf("removed record: %d %s", code, out)
	}
	if strings.Contains(out, serveTestSecret) || strings.Contains(logs.String(), serveTestSecret) {
		t.Fatal("a secret in the output")
	}
}
