package scanners

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// examplesDigest hashes every rule's id with its true- and false-positive
// examples, in order, each list and string length-prefixed.
func examplesDigest(rs []ruleDef) (digest string, examples int) {
	h := sha256.New()
	var n [8]byte
	putLen := func(l int) {
		binary.BigEndian.PutUint64(n[:], uint64(l))
		h.Write(n[:])
	}
	for _, r := range rs {
		putLen(len(r.id))
		h.Write([]byte(r.id))
		tp, fp := r.exampleLists()
		for _, l := range [][]string{tp, fp} {
			putLen(len(l))
			for _, s := range l {
				putLen(len(s))
				h.Write([]byte(s))
			}
			examples += len(l)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), examples
}

// TestExamplesDigest holds the built-in rules' examples (and so what each
// is expected to do: a tp is found, an fp is not) to the set they had when
// they were still built with the rules (commit 54e944b): making them lazy
// (ruleDef.examples) changed how they are declared, not which they are.
// TestRuleExamples runs them all. A change of the examples on purpose
// updates want here.
func TestExamplesDigest(t *testing.T) {
	const (
		wantRules    = 375
		wantExamples = 2791
		want         = "a3d9860e4d77a671e06e893e12f2830759693033350c75aa7d4d6af10d44c5fe"
	)
	rs := builtinRules()
	got, n := examplesDigest(rs)
	if len(rs) != wantRules || n != wantExamples || got != want {
		t.Fatalf("%d rules, %d examples, digest %s; want %d, %d, %s", len(rs), n, got, wantRules, wantExamples, want)
	}
	// Each call builds the lists afresh: a caller appending to them must
	// not change the next caller's.
	for _, r := range rs {
		tp, fp := r.exampleLists()
		for i := range tp {
			tp[i] = "changed"
		}
		for i := range fp {
			fp[i] = "changed"
		}
	}
	if again, _ := examplesDigest(rs); again != want {
		t.Fatalf("digest after changing returned lists %s, want %s", again, want)
	}
}
