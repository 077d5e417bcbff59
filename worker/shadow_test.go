package worker

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/rescan"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestShadowPolicy: a shadow policy changes no delivered output, its
// records reach MCP_EVIDENCE, and their comparison (what `policy
// shadow-report` prints) equals a re-scan of the same messages with the
// candidate alone against the active policy.
func TestShadowPolicy(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	kv := policyBucket(t, js)
	ops := policyKey("ops-1", 1)
	store := PolicyStore{KV: kv, Trust: policyTrust(t, ops)}
	ctx := context.Background()
	if _, err := store.Push(ctx, signPolicy(t, ops, "v1"), false); err != nil {
		t.Fatal(err)
	}
	candidate, sp, err := policyset.Sign(ops, []byte("version: v2\nlabel: {disabled: true}\nrules:\n  custom:\n    - {id: acme-key, keywords: [acme_], pattern: \"acme_[0-9a-f]{16}\"}\n"), "", policyNow)
	if err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, kv, store.Trust, nil)
	startService(t, nc, WithPolicySource(w))

	msg := func(i int) []byte {
		text := fmt.Sprintf("row %d", i)
		if i%3 == 0 {
			text += fmt.Sprintf(" key acme_%016x here", i*7919)
		}
		if i%5 == 0 {
			text += " GITHUB_TOKEN=" + testGitHubToken
		}
		return []byte(fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text))
	}
	const n = 30
	send := func(i int) []byte {
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTenant, fmt.Sprintf("t%d", i%2))
		m.Header.Set(wire.HeaderTool, "read")
		m.Data = msg(i)
		r, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r.Data
	}
	before := make([][]byte, n)
	for i := range before {
		before[i] = send(i)
	}
	if _, err := store.Push(ctx, candidate, true); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 5*time.Second, func() error {
		if s := w.Shadow(); s == nil || s.Version != "v2" {
			return fmt.Errorf("no shadow yet")
		}
		return nil
	})
	for i := 0; i < n; i++ {
		if got := send(i); !bytes.Equal(got, before[i]) {
			t.Fatalf("message %d: the shadow changed the delivered output:\n%s\n%s", i, got, before[i])
		}
	}
	// Durable messages are shadowed too.
	for i := 0; i < n; i++ {
		if _, err := js.Publish(ctx, fmt.Sprintf("mcp.raw.t%d.files.tool-result", i%2), msg(i)); err != nil {
			t.Fatal(err)
		}
	}

	cmp := rescan.NewComparison(rescan.Options{})
	checkFor(t, 10*time.Second, func() error {
		cmp = rescan.NewComparison(rescan.Options{})
		got := 0
		err := ReadStreamSubject(ctx, js, wire.StreamEvidence, ShadowEvidencePrefix+".>", time.Time{}, time.Time{}, func(seq uint64, at time.Time, data []byte) error {
			sh, ac, tenant, ok := SplitShadowRecord(data)
			if !ok {
				return fmt.Errorf("shadow record %d does not split", seq)
			}
			cmp.Add(seq, tenant, at, sh, ac)
			got++
			return nil
		})
		if err != nil {
			return err
		}
		if got != 2*n {
			return fmt.Errorf("%d shadow records", got)
		}
		return nil
	})
	rep := cmp.Report()

	// The candidate alone, against the active policy, over the same
	// messages twice (inline and durable).
	var in strings.Builder
	for k := 0; k < 2; k++ {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&in, `{"tenant":"t%d","tool":"read","result":%s}`+"\n", i%2, msg(i))
		}
	}
	active := w.Active().Engine
	cand, err := pipeline.NewEngine(sp.Policy)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rescan.Run(ctx, strings.NewReader(in.String()), cand, active, rescan.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts := func(r *rescan.Report) string {
		var b strings.Builder
		for _, rc := range r.Rules {
			fmt.Fprintf(&b, "%s p%d b%d +%d -%d; ", rc.Rule, rc.Policy, rc.Baseline, rc.Added, rc.Removed)
		}
		for _, tc := range r.Tenants {
			fmt.Fprintf(&b, "%s r%d c%d a%d; ", tc.Tenant, tc.Records, tc.Changed, tc.Added)
		}
		return b.String()
	}
	if counts(rep) != counts(want) || rep.Records != 2*n || rep.Changed != want.Changed {
		t.Fatalf("shadow report\n%s\nthe candidate alone\n%s", counts(rep), counts(want))
	}
	if !strings.Contains(counts(rep), "acme-key p20 b0 +20 -0") {
		t.Fatalf("the candidate's rule is not in the report: %s", counts(rep))
	}
	// Removing the shadow stops the records.
	if err := store.ClearShadow(ctx); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 5*time.Second, func() error {
		if w.Shadow() != nil {
			return fmt.Errorf("shadow still on")
		}
		return nil
	})
}
