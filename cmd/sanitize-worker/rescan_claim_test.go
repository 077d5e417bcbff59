package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// TestRescanClaimedBodies: an archived input whose body was claimed (a
// claim of worker.ArchiveBodiesBucket, as serve --archive writes it) is
// re-scanned like any other; one whose copy is gone is counted failed.
func TestRescanClaimedBodies(t *testing.T) {
	srv := testnats.RunServer(t, testnats.Options{})
	url := srv.ClientURL()
	_, js := testnats.Connect(t, url)
	ctx := context.Background()
	if _, err := worker.EnsureArchiveStream(ctx, js, worker.ArchiveConfig{MaxAge: time.Hour, MaxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	bodies, err := js.ObjectStore(ctx, worker.ArchiveBodiesBucket)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(i int, object string) {
		m := nats.NewMsg("mcp.archive.acme.files.tool-result")
		m.Header.Set(wire.HeaderKind, "tool-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(worker.HeaderArchivePolicy, "default")
		m.Data = []byte(fmt.Sprintf(`{"content":[{"type":"text","text":"row %d"}]}`, i))
		if object != "" {
			m.Header.Set(wire.HeaderClaim, object)
			m.Header.Set(wire.HeaderClaimBucket, worker.ArchiveBodiesBucket)
			m.Data = []byte(`{"mcpClaim":{}}`)
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(`{"content":[{"type":"text","text":"key acme_%032x %s"}]}`, 12345, bytes.Repeat([]byte("x"), 300<<10))
	if _, err := bodies.PutBytes(ctx, "copy-1", []byte(text)); err != nil {
		t.Fatal(err)
	}
	publish(0, "")
	publish(1, "copy-1")
	publish(2, "copy-gone")
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "acme.yaml")
	os.WriteFile(policyFile, []byte(rescanTestPolicy), 0o644)
	var out, errb bytes.Buffer
	code := runRescanEnv(ctx, []string{"--stream", wire.StreamArchive, "--job", "claims", "--policy", policyFile, "--nats-url", url,
		"--workers", "2", "--progress", "none", "--report", filepath.Join(dir, "r")}, envOf(nil), &out, &errb)
	if code != exitOK {
		t.Fatalf("rescan: %d %s", code, errb.String())
	}
	var rep struct {
		Records, Failed int64
		Rules           []struct {
			Rule  string
			Added int64
			Refs  []struct{ Seq uint64 }
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "r", "report.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rep.Rules {
		if r.Rule == "acme-key" {
			found = r.Added == 1 && len(r.Refs) == 1 && r.Refs[0].Seq == 2
		}
	}
	if rep.Records != 3 || rep.Failed != 1 || !found {
		t.Fatalf("report: %s", b)
	}
}
