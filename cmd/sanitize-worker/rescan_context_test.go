package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// rescanGuardPolicy guards resources and prompts, and has the new rule.
const rescanGuardPolicy = `version: guard.2
resources:
  schemes: [{name: https, kind: https, hosts: [docs.example.com]}]
prompts:
  prompts:
    summarize_ticket:
      requiredScopes: [tickets:read]
      arguments:
        ticket_id: {required: true, pattern: "TICKET-[0-9]{5,12}"}
rules:
  custom:
    - id: acme-key
      keywords: [acme_]
      pattern: "acme_[0-9a-f]{32}"
`

// TestRescanRequestContext: archived resource and prompt results carry the
// guards' request context (principal, scopes, request params, as serve
// --archive keeps them); rescan --stream runs the guards with it. Against
// a baseline without guards, the policy's guards pass exactly the records
// whose context allows them (the outcome unchanged) and refuse the others
// (fail closed: no context, a host the policy does not name, a missing
// scope, a resource without --allow-resource): those are the records
// whose outcome changed (rejected against sanitized; both policies have the
// same rules).
func TestRescanRequestContext(t *testing.T) {
	srv := testnats.RunServer(t, testnats.Options{})
	url := srv.ClientURL()
	_, js := testnats.Connect(t, url)
	ctx := context.Background()
	if _, err := worker.EnsureArchiveStream(ctx, js, worker.ArchiveConfig{MaxAge: time.Hour, MaxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	key := func(i int) string { return fmt.Sprintf("acme_%032x", i*7919) }
	type rec struct {
		kind, principal, scopes, params, body string
		passes                                bool // with --allow-resource
	}
	resource := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"https://docs.example.com/a.html","text":"page %s"}]}}`, key(i))
	}
	prompt := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"summarize %s"}}]}}`, key(i))
	}
	recs := []rec{
		{"resource-result", "alice", "", `{"uri":"https://DOCS.example.com/a.html"}`, resource(0), true},
		{"resource-result", "", "", "", resource(1), false},                                               // no context: refused
		{"resource-result", "alice", "", `{"uri":"https://evil.example.com/a.html"}`, resource(2), false}, // not the policy's host
		{"prompt-result", "bob", "tickets:read", `{"name":"summarize_ticket","arguments":{"ticket_id":"TICKET-12345"}}`, prompt(3), true},
		{"prompt-result", "bob", "", `{"name":"summarize_ticket","arguments":{"ticket_id":"TICKET-12345"}}`, prompt(4), false}, // scope missing
	}
	for _, r := range recs {
		m := nats.NewMsg("mcp.archive.acme.docs." + r.kind)
		m.Header.Set(wire.HeaderKind, r.kind)
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Header.Set(worker.HeaderArchivePolicy, "default")
		for k, v := range map[string]string{wire.HeaderPrincipal: r.principal, wire.HeaderScopes: r.scopes, wire.HeaderRequestParams: r.params} {
			if v != "" {
				m.Header.Set(k, v)
			}
		}
		m.Data = []byte(r.body)
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "guard.yaml")
	os.WriteFile(policyFile, []byte(rescanGuardPolicy), 0o600)
	run := func(job string, extra ...string) (outcomeChanged int64, added []uint64) {
		t.Helper()
		var out, errb bytes.Buffer
		report := filepath.Join(dir, job)
		args := append([]string{"--stream", wire.StreamArchive, "--job", job, "--policy", policyFile, "--baseline", policyFile + ".base.yaml", "--nats-url", url,
			"--workers", "2", "--progress", "none", "--report", report}, extra...)
		if code := runRescanEnv(ctx, args, envOf(nil), &out, &errb); code != exitOK {
			t.Fatalf("rescan %s: %d %s", job, code, errb.String())
		}
		var rep struct {
			Records, Failed, OutcomeChanged int64
			Rules                           []struct {
				Rule  string
				Added int64
				Refs  []struct{ Seq uint64 }
			}
		}
		b, err := os.ReadFile(filepath.Join(report, "report.json"))
		if err != nil || json.Unmarshal(b, &rep) != nil || rep.Records != int64(len(recs)) || rep.Failed != 0 {
			t.Fatalf("report %s: %v %s", job, err, b)
		}
		for _, r := range rep.Rules {
			if r.Rule == "acme-key" {
				for _, ref := range r.Refs {
					added = append(added, ref.Seq)
				}
			}
		}
		slices.Sort(added)
		return rep.OutcomeChanged, added
	}
	// The baseline: the same rules, no guards.
	os.WriteFile(policyFile+".base.yaml", []byte("version: plain.1\n"+rescanGuardPolicy[strings.Index(rescanGuardPolicy, "rules:"):]), 0o600)
	refused := int64(0)
	for _, r := range recs {
		if !r.passes {
			refused++
		}
	}
	if oc, added := run("allowed", "--allow-resource", "https://docs.example.com/"); oc != refused || len(added) != 0 {
		t.Fatalf("with the archived context: %d outcomes changed (want %d), acme-key in %v", oc, refused, added)
	}
	// Without --allow-resource every resource is refused as well.
	if oc, added := run("no-allow"); oc != 4 || len(added) != 0 {
		t.Fatalf("without --allow-resource: %d outcomes changed (want 4), acme-key in %v", oc, added)
	}
}
