package toolcat

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
)

// TestPinsRace: workers on their own connections race to pin two
// definitions of one tool: exactly one pins, and every verdict after that
// follows its pin. Pin keys never show in the catalog's list.
func TestPinsRace(t *testing.T) {
	srv := testnats.RunServer(t, testnats.Options{})
	ctx := ctxT(t)
	var cats []*Catalog
	for range 4 {
		_, js := testnats.Connect(t, srv.ClientURL())
		c, err := Open(ctx, js, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cats = append(cats, c)
	}
	var wg sync.WaitGroup
	type res struct{ digest, verdict string }
	out := make(chan res, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := fmt.Sprintf("sha256:%d", i%2)
			v, _, err := cats[i%len(cats)].Pins().Pin(ctx, "srv", "tool.x", d, []byte(`{"name":"tool.x"}`))
			if err != nil {
				t.Error(err)
			}
			out <- res{d, v}
		}()
	}
	wg.Wait()
	close(out)
	first, winner := 0, ""
	var all []res
	for r := range out {
		all = append(all, r)
		if r.verdict == PinFirst {
			first++
			winner = r.digest
		}
	}
	if first != 1 {
		t.Fatalf("%d first pins, want 1: %v", first, all)
	}
	for _, r := range all {
		switch {
		case r.verdict == PinFirst:
		case r.digest == winner && r.verdict != PinMatch, r.digest != winner && r.verdict != PinChanged:
			t.Fatalf("verdict %s for %s, pin %s", r.verdict, r.digest, winner)
		}
	}
	rec, err := cats[0].Pins().Get(ctx, "srv", "tool.x")
	if err != nil || rec.Digest != winner || rec.Candidate == nil || rec.Candidate.Digest == winner {
		t.Fatalf("record %+v %v", rec, err)
	}
	if _, err := cats[0].Put(ctx, "srv", []byte(`{"tools":[{"name":"other","inputSchema":{"type":"object"}}]}`)); err != nil {
		t.Fatal(err)
	}
	names, err := cats[0].List(ctx, "srv")
	if err != nil || len(names) != 1 || names[0] != "other" {
		t.Fatalf("catalog list %v %v", names, err)
	}
	if _, err := cats[0].Pins().Get(ctx, "srv", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent pin: %v", err)
	}
}
