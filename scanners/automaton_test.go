package scanners

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unsafe"
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
	for _, n := range []int{collectLanesMin - 1, collectLanesMin, collectLanesMin + 3, 300, interleaveMin, interleaveMin + 3, 4096, 4099, 3*laneMax + 5, 5 * laneMax} {
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
	t.Logf("keywords: %d, states: %d, table: %d KiB, longest keyword: %d",
		len(a.kwLen), len(a.outputs), len(a.trans)*2/1024, a.maxKw)
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
		states := len(a.outputs)
		if len(a.trans) != states<<8 || len(a.depth) != states || states > maxStates {
			t.Fatalf("table of %d entries for %d states", len(a.trans), states)
		}
		for i, s := range a.trans {
			if int(s) >= states {
				t.Fatalf("trans[%d] = %d: no such state", i, s)
			}
		}
		// Upper and lower case letters share their targets.
		for st := 0; st < states; st++ {
			for c := 'a'; c <= 'z'; c++ {
				if a.trans[st<<8|int(c)] != a.trans[st<<8|int(c-'a'+'A')] {
					t.Fatalf("state %d: %c and %c differ", st, c, c-'a'+'A')
				}
			}
		}
	}
}

// TestAutomatonTooManyStates checks that a keyword set whose trie needs
// more states than a uint16 table can name is refused, not truncated.
func TestAutomatonTooManyStates(t *testing.T) {
	var kws []string
	for i := 0; i < maxStates/(maxKeywordLen-2)+10; i++ {
		b := make([]byte, maxKeywordLen)
		for j := range b {
			// Distinct from the first byte on: no shared prefixes.
			b[j] = "abcdefghijklmnopqrstuvwxyz0123456789"[(i*7+j*(i%5+1)+i/36)%36]
		}
		b[0], b[1] = "abcdefghijklmnopqrstuvwxyz0123456789"[i%36], "abcdefghijklmnopqrstuvwxyz0123456789"[(i/36)%36]
		kws = append(kws, string(b))
	}
	if _, err := newAutomaton(kws); err == nil {
		t.Fatalf("%d keywords of %d bytes: no error", len(kws), maxKeywordLen)
	}
	if _, err := newAutomaton(kws[:len(kws)/2]); err != nil {
		t.Fatalf("half of them: %v", err)
	}
}

// TestCollectLongKeywordAtLaneMin plants a keyword of the longest length
// across every lane boundary of the shortest block collect splits: the
// warm-up of each lane is then one byte shorter than the lane.
func TestCollectLongKeywordAtLaneMin(t *testing.T) {
	long := strings.Repeat("k", maxKeywordLen-1) + "z"
	kws := []string{long, "kz"}
	a, err := newAutomaton(kws)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{collectLanesMin, collectLanesMin + 1, collectLanesMin + 7} {
		for pos := 0; pos+len(long) <= n; pos++ {
			text := []byte(strings.Repeat(".", n))
			copy(text[pos:], long)
			want := naiveHits(kws, text)
			if got := acHits(a, text, true); !reflect.DeepEqual(got, want) {
				t.Fatalf("n=%d pos=%d: got %v want %v", n, pos, got, want)
			}
		}
	}
}

// TestWalk8MatchesGo runs the assembly kernel (where there is one) and its
// Go specification over random text from random starting points, with the
// catalog's automaton and a small one whose keywords hit often, and
// compares where they stop and the states they leave.
func TestWalk8MatchesGo(t *testing.T) {
	if !haveWalk8 {
		t.Skip("no assembly kernel on this architecture: walk8 is walk8Go")
	}
	small, err := newAutomaton([]string{"ab", "b-", "<s", "aaa"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const alpha = "abAB<-_s token=ghp_ password:\n\"\xc3\xa9\x00\xff"
	for _, a := range []*automaton{newTestCatalog(t, CatalogOptions{}).ac, small} {
		tp := unsafe.SliceData(a.trans)
		for iter := 0; iter < 300; iter++ {
			q := 1 + rng.IntN(300)
			p := make([]byte, 8*q)
			for i := range p {
				p[i] = alpha[rng.IntN(len(alpha))]
			}
			var st, stGo [8]uint32
			for l := range st {
				st[l] = uint32(rng.IntN(len(a.outputs)))
			}
			stGo = st
			for j := rng.IntN(q); j < q; j++ {
				got := walk8(tp, &p[0], q, j, &st, a.matchMin)
				want := walk8Go(tp, &p[0], q, j, &stGo, a.matchMin)
				if got != want || st != stGo {
					t.Fatalf("q=%d from %d: walk8 stopped at %d with %v, walk8Go at %d with %v", q, j, got, st, want, stGo)
				}
				j = got
			}
		}
	}
}

// TestCollect8Boundaries plants the longest keyword, and a short one, across
// every lane boundary of the eight-lane walk, at the sizes where it starts
// and where its lanes reach laneMax8.
func TestCollect8Boundaries(t *testing.T) {
	long := strings.Repeat("k", maxKeywordLen-1) + "z"
	kws := []string{long, "kz", "-----begin"}
	a, err := newAutomaton(kws)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{collect8Min - 1, collect8Min, collect8Min + 7, 8*laneMax8 - 1, 8 * laneMax8, 8*laneMax8 + 9} {
		q := min(n/8, laneMax8)
		var positions []int
		for l := 0; l <= 8; l++ {
			for d := -len(long) - 1; d <= 2; d++ {
				if p := l*q + d; p >= 0 && p+len(long) <= n {
					positions = append(positions, p)
				}
			}
		}
		for _, pos := range positions {
			for _, kw := range []string{long, "-----BEGIN"} {
				text := []byte(strings.Repeat(".", n))
				copy(text[pos:], kw)
				want := naiveHits(kws, text)
				if got := acHits(a, text, true); !reflect.DeepEqual(got, want) {
					t.Fatalf("n=%d pos=%d %q: got %v want %v", n, pos, kw[:4], got, want)
				}
			}
		}
	}
}

// TestWarm8MatchesGo compares warm8 (the kernel where there is one) with
// warm8Go from random states over random text.
func TestWarm8MatchesGo(t *testing.T) {
	a := newTestCatalog(t, CatalogOptions{}).ac
	tp := unsafe.SliceData(a.trans)
	rng := rand.New(rand.NewPCG(13, 14))
	const alpha = "abAB<-_s token=ghp_ password:\n\"\xc3\xa9\x00\xff"
	for iter := 0; iter < 2000; iter++ {
		back := rng.IntN(64)
		q := back + 1 + rng.IntN(200)
		p := make([]byte, 8*q)
		for i := range p {
			p[i] = alpha[rng.IntN(len(alpha))]
		}
		var st, stGo [8]uint32
		for l := range st {
			st[l] = uint32(rng.IntN(len(a.outputs)))
		}
		stGo = st
		warm8(tp, &p[0], q, back, &st)
		warm8Go(tp, &p[0], q, back, &stGo)
		if st != stGo {
			t.Fatalf("q=%d back=%d: warm8 %v, warm8Go %v", q, back, st, stGo)
		}
	}
}
