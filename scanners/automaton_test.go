package scanners

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

type acHit struct{ kw, end int }

// acHits walks the whole text and lists every (keyword, end) reported.
func acHits(a *automaton, text []byte, interleave bool) []acHit {
	var out []acHit
	s := uint32(0)
	for i := 0; i < len(text); {
		var n int
		if interleave {
			s, n = a.run4(s, text[i:])
		} else {
			s, n = a.run(s, text[i:])
		}
		i += n
		if s >= a.matchMin {
			for _, k := range a.outputs[a.stateIndex(s)] {
				out = append(out, acHit{int(k), i})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].end != out[j].end {
			return out[i].end < out[j].end
		}
		return out[i].kw < out[j].kw
	})
	return out
}

func naiveHits(keywords []string, text []byte) []acHit {
	var out []acHit
	lb := make([]byte, len(text))
	for i, c := range text {
		lb[i] = lowerASCII(c) // not strings.ToLower: it rewrites invalid UTF-8
	}
	lt := string(lb)
	for e := 1; e <= len(lt); e++ {
		for k, kw := range keywords {
			if len(kw) <= e && lt[e-len(kw):e] == strings.ToLower(kw) {
				out = append(out, acHit{k, e})
			}
		}
	}
	return out
}

func TestAutomatonMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alpha = "abAB<-_ \xc3\xa9"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha)-2)] // keywords: ASCII only
		}
		return string(b)
	}
	for iter := 0; iter < 300; iter++ {
		var kws []string
		seen := map[string]bool{}
		for len(kws) < 1+rng.IntN(12) {
			w := word(1 + rng.IntN(6))
			if !seen[strings.ToLower(w)] {
				seen[strings.ToLower(w)] = true
				kws = append(kws, w)
			}
		}
		a, err := newAutomaton(kws)
		if err != nil {
			t.Fatal(err)
		}
		text := make([]byte, rng.IntN(5000))
		for i := range text {
			text[i] = alpha[rng.IntN(len(alpha))]
		}
		want := naiveHits(kws, text)
		if got := acHits(a, text, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("keywords %q text %q: run found %v, naive %v", kws, text, got, want)
		}
		if got := acHits(a, text, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("keywords %q: run4 found %d hits, naive %d", kws, len(got), len(want))
		}
	}
}

// TestAutomatonInterleaveBoundaries plants keywords across every lane
// boundary of run4.
func TestAutomatonInterleaveBoundaries(t *testing.T) {
	kws := []string{"-----begin", "sk-", "<system", "x"}
	a, err := newAutomaton(kws)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{interleaveMin, interleaveMin + 3, 4096, 4099} {
		for pos := 0; pos+10 <= n; pos += 1 + pos/64 {
			text := []byte(strings.Repeat(".", n))
			copy(text[pos:], "-----BEGIN")
			want := naiveHits(kws, text)
			if got := acHits(a, text, true); !reflect.DeepEqual(got, want) {
				t.Fatalf("n=%d pos=%d: got %v want %v", n, pos, got, want)
			}
		}
	}
}

func TestAutomatonErrors(t *testing.T) {
	for _, kws := range [][]string{{""}, {strings.Repeat("a", maxKeywordLen+1)}, {"caf\xc3\xa9"}} {
		if _, err := newAutomaton(kws); err == nil {
			t.Errorf("newAutomaton(%q): no error", kws)
		}
	}
}

func TestCatalogAutomatonSize(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	a := c.ac
	t.Logf("keywords: %d, states: %d, classes: %d, table: %d KiB, longest keyword: %d",
		len(a.kwLen), len(a.outputs), a.stride, len(a.trans)*4/1024, a.maxKw)
	if c.maxBack > CustomWindow {
		t.Errorf("maxBack %d", c.maxBack)
	}
	for _, r := range builtinRules() {
		for _, f := range r.forms {
			if f.ahead+f.back+maxKeywordLen+CustomWindow > MaxHold {
				t.Errorf("rule %s: ahead %d does not fit MaxHold", r.id, f.ahead)
			}
		}
	}
	_ = fmt.Sprint()
}
