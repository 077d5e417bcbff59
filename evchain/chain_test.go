package evchain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

func keys(id string) (ed25519.PublicKey, bool) {
	if id == "k1" {
		return testKey.Public().(ed25519.PublicKey), true
	}
	return nil, false
}

// history seals n evidence-like records and writes a checkpoint after
// every cpEvery records (and one at the end); it returns the lines.
func history(t testing.TB, n, cpEvery int, void map[int]bool) [][]byte {
	t.Helper()
	s, err := NewSealer("w1.20261207T120000Z", "k1", testKey)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for i := 1; i <= n; i++ {
		rec := fmt.Appendf(nil, `{"version":"1","kind":"tool-result","tenant":"acme","policyVersion":"v1","rules":{"github-pat":%d},"path":"inline"}`, i%3)
		b, seq, err := s.Seal(nil, rec)
		if err != nil || seq != uint64(i) {
			t.Fatalf("seal %d: %v", i, err)
		}
		if void[i] {
			s.Void(seq) // sealed, never stored
		} else {
			lines = append(lines, b)
		}
		if i%cpEvery == 0 || i == n {
			if cp := s.Checkpoint(time.Unix(int64(i), 0)); cp != nil {
				lines = append(lines, cp)
			}
		}
	}
	return lines
}

func verify(lines [][]byte, o Options) *Report {
	if o.Keys == nil {
		o.Keys = keys
	}
	v := NewVerifier(o)
	for i, l := range lines {
		v.Add(fmt.Sprintf("line %d", i+1), l)
	}
	return v.Finish()
}

// refOf returns the reference verify gives the line holding seq.
func refOf(lines [][]byte, seq int) string {
	needle := fmt.Sprintf(`"seq":%d,"prev"`, seq)
	for i, l := range lines {
		if bytes.Contains(l, []byte(needle)) {
			return fmt.Sprintf("line %d", i+1)
		}
	}
	return ""
}

func TestVerifyIntact(t *testing.T) {
	lines := history(t, 500, 100, nil)
	r := verify(lines, Options{})
	if !r.OK() || r.Records != 500 || r.Verified != 5 || len(r.Chains) != 1 || r.Chains[0].Last != 500 || r.Chains[0].Vouched != 500 {
		t.Fatalf("intact history: %+v", r)
	}
	// Records published concurrently reach the stream out of their order.
	shuf := append([][]byte(nil), lines...)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range shuf {
		j := i + rng.IntN(min(8, len(shuf)-i))
		shuf[i], shuf[j] = shuf[j], shuf[i]
	}
	if r := verify(shuf, Options{}); !r.OK() {
		t.Fatalf("shuffled history: %+v", r.Problems)
	}
	// A range from the middle, ending before the present.
	if r := verify(lines[200:300], Options{Ranged: true, NoTail: true}); !r.OK() {
		t.Fatalf("range: %+v", r.Problems)
	}
}

