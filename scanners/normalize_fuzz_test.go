package scanners

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzAlphabet holds runes that interact under removal and NFKC; the fuzzer
// also reads its bytes as indexes into it, to reach long runs of
// non-starters that random UTF-8 rarely holds.
var fuzzAlphabet = []string{
	"a", "e", " ", "\n", "\x1b", "\u0301", "\u0323", "\u0344", "\u0316", "\u0f73",
	"\u200b", "\u200d", "\u034f", "\ufe0f", "\u00ad", "\uac00", "\u1100", "\u1161", "\u11a8",
	"\u3131", "\u314f", "\uff76", "\uff9e", "\uff21", "\u00e9", "\u0915", "\u094d", "\u093c",
	"\ufdfa", "\U0001F468", "\u0439", "\u0306",
	// terminal escape sequences (normalize_escape.go)
	"[", "]", "1;31", "m", "?", " ", "(", "\x07", "\\", "\u009b", "\u009c", "\u009d", "\x1b[", "\x1b]8;;",
	// confusables and what decides their folding (normalize_confusable.go)
	"\u0455", "\u0430", "\u0399", "\u03bf", "\u0436", "t", "S", "1", "\u0301", "\u00e9",
	// escaped characters (normalize_literal.go)
	`\`, `\u`, `\u200b`, `\uff47`, `\u00e9`, `\\`, "u", "200b", "FF4", `\u001b[`,
}

// FuzzNormalizer checks that splitting a string at random rune boundaries
// changes neither the output nor the stats, that the output is valid UTF-8
// holding no removed rune, and that it equals the reference
// (strip, norm.NFKC, take out inserted U+034F).
func FuzzNormalizer(f *testing.F) {
	for i, s := range trickyInputs() {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		checkNormalizerSplits(t, strings.ToValidUTF8(string(data), "\ufffd"), seed)
		var b strings.Builder
		for _, c := range data {
			b.WriteString(fuzzAlphabet[int(c)%len(fuzzAlphabet)])
		}
		checkNormalizerSplits(t, b.String(), seed)
		checkStripOnly(t, b.String(), seed)
		checkEdits(t, b.String(), seed)
	})
}

// checkStripOnly checks a Normalizer with DisableNFKC against the removal
// reference, whole and split at random rune boundaries.
func checkStripOnly(t *testing.T, s string, seed uint64) {
	t.Helper()
	want := refFold(stripAll(refUnescape(s)))
	rng := rand.New(rand.NewPCG(seed, 7))
	n := Normalizer{DisableNFKC: true}
	for _, whole := range []bool{true, false} {
		n.Reset()
		var got []byte
		for rest := s; len(rest) > 0; {
			k := len(rest)
			if !whole {
				k = rng.IntN(min(len(rest), 40) + 1)
				for k < len(rest) && !utf8.RuneStart(rest[k]) {
					k++
				}
			}
			got = n.Append(got, []byte(rest[:k]), k == len(rest))
			rest = rest[k:]
		}
		if string(got) != want {
			t.Fatalf("DisableNFKC Append(%+q) = %+q, reference %+q (whole %v)", s, got, want, whole)
		}
	}
}

// checkNormalizerSplits runs the checks of FuzzNormalizer on s.
func checkNormalizerSplits(t *testing.T, s string, seed uint64) {
	t.Helper()
	var n Normalizer
	want := normalizeOnce(&n, s)
	wantStats := n.Stats()
	if !utf8.ValidString(want) {
		t.Fatalf("output %+q is not valid UTF-8", want)
	}
	for _, r := range want {
		if c, ok := stripClass(r); ok && !isJoiner(r) {
			t.Fatalf("output %+q contains %U of removed class %v", want, r, c)
		}
	}
	if ref := refNormalize(s); want != ref {
		t.Fatalf("Append(%+q) = %+q, reference %+q", s, want, ref)
	}

	rng := rand.New(rand.NewPCG(seed, uint64(len(s))))
	n.Reset()
	var got []byte
	for rest := s; ; {
		k := 0
		if len(rest) > 0 {
			k = rng.IntN(min(len(rest), 80) + 1)
		}
		for k < len(rest) && !utf8.RuneStart(rest[k]) {
			k++
		}
		final := k == len(rest) && rng.IntN(2) == 0
		got = n.Append(got, []byte(rest[:k]), final)
		if n.carryLen() > MaxNormCarry {
			t.Fatalf("carry %d > MaxNormCarry", n.carryLen())
		}
		rest = rest[k:]
		// Unchanged means the output so far is the input's prefix: the
		// pipeline then writes the input's own escaped bytes.
		if consumed := s[:len(s)-len(rest)]; !n.Changed() && !strings.HasPrefix(consumed, string(got)) {
			t.Fatalf("Changed() false, but output %+q is not a prefix of input %+q", got, consumed)
		}
		if final {
			break
		}
	}
	if string(got) != want {
		t.Fatalf("split Append(%+q) = %+q, want %+q", s, got, want)
	}
	if st := n.Stats(); st != wantStats {
		t.Fatalf("split Stats(%+q) = %+v, want %+v", s, st, wantStats)
	}
	if !n.Changed() && want != s {
		t.Fatalf("Changed() false, but Append(%+q) = %+q", s, want)
	}
}
