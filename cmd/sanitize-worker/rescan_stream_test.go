package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// TestRescanStream archives 100,000 messages (20,000 under -race, 10,000
// with -short), a few
// hundred of them with a key of a new format, and re-scans them as a job:
// the first run is stopped part way (its messages in flight are neither
// answered nor lost), then two processes finish the job over the same
// consumer. The report counts every message once and finds exactly the
// planted ones.
func TestRescanStream(t *testing.T) {
	n := 100000
	switch {
	case testing.Short():
		n = 10000
	case raceBuild:
		n = 20000
	}
	srv := testnats.RunServer(t, testnats.Options{})
	url := srv.ClientURL()
	_, js := testnats.Connect(t, url)
	ctx := context.Background()
	if _, err := worker.EnsureArchiveStream(ctx, js, worker.ArchiveConfig{MaxAge: time.Hour, MaxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	var planted []uint64
	futs := make([]jetstream.PubAckFuture, 0, n)
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("row %d: nothing to see", i)
		if i%331 == 17 {
			text = fmt.Sprintf("row %d: key acme_%032x", i, i*104729)
		} else if i%7 == 0 {
			text = fmt.Sprintf("row %d: GITHUB_TOKEN=%s", i, serveTestSecret)
		}
		m := nats.NewMsg(fmt.Sprintf("mcp.archive.tenant-%d.files.tool-result", i%4))
		m.Header.Set(wire.HeaderKind, "tool-result")
		m.Header.Set(wire.HeaderTenant, fmt.Sprintf("tenant-%d", i%4))
		m.Header.Set(wire.HeaderTool, "read")
		m.Header.Set(worker.HeaderArchivePolicy, "default")
		m.Data = []byte(fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text))
		f, err := js.PublishMsgAsync(m)
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, f)
		if len(futs) == cap(futs) || i%2000 == 1999 {
			select {
			case <-js.PublishAsyncComplete():
			case <-time.After(60 * time.Second):
				t.Fatal("archive publishes not acknowledged")
			}
		}
	}
	<-js.PublishAsyncComplete()
	for i, f := range futs {
		select {
		case a := <-f.Ok():
			if i%331 == 17 {
				planted = append(planted, a.Sequence)
			}
		case err := <-f.Err():
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "acme.yaml")
	os.WriteFile(policyFile, []byte(rescanTestPolicy), 0o644)
	args := func(report string) []string {
		return []string{"--stream", wire.StreamArchive, "--job", "acme2", "--policy", policyFile, "--nats-url", url,
			"--workers", "4", "--ack-wait", "1s", "--progress", "none", "--report", report}
	}

	// The first run stops once a third of the results are in.
	stopCtx, stop := context.WithCancel(ctx)
	go func() {
		for stopCtx.Err() == nil {
			if st, err := js.Stream(ctx, wire.StreamRescan); err == nil {
				if info, err := st.Info(ctx); err == nil && info.State.Msgs >= uint64(n/3) {
					stop()
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var out, errb bytes.Buffer
	if code := runRescanEnv(stopCtx, args(filepath.Join(dir, "r0")), envOf(nil), &out, &errb); code != exitFailure {
		t.Fatalf("the stopped run: %d %s %s", code, out.String(), errb.String())
	}
	stop()

	// The same job with another policy is refused: results never mix.
	other := filepath.Join(dir, "other.yaml")
	os.WriteFile(other, []byte("version: other\n"), 0o644)
	otherArgs := args(filepath.Join(dir, "rx"))
	otherArgs[5] = other
	if code := runRescanEnv(ctx, otherArgs, envOf(nil), &out, &errb); code != exitFailure || !bytes.Contains(errb.Bytes(), []byte("other policies")) {
		t.Fatalf("a job run with another policy: %d %s", code, errb.String())
	}

	// Two processes finish it over the same consumer.
	var wg sync.WaitGroup
	codes := make([]int, 2)
	outs := make([]bytes.Buffer, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var e bytes.Buffer
			codes[i] = runRescanEnv(ctx, args(filepath.Join(dir, fmt.Sprintf("r%d", i+1))), envOf(nil), &outs[i], &e)
			if codes[i] != exitOK {
				t.Errorf("run %d: %d %s", i+1, codes[i], e.String())
			}
		}()
	}
	wg.Wait()
	for i := range codes {
		var rep struct {
			Records, Failed int64
			Rules           []struct {
				Rule                             string
				Policy, Baseline, Added, Removed int64
				Refs                             []struct{ Seq uint64 }
				RefsNotListed                    int64
			}
			Tenants []struct{ Tenant string }
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("r%d", i+1), "report.json"))
		if err != nil || json.Unmarshal(b, &rep) != nil {
			t.Fatalf("report of run %d: %v (%s)", i+1, err, outs[i].String())
		}
		if rep.Records != int64(n) || rep.Failed != 0 || len(rep.Tenants) != 4 {
			t.Fatalf("run %d: %d records (want %d), %d failed, %d tenants", i+1, rep.Records, n, rep.Failed, len(rep.Tenants))
		}
		found := false
		for _, r := range rep.Rules {
			switch r.Rule {
			case "acme-key":
				found = true
				var seqs []uint64
				for _, ref := range r.Refs {
					seqs = append(seqs, ref.Seq)
				}
				slices.Sort(seqs)
				if r.Added != int64(len(planted)) || r.RefsNotListed != 0 || !slices.Equal(seqs, planted) {
					t.Fatalf("acme-key: %d added, planted %d", r.Added, len(planted))
				}
			case "github-pat":
				if r.Added != 0 || r.Policy != r.Baseline || r.Policy == 0 {
					t.Fatalf("github-pat %+v", r)
				}
			}
		}
		if !found {
			t.Fatal("no acme-key findings")
		}
		if bytes.Contains(b, []byte(serveTestSecret)) || bytes.Contains(b, []byte("acme_")) {
			t.Fatal("a secret in the report")
		}
	}
	t.Logf("%s%s", outs[0].String(), outs[1].String())
}

// TestRescanStreamCatalog: archived tool results get the outputSchema of
// the tool catalog, as serve gives them (a result missing a required
// member is rejected under both policies), and not with --catalog=false.
func TestRescanStreamCatalog(t *testing.T) {
	srv := testnats.RunServer(t, testnats.Options{})
	url := srv.ClientURL()
	_, js := testnats.Connect(t, url)
	ctx := context.Background()
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"count","inputSchema":{"type":"object"},` +
		`"outputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}]}}`
	if code, _, e := runToolsTest(t, nil, list, "put", "--server", "files", "--nats-url", url); code != exitOK {
		t.Fatalf("tools put: %s", e)
	}
	if _, err := worker.EnsureArchiveStream(ctx, js, worker.ArchiveConfig{MaxAge: time.Hour, MaxBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg("mcp.archive.acme.files.tool-result")
	m.Header.Set(wire.HeaderKind, "tool-result")
	m.Header.Set(wire.HeaderServer, "files")
	m.Header.Set(wire.HeaderTool, "count")
	m.Data = []byte(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"x":1}}`)
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(policyFile, []byte("version: p1\n"), 0o644)
	for _, tc := range []struct {
		job, catalog, outcome string
	}{{"with", "true", `"outcome":"rejected"`}, {"without", "false", `"outcome":"clean"`}} {
		var out, errb bytes.Buffer
		code := runRescanEnv(ctx, []string{"--stream", wire.StreamArchive, "--job", tc.job, "--policy", policyFile, "--nats-url", url,
			"--catalog=" + tc.catalog, "--progress", "none"}, envOf(nil), &out, &errb)
		if code != exitOK {
			t.Fatalf("%s: %d %s", tc.job, code, errb.String())
		}
		var res []byte
		worker.ReadStreamSubject(ctx, js, wire.StreamRescan, worker.RescanResultSubject(tc.job), time.Time{}, time.Time{}, func(_ uint64, _ time.Time, data []byte) error {
			res = bytes.Clone(data)
			return nil
		})
		if bytes.Count(res, []byte(tc.outcome)) != 2 {
			t.Fatalf("%s catalog: result %s", tc.job, res)
		}
	}
}
