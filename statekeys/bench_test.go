package statekeys_test

import (
	"context"
	"encoding/json"
	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"testing"
)

// BenchmarkSeal and BenchmarkVerify measure seals and verifications per
// second (ns/op inverted) for a state-only result and for one with a form
// elicitation (policy check, schema compile cache, response validation).
// SetBytes is the token size, so MB/s is token bytes sealed or opened.
func BenchmarkSeal(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			f := newFixture(b)
			s := f.seal(b, bc.seal)
			b.SetBytes(int64(len(s.RequestState)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := f.keeper.Seal(context.Background(), bc.seal); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			f := newFixture(b)
			tokens := make([]string, b.N)
			for i := range tokens {
				tokens[i] = f.seal(b, bc.seal).RequestState
			}
			b.SetBytes(int64(len(tokens[0])))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := bc.verify
				req.RequestState = tokens[i]
				if _, _, err := f.keeper.Verify(context.Background(), req); err != nil {
					b.Fatal(ReasonOf(err))
				}
			}
		})
	}
}

type benchCase struct {
	name   string
	seal   SealRequest
	verify VerifyRequest
}

func benchCases() []benchCase {
	stateOnly := SealRequest{Identity: alice, Operation: opA}
	form := baseSeal()
	return []benchCase{
		{"state-only", stateOnly, VerifyRequest{Identity: alice, Operation: opA, InputResponses: json.RawMessage(`{}`)}},
		{"form", form, baseVerify("")},
	}
}
