package scanners

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// applyEdits puts each Edit's Orig in the place of the output it stands for.
func applyEdits(t testing.TB, out []byte, edits []Edit) string {
	t.Helper()
	var b strings.Builder
	pos := int64(0)
	for _, e := range edits {
		if e.Lo < pos || e.Hi <= e.Lo || e.Hi > int64(len(out)) {
			t.Fatalf("edit [%d,%d) out of order or range (pos %d, output %d bytes)", e.Lo, e.Hi, pos, len(out))
		}
		b.Write(out[pos:e.Lo])
		b.Write(e.Orig)
		pos = e.Hi
	}
	b.Write(out[pos:])
	return b.String()
}

// normalizeEdits normalizes s in calls of random size (whole when rng is
// nil), trimming the Edits as a writer would after every call, and returns
// the output and every Edit seen.
func normalizeEdits(t testing.TB, n *Normalizer, s string, rng *rand.Rand) ([]byte, []Edit) {
	t.Helper()
	n.RecordEdits = true
	n.Reset()
	var out []byte
	var all []Edit
	for rest := s; ; {
		k := len(rest)
		if rng != nil {
			k = rng.IntN(min(len(rest), 40) + 1)
			for k < len(rest) && !utf8.RuneStart(rest[k]) {
				k++
			}
		}
		final := k == len(rest)
		out = n.Append(out, []byte(rest[:k]), final)
		for _, e := range n.Edits() {
			if e.Hi > int64(len(out)) {
				t.Fatalf("edit [%d,%d) reported before its output (%d bytes)", e.Lo, e.Hi, len(out))
			}
			if len(all) == 0 || e.Lo >= all[len(all)-1].Hi {
				all = append(all, Edit{Lo: e.Lo, Hi: e.Hi, Orig: append([]byte(nil), e.Orig...)})
			}
		}
		n.TrimEdits(int64(len(out)))
		rest = rest[k:]
		if final {
			break
		}
	}
	if len(n.Edits()) != 0 {
		t.Fatalf("edits left after the final Append and trim")
	}
	return out, all
}

// checkEdits: the output with the Edits undone is the input without its
// removed runes (and, NFKC and folding aside, nothing else), however s is
// split; recording changes nothing of the output.
func checkEdits(t *testing.T, s string, seed uint64) {
	t.Helper()
	var plain Normalizer
	want := normalizeOnce(&plain, s)
	kept := stripAll(refUnescape(s))
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, r := range []*rand.Rand{nil, rng, rng} {
		var n Normalizer
		out, edits := normalizeEdits(t, &n, s, r)
		if string(out) != want {
			t.Fatalf("RecordEdits changed the output of %+q: %+q, want %+q", s, out, want)
		}
		if got := applyEdits(t, out, edits); got != kept {
			t.Fatalf("%+q: output %+q with edits %+v undone = %+q, want %+q", s, out, edits, got, kept)
		}
	}
}

func TestNormalizerEdits(t *testing.T) {
	ins := append(trickyInputs(),
		"x²-résumé.txt", "「こんにちは」，世界！", "ﬁle ﬂow", "ｇｈｐ_ａｂｃ",
		"p\u0430ssword \u0455\u0443\u0455tem \u0455\u0301", "ℌ\u0430llo", "\u0455"+strings.Repeat("\u0301", 40),
		strings.Repeat("\u0430", 40)+"x", "\uff21\u0430b",
	)
	for _, tc := range joinerCases {
		ins = append(ins, tc.in)
	}
	for i, s := range ins {
		checkEdits(t, s, uint64(i))
	}
}

func TestNormalizerEditsUnits(t *testing.T) {
	var n Normalizer
	out, edits := normalizeEdits(t, &n, "x²-ﬁ ｇ а \u0430b", nil)
	if string(out) != "x2-fi g а ab" {
		t.Fatalf("output %+q", out)
	}
	var got []string
	for _, e := range edits {
		got = append(got, string(out[e.Lo:e.Hi])+"="+string(e.Orig))
	}
	// The lone Cyrillic а is a Russian word and kept; the one before b is folded.
	if want := "2=² fi=ﬁ g=ｇ a=а"; strings.Join(got, " ") != want {
		t.Errorf("edits %q, want %q", strings.Join(got, " "), want)
	}
}
