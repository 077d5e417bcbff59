package worker

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestShadowChained: shadow records are links of the worker's evidence
// chain, checkpoints come by count (the interval is an hour here), the
// records after the last checkpoint are reported as the unverified tail
// until the last checkpoint at stop, and a removed shadow record is
// named.
func TestShadowChained(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	kv := policyBucket(t, js)
	ops := policyKey("ops-1", 1)
	store := PolicyStore{KV: kv, Trust: policyTrust(t, ops)}
	ctx := context.Background()
	if _, err := store.Push(ctx, signPolicy(t, ops, "v1"), false); err != nil {
		t.Fatal(err)
	}
	candidate, _, err := policyset.Sign(ops, []byte("version: v2\nlabel: {disabled: true}\n"), "", policyNow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Push(ctx, candidate, true); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, kv, store.Trust, nil)
	checkFor(t, 5*time.Second, func() error {
		if s := w.Shadow(); s == nil || s.Version != "v2" {
			return fmt.Errorf("no shadow yet")
		}
		return nil
	})
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))
	sealer, err := evchain.NewSealer("w1.shadow", "ev-1", key)
	if err != nil {
		t.Fatal(err)
	}
	const every = 10
	svcNC, _ := serveConnect(t, srv.ClientURL())
	svc, err := NewService(svcNC, testEngine(t), WithStreams(fastStreams()), WithDurable(false), WithMessageTimeout(2*time.Second),
		WithConsumerStatsEvery(0), WithPolicySource(w), WithEvidenceChain(sealer, time.Hour), WithCheckpointRecords(every))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 25 // 25 evidence and 25 shadow records
	for i := 0; i < n; i++ {
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Data = testMessage(i)
		if _, err := nc.RequestMsg(m, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(id string) (ed25519.PublicKey, bool) {
		return key.Public().(ed25519.PublicKey), id == "ev-1"
	}
	verifyStream := func(skip uint64) *evchain.Report {
		v := evchain.NewVerifier(evchain.Options{Keys: keys})
		err := ReadStream(ctx, js, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
			if seq != skip {
				v.Add(fmt.Sprintf("stream seq %d", seq), data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v.Finish()
	}
	var r *evchain.Report
	checkFor(t, 10*time.Second, func() error {
		r = verifyStream(0)
		// A checkpoint is due whenever every records are not vouched
		// for: the tail ends below every.
		if r.Records != 2*n || r.UnverifiedTail >= every {
			return fmt.Errorf("%d records, %d checkpoints, unverified tail %d", r.Records, r.Checkpoints, r.UnverifiedTail)
		}
		return nil
	})
	// Every record, shadow or not, is a link; what the checkpoints by
	// count did not reach yet is the unverified tail. A checkpoint
	// vouches for the head when the loop publishes it, so there are at
	// least n*2/(2*every) of them, however the loop was scheduled.
	if !r.OK() || r.Unchained != 0 || len(r.Chains) != 1 || r.Chains[0].Records != 2*n || r.Checkpoints < n/every ||
		r.UnverifiedTail != r.Chains[0].Last-r.Chains[0].Vouched {
		t.Fatalf("before stop: %+v", r)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := svc.Stop(sctx); err != nil {
		t.Fatal(err)
	}
	r = verifyStream(0)
	if !r.OK() || r.UnverifiedTail != 0 || r.Chains[0].Vouched != 2*n {
		t.Fatalf("after stop: %+v", r)
	}
	// A shadow record removed from the stream is missing.
	var shadowSeq, chainSeq uint64
	ReadStreamSubject(ctx, js, wire.StreamEvidence, ShadowEvidencePrefix+".>", time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
		if shadowSeq == 0 && seq > 10 {
			shadowSeq = seq
			fmt.Sscanf(string(data[bytes.LastIndex(data, []byte(`"seq":`))+6:]), "%d", &chainSeq)
		}
		return nil
	})
	if shadowSeq == 0 {
		t.Fatal("no shadow record")
	}
	r = verifyStream(shadowSeq)
	if r.OK() || len(r.Problems) != 1 || r.Problems[0].Kind != evchain.KindMissing || r.Problems[0].Seq != chainSeq {
		t.Fatalf("shadow record %d (chain seq %d) removed: %+v", shadowSeq, chainSeq, r.Problems)
	}
}