func TestVerifyFindsTheRecord(t *testing.T) {
	base := history(t, 300, 50, nil)
	copyOf := func() [][]byte {
		c := make([][]byte, len(base))
		for i := range base {
			c[i] = bytes.Clone(base[i])
		}
		return c
	}
	seqAt := func(lines [][]byte, seq int) int {
		for i, l := range lines {
			if bytes.Contains(l, fmt.Appendf(nil, `"seq":%d,"prev"`, seq)) {
				return i
			}
		}
		t.Fatalf("seq %d not found", seq)
		return -1
	}
	for _, tc := range []struct {
		name   string
		change func(l [][]byte) [][]byte
		kind   string
		seq    uint64
		ref    func(l [][]byte) string // "" when the problem names no record line
		detail string
	}{
		{"a count changed", func(l [][]byte) [][]byte {
			i := seqAt(l, 120)
			l[i] = bytes.Replace(l[i], []byte(`"github-pat":0`), []byte(`"github-pat":5`), 1)
			return l
		}, KindAltered, 120, func(l [][]byte) string { return refOf(l, 120) }, "do not match its hash"},
		{"a record changed and its hash recomputed", func(l [][]byte) [][]byte {
			i := seqAt(l, 77)
			b := bytes.Replace(l[i], []byte(`"tenant":"acme"`), []byte(`"tenant":"acmf"`), 1)
			body := append(bytes.Clone(b[:len(b)-hashTail]), '}', '}')
			h := sha256.Sum256(body)
			l[i] = append(append(b[:len(b)-hashTail], hashMember...), hex.EncodeToString(h[:])+`"}}`...)
			return l
		}, KindRelinked, 78, func(l [][]byte) string { return refOf(l, 78) }, "sequence 77"},
		{"a record removed", func(l [][]byte) [][]byte {
			i := seqAt(l, 200)
			return append(l[:i], l[i+1:]...)
		}, KindMissing, 200, nil, "sequence 200 missing between"},
		{"three records removed", func(l [][]byte) [][]byte {
			i := seqAt(l, 10)
			return append(l[:i], l[i+3:]...)
		}, KindMissing, 10, nil, "sequences 10 to 12 (3 records)"},
		{"the tail removed up to the last checkpoint", func(l [][]byte) [][]byte {
			i := seqAt(l, 290)
			return append(l[:i], l[len(l)-1]) // keep the final checkpoint
		}, KindTruncated, 290, nil, "sequences 290 to 300"},
		{"a checkpoint forged", func(l [][]byte) [][]byte {
			for i, b := range l {
				if bytes.HasPrefix(b, []byte(`{"checkpoint":`)) {
					l[i] = bytes.Replace(b, []byte(`"seq":50,`), []byte(`"seq":49,`), 1)
					break
				}
			}
			return l
		}, KindBadCheckpoint, 0, func(l [][]byte) string { return refOf(l, 50) + "+1" }, "signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := tc.change(copyOf())
			r := verify(lines, Options{})
			if len(r.Problems) != 1 {
				t.Fatalf("want exactly one problem, got %+v", r.Problems)
			}
			p := r.Problems[0]
			if p.Kind != tc.kind || p.Seq != tc.seq || !strings.Contains(p.Detail, tc.detail) {
				t.Fatalf("got %+v, want %s at %d (%q)", p, tc.kind, tc.seq, tc.detail)
			}
			if tc.ref != nil {
				want := tc.ref(lines)
				if strings.HasSuffix(want, "+1") { // the line after
					var n int
					fmt.Sscanf(want, "line %d", &n)
					want = fmt.Sprintf("line %d", n+1)
				}
				if p.Ref != want {
					t.Fatalf("ref %q, want %q", p.Ref, want)
				}
			}
		})
	}
}

// TestVerifyVoid: a record sealed but not stored (a failed publish, a
// duplicate dropped by the stream) is declared void by the next
// checkpoint and is no problem; without the checkpoint it is missing.
func TestVerifyVoid(t *testing.T) {
	lines := history(t, 100, 25, map[int]bool{40: true, 41: true, 99: true})
	if r := verify(lines, Options{}); !r.OK() || r.Chains[0].Void != 3 {
		t.Fatalf("void records: %+v", r)
	}
	var noCP [][]byte
	for _, l := range lines {
		if !bytes.HasPrefix(l, []byte(`{"checkpoint":`)) {
			noCP = append(noCP, l)
		}
	}
	r := verify(noCP, Options{})
	if len(r.Problems) != 2 || r.Problems[0].Seq != 40 || r.Problems[1].Seq != 99 {
		t.Fatalf("without checkpoints: %+v", r.Problems)
	}
}

// TestVerifyWindow: with a window smaller than a gap's distance the
// verifier still names the missing record, in bounded memory.
func TestVerifyWindow(t *testing.T) {
	lines := history(t, 2000, 100, nil)
	i := 0
	for ; !bytes.Contains(lines[i], []byte(`"seq":500,"prev"`)); i++ {
	}
	lines = append(lines[:i], lines[i+1:]...)
	r := verify(lines, Options{Window: 64})
	if len(r.Problems) != 1 || r.Problems[0].Kind != KindMissing || r.Problems[0].Seq != 500 {
		t.Fatalf("%+v", r.Problems)
	}
}

