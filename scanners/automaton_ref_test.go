package scanners

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestAutomatonBuildMatchesReference compares newAutomaton with the build
// it replaced (newAutomatonRef, kept here as written before: trie children
// in per-state slices sorted after the trie, a failure walk over them), on
// the keywords of the real catalog with every rule, with tags disabled,
// and on random keyword sets with shared prefixes, duplicates and upper
// case: the tables, outputs, depths and every other field must be equal.
func TestAutomatonBuildMatchesReference(t *testing.T) {
	check := func(name string, kws []string) {
		t.Helper()
		got, err1 := newAutomaton(kws)
		want, err2 := newAutomatonRef(kws)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("%s: errors differ: %v / %v", name, err1, err2)
		}
		if err1 != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the automaton differs from the reference build (%d keywords)", name, len(kws))
		}
	}
	for _, o := range []CatalogOptions{{}, {DisableTags: true}} {
		c := newTestCatalog(t, o)
		var kws []string
		seen := map[string]bool{}
		for _, r := range c.rules {
			for _, f := range r.forms {
				for _, k := range f.keywords {
					k = strings.ToLower(k)
					if !seen[k] {
						seen[k] = true
						kws = append(kws, k)
					}
				}
			}
		}
		if len(kws) < 500 {
			t.Fatalf("only %d catalog keywords", len(kws))
		}
		check(fmt.Sprintf("catalog %+v", o), kws)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 300; i++ {
		alphabet := "abcAB-_:"[:2+r.IntN(7)]
		n := 1 + r.IntN(40)
		kws := make([]string, n)
		for j := range kws {
			b := make([]byte, 1+r.IntN(8))
			for k := range b {
				b[k] = alphabet[r.IntN(len(alphabet))]
			}
			kws[j] = string(b)
			if j > 0 && r.IntN(5) == 0 {
				kws[j] = kws[r.IntN(j)] // a duplicate
			}
		}
		check(fmt.Sprintf("random set %d %q", i, kws), kws)
	}
	check("errors: empty keyword", []string{"ab", ""})
	check("errors: not ASCII", []string{"ab", "\xc3\xa9"})
	check("errors: too long", []string{strings.Repeat("a", maxKeywordLen+1)})
}

