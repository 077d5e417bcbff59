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
	if interleave {
		// collect, then check run4 separately below.
		buf := make([]acRec, hitBufLen)
		for i := 0; i < len(text); {
			st, n, hits := a.collect(s, text[i:], buf)
			for _, h := range hits {
				for _, k := range a.outputs[a.stateIndex(h.state)] {
					out = append(out, acHit{int(k), i + int(h.pos) + 1})
				}
			}
			s, i = st, i+n
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].end != out[j].end {
				return out[i].end < out[j].end
			}
			return out[i].kw < out[j].kw
		})
		if r4 := acHits4(a, text); !reflect.DeepEqual(r4, out) {
			return r4
		}
		return out
	}
	for i := 0; i < len(text); {
		var n int
		s, n = a.run(s, text[i:])
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

func acHits4(a *automaton, text []byte) []acHit {
	var out []acHit
	s := uint32(0)
	for i := 0; i < len(text); {
		var n int
		s, n = a.run4(s, text[i:])
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
			t.Fatalf("keywords %q: run4/collect found %d hits, naive %d", kws, len(got), len(want))
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
	for _, n := range []int{interleaveMin, interleaveMin + 3, 4096, 4099, 3*laneMax + 5, 5 * laneMax} {
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

// TestAutomatonTableInvariant checks what step relies on to skip bounds checks.
func TestAutomatonTableInvariant(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{Custom: []CustomRule{{ID: "x", Keywords: []string{"zz~q"}, Pattern: "zz~q"}}})
	for _, a := range []*automaton{c.ac} {
		for i, s := range a.trans {
			if s%a.stride != 0 || int(s+a.stride) > len(a.trans) {
				t.Fatalf("trans[%d] = %d: not a premultiplied state", i, s)
			}
		}
		for b, k := range a.classes {
			if uint32(k) >= a.stride {
				t.Fatalf("class of %d = %d >= stride %d", b, k, a.stride)
			}
		}
		for i := range a.outputs {
			if a.stateIndex(uint32(i)*a.stride) != i {
				t.Fatalf("stateIndex(%d*stride) = %d", i, a.stateIndex(uint32(i)*a.stride))
			}
		}
	}
}