func TestSealUnchained(t *testing.T) {
	s, _ := NewSealer("c", "", nil)
	if _, _, err := s.Seal(nil, []byte(`[1]`)); err != ErrRecord {
		t.Fatal("sealed an array")
	}
	b, _, err := s.Seal(nil, []byte(`{}`))
	if err != nil || !bytes.HasPrefix(b, []byte(`{"chain":{"id":"c","seq":1,`)) {
		t.Fatalf("%s %v", b, err)
	}
	if s.Checkpoint(time.Now()) != nil {
		t.Fatal("a checkpoint without a key")
	}
	r := verify([][]byte{b, []byte(`{"version":"1"}`)}, Options{})
	if !r.OK() || r.Unchained != 1 || r.Records != 2 {
		t.Fatalf("%+v", r)
	}
}

func FuzzVerify(f *testing.F) {
	lines := history(f, 20, 5, nil)
	for _, l := range lines[:4] {
		f.Add(l)
	}
	f.Add([]byte(`{"chain":{"id":"x","seq":1,"prev":"sha256:00","hash":"sha256:00"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		v := NewVerifier(Options{Keys: keys, Window: 4})
		for i, l := range lines[:10] {
			v.Add(fmt.Sprint(i), l)
		}
		v.Add("fuzz", line)
		for i, l := range lines[10:] {
			v.Add(fmt.Sprint(i+10), l)
		}
		r := v.Finish()
		// The intact chain stays whole: a fuzzed line can only add
		// problems about itself, or about a chain of its own.
		for _, p := range r.Problems {
			if (p.Kind == KindMissing || p.Kind == KindTruncated) && p.Chain == "w1.20261207T120000Z" &&
				!bytes.Contains(line, []byte("w1.20261207T120000Z")) {
				t.Fatalf("an added line made records of the intact chain missing: %+v", p)
			}
		}
	})
}

// TestVerifyUnverifiedTail: the records after the last checkpoint are
// reported as the unverified tail, with their count, whether the cut
// removed some of them or none; a cut before the last checkpoint is a
// problem instead.
func TestVerifyUnverifiedTail(t *testing.T) {
	s, err := NewSealer("w1.tail", "k1", testKey)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for i := 1; i <= 130; i++ {
		b, _, err := s.Seal(nil, fmt.Appendf(nil, `{"n":%d}`, i))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
		if i == 100 {
			if got := s.Unvouched(); got != 100 {
				t.Fatalf("unvouched before the checkpoint: %d", got)
			}
			lines = append(lines, s.Checkpoint(time.Unix(1, 0)))
			if got := s.Unvouched(); got != 0 {
				t.Fatalf("unvouched after the checkpoint: %d", got)
			}
		}
	}
	if got := s.Unvouched(); got != 30 {
		t.Fatalf("unvouched: %d", got)
	}
	for _, tc := range []struct {
		name  string
		lines [][]byte
		tail  uint64
		ok    bool
	}{
		{"whole", lines, 30, true},
		{"tail cut after the checkpoint", lines[:len(lines)-12], 18, true},                                // undetectable: only the count shrinks
		{"cut before the checkpoint", append(append([][]byte(nil), lines[:95]...), lines[100]), 0, false}, // truncated
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := verify(tc.lines, Options{})
			if r.OK() != tc.ok || r.UnverifiedTail != tc.tail || len(r.Chains) != 1 || r.Chains[0].UnverifiedTail != tc.tail {
				t.Fatalf("ok %v, unverified tail %d (want %v, %d): %+v", r.OK(), r.UnverifiedTail, tc.ok, tc.tail, r.Problems)
			}
		})
	}
	// Without a checkpoint every sequence is in the tail; with NoTail none.
	if r := verify(lines[:50], Options{}); r.UnverifiedTail != 50 {
		t.Fatalf("no checkpoint: tail %d", r.UnverifiedTail)
	}
	if r := verify(lines, Options{NoTail: true}); r.UnverifiedTail != 0 {
		t.Fatalf("NoTail: tail %d", r.UnverifiedTail)
	}
}