// newAutomatonRef is the build of newAutomaton before 2026-12-07, the
// reference of TestAutomatonBuildMatchesReference.
func newAutomatonRef(keywords []string) (*automaton, error) {
	a := &automaton{kwLen: make([]int, len(keywords))}
	// Byte classes.
	var used [256]bool
	for i, kw := range keywords {
		if len(kw) == 0 || len(kw) > maxKeywordLen {
			return nil, fmt.Errorf("scanners: keyword %d: length %d out of range [1,%d]", i, len(kw), maxKeywordLen)
		}
		for j := 0; j < len(kw); j++ {
			c := kw[j]
			if c >= 0x80 {
				return nil, fmt.Errorf("scanners: keyword %d: not ASCII", i)
			}
			used[lowerASCII(c)] = true
		}
		a.kwLen[i] = len(kw)
		if len(kw) > a.maxKw {
			a.maxKw = len(kw)
		}
	}
	n := uint32(1)
	for c := 0; c < 256; c++ {
		if used[c] {
			a.classes[c] = uint8(n)
			n++
		}
	}
	if n > 255 {
		return nil, fmt.Errorf("scanners: too many distinct keyword bytes")
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.classes[c] = a.classes[c+'a'-'A']
	}

	// Trie (build time only): the children of each state by class, and
	// those of the root also as a dense row, since most failure walks end
	// at the root.
	type edge struct {
		c uint32 // class
		t int32  // child
	}
	type node struct {
		kids  []edge // sorted by class before the breadth-first pass
		fail  int32
		depth int
		out   []int32
	}
	rootRow := make([]int32, n)
	for i := range rootRow {
		rootRow[i] = -1
	}
	// At most one state per keyword byte, plus the root: sized once, the
	// slice is not copied as it grows.
	total := 1
	for _, kw := range keywords {
		total += len(kw)
	}
	nodes := make([]node, 1, total)
	child := func(s int32, c uint32) int32 {
		if s == 0 {
			return rootRow[c]
		}
		for _, e := range nodes[s].kids {
			if e.c == c {
				return e.t
			}
		}
		return -1
	}
	for i, kw := range keywords {
		s := int32(0)
		for j := 0; j < len(kw); j++ {
			c := uint32(a.classes[kw[j]])
			t := child(s, c)
			if t < 0 {
				t = int32(len(nodes))
				nodes[s].kids = append(nodes[s].kids, edge{c, t})
				if s == 0 {
					rootRow[c] = t
				}
				nodes = append(nodes, node{depth: j + 1})
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, int32(i))
	}
	// Breadth-first, children in class order: failure links and inherited
	// outputs. The failure link of a child is found by walking the failure
	// chain of its parent.
	for i := range nodes {
		if k := nodes[i].kids; len(k) > 1 {
			sort.Slice(k, func(x, y int) bool { return k[x].c < k[y].c })
		}
	}
	queue := make([]int32, 0, len(nodes))
	for _, e := range nodes[0].kids {
		nodes[e.t].fail = 0
		queue = append(queue, e.t)
	}
	for qi := 0; qi < len(queue); qi++ {
		s := queue[qi]
		nodes[s].out = append(nodes[s].out, nodes[nodes[s].fail].out...)
		for _, e := range nodes[s].kids {
			c, t := e.c, e.t
			f := nodes[s].fail
			for f != 0 && child(f, c) < 0 {
				f = nodes[f].fail
			}
			if g := child(f, c); g >= 0 {
				nodes[t].fail = g
			} else {
				nodes[t].fail = 0
			}
			queue = append(queue, t)
		}
	}
	// Renumber: root first, states without output, then states with output.
	order := make([]int32, 0, len(nodes))
	order = append(order, 0)
	for _, s := range queue {
		if len(nodes[s].out) == 0 {
			order = append(order, s)
		}
	}
	firstMatch := len(order)
	for _, s := range queue {
		if len(nodes[s].out) != 0 {
			order = append(order, s)
		}
	}
	if len(nodes) > maxStates {
		return nil, fmt.Errorf("scanners: keywords need %d automaton states, more than %d", len(nodes), maxStates)
	}
	newID := make([]uint16, len(nodes))
	for i, s := range order {
		newID[s] = uint16(i)
	}
	a.trans = make([]uint16, len(nodes)<<8)
	a.outputs = make([][]int32, len(nodes))
	a.depth = make([]uint8, len(nodes))
	// The bytes of each class (a letter and its upper case share one).
	byClass := make([][]byte, n)
	for b := 0; b < 256; b++ {
		if c := a.classes[b]; c != 0 {
			byClass[c] = append(byClass[c], byte(b))
		}
	}
	// Full transitions, in breadth-first order: a state goes where its
	// failure state goes (whose row is already written, being shallower),
	// except on the bytes of its children. The root goes to itself except
	// on its children: the zeroed row already says so. A byte of class 0
	// is in no keyword and leads every state to the root.
	fill := func(s int32) {
		row := a.trans[int(newID[s])<<8 : (int(newID[s])+1)<<8]
		if s != 0 {
			f := int(newID[nodes[s].fail])
			copy(row, a.trans[f<<8:(f+1)<<8])
		}
		for _, e := range nodes[s].kids {
			for _, b := range byClass[e.c] {
				row[b] = newID[e.t]
			}
		}
	}
	fill(0)
	for _, s := range queue {
		fill(s)
	}
	for i, s := range order {
		out := nodes[s].out
		if len(out) > 1 {
			sort.SliceStable(out, func(x, y int) bool { return a.kwLen[out[x]] > a.kwLen[out[y]] })
		}
		a.outputs[i] = out
		a.depth[i] = uint8(nodes[s].depth)
	}
	a.matchMin = uint32(firstMatch)
	return a, nil
}
