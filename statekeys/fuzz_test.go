package statekeys_test

import (
	"context"
	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"strings"
	"testing"
)

// FuzzOpen feeds arbitrary strings to token parsing and opening. Nothing may
// panic, and nothing but the exact tokens that were sealed may open: any
// other string that authenticates would be a forgery (or a non-canonical
// encoding accepted as the same token).
func FuzzOpen(f *testing.F) {
	fx := newFixture(f)
	valid := map[string]bool{}
	for _, req := range []SealRequest{baseSeal(), {Identity: alice, Operation: opA}} {
		s := fx.seal(f, req)
		valid[s.RequestState] = true
		f.Add(s.RequestState)
		f.Add(s.RequestState[:len(s.RequestState)-1])
		f.Add(strings.Replace(s.RequestState, "mrs1.", "mrs2.", 1))
		f.Add(s.RequestState + "A")
		f.Add(s.RequestState[:40] + "\n" + s.RequestState[40:])
		f.Add(s.RequestState + "\r\n")
	}
	for _, s := range []string{"", "mrs1.", "mrs1.k.", "mrs1.k.AAAA", "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0", "mrs1..", "mrs1.k1." + strings.Repeat("_", 100)} {
		f.Add(s)
	}
	ring := fx.ring.Ring()
	f.Fuzz(func(t *testing.T, token string) {
		p, _, r := OpenToken(ring, token, DefaultMaxTokenBytes)
		if r == ReasonNone {
			if !valid[token] {
				t.Fatalf("forged token opened: flow %s", p.Fid)
			}
			return
		}
		if p != nil {
			t.Fatal("payload returned with a failure reason")
		}
		// The full path gives the one public error and never panics.
		_, ev, err := fx.keeper.Verify(context.Background(), baseVerify(token))
		if err == nil || err.Error() != "request state rejected" || ev.Decision != DecisionReject {
			t.Fatalf("Verify: %v %+v", err, ev)
		}
	})
}
