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
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestEvidenceChainOnNATS runs a worker with the evidence chain on both
// paths, stops it (the last checkpoint), and verifies MCP_EVIDENCE as
// stored; then it deletes one record and alters another in the stream's
// copy and the verifier names exactly those.
func TestEvidenceChainOnNATS(t *testing.T) {
	srv := serveTestServer(t)
	nc, js := serveConnect(t, srv.ClientURL())
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	sealer, err := evchain.NewSealer("w1.test", "ev-1", key)
	if err != nil {
		t.Fatal(err)
	}
	svcNC, _ := serveConnect(t, srv.ClientURL())
	svc, err := NewService(svcNC, testEngine(t), WithConsumer(fastConsumer(3*time.Second)), WithStreams(fastStreams()),
		WithMessageTimeout(2*time.Second), WithFetch(16, 1<<20, 200*time.Millisecond), WithConsumerStatsEvery(0),
		WithEvidenceChain(sealer, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := 0; i < n; i++ {
		m := nats.NewMsg("mcp.sanitize.tool-result")
		m.Header.Set(wire.HeaderTenant, "acme")
		m.Data = testMessage(i)
		if _, err := nc.RequestMsg(m, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, "mcp.raw.acme.files.tool-result", testMessage(i)); err != nil {
			t.Fatal(err)
		}
		if i == n/2 {
			time.Sleep(150 * time.Millisecond) // let a periodic checkpoint fall mid-way
		}
	}
	checkFor(t, 10*time.Second, func() error {
		if got := svc.Processed(); got < 2*n {
			return fmt.Errorf("%d processed", got)
		}
		return nil
	})
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := svc.Stop(sctx); err != nil {
		t.Fatal(err)
	}

	keys := func(id string) (ed25519.PublicKey, bool) {
		return key.Public().(ed25519.PublicKey), id == "ev-1"
	}
	verifyStream := func() *evchain.Report {
		v := evchain.NewVerifier(evchain.Options{Keys: keys})
		err := ReadStream(ctx, js, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
			v.Add(fmt.Sprintf("stream seq %d", seq), data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v.Finish()
	}
	r := verifyStream()
	if !r.OK() || r.Records != 2*n || r.Verified < 2 || len(r.Chains) != 1 || r.Chains[0].Last != 2*n || r.Chains[0].Vouched != 2*n {
		t.Fatalf("intact stream: %+v", r)
	}

	// Remove the record of chain sequence 17 from the stream.
	st, err := js.Stream(ctx, wire.StreamEvidence)
	if err != nil {
		t.Fatal(err)
	}
	var del uint64
	ReadStream(ctx, js, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
		if bytes.Contains(data, []byte(`"seq":17,"prev"`)) {
			del = seq
		}
		return nil
	})
	if err := st.DeleteMsg(ctx, del); err != nil {
		t.Fatal(err)
	}
	r = verifyStream()
	if len(r.Problems) != 1 || r.Problems[0].Kind != evchain.KindMissing || r.Problems[0].Seq != 17 {
		t.Fatalf("after removing seq 17: %+v", r.Problems)
	}
	// Republish record 33 with one count changed (an edit of the stream's
	// content by whoever can write to it) and drop the original.
	var orig []byte
	var origSeq uint64
	ReadStream(ctx, js, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
		if bytes.Contains(data, []byte(`"seq":33,"prev"`)) {
			orig, origSeq = bytes.Clone(data), seq
		}
		return nil
	})
	st.DeleteMsg(ctx, origSeq)
	forged := bytes.Replace(orig, []byte(`"outcome":"sanitized"`), []byte(`"outcome":"clean"`), 1)
	if bytes.Equal(forged, orig) {
		t.Fatal("record 33 has no outcome to change")
	}
	pa, err := js.Publish(ctx, "mcp.evidence.acme", forged)
	if err != nil {
		t.Fatal(err)
	}
	r = verifyStream()
	want := fmt.Sprintf("stream seq %d", pa.Sequence)
	var altered, missing int
	for _, p := range r.Problems {
		switch {
		case p.Kind == evchain.KindAltered && p.Seq == 33 && p.Ref == want:
			altered++
		case p.Kind == evchain.KindMissing && p.Seq == 17:
			missing++
		default:
			t.Errorf("unexpected problem %+v", p)
		}
	}
	if altered != 1 || missing != 1 {
		t.Fatalf("problems %+v", r.Problems)
	}
}
