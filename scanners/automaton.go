package scanners

import (
	"fmt"
	"sort"
	"unsafe"
)

// automaton is a dense Aho-Corasick DFA over a set of ASCII keywords, matched
// ASCII case-insensitively. Its state is a single uint32, so a caller can stop
// at any byte and resume with the next chunk: the automaton never looks at a
// byte twice and never needs the bytes it has already consumed.
//
// Layout, chosen for the hot loop:
//
//   - The transition table is one flat []uint16 with a row of 256 entries
//     per state, indexed by the raw input byte (upper and lower case share
//     their targets), so a step is one load with no class lookup:
//     s = trans[s<<8 | b]. A table of byte classes (57 entries per row
//     instead of 256) is four times smaller but costs a second load per
//     byte; measured over 1 MiB corpora with the full catalog
//     (BenchmarkKeywordScan) the wide table walks 1.3-1.5x faster, for
//     about 1.8 MiB of table per catalog (shared by every pass).
//   - States are renumbered so that every state with an output (a keyword
//     ends here, directly or through a failure link) comes after every state
//     without one. "Is this a match?" is then one compare against matchMin.
type automaton struct {
	classes  [256]uint8 // build time: byte classes of the trie
	trans    []uint16   // next state, row s at s<<8
	matchMin uint32     // states >= matchMin have outputs
	// Per state: the keywords that end here, longest first, and the depth
	// of the state in the trie (the number of trailing bytes of input that
	// are a keyword prefix).
	outputs [][]int32
	depth   []uint8
	kwLen   []int
	maxKw   int
}

// maxStates is the most states a uint16 table can name.
const maxStates = 1 << 16

// maxKeywordLen bounds keyword length so that depth fits in a byte and the
// hold-back stays small.
const maxKeywordLen = 64

// newAutomaton compiles keywords. Keywords must be non-empty ASCII of at most
// maxKeywordLen bytes; duplicates (after case folding) are the caller's
// business: each occurrence gets its own keyword index.
func newAutomaton(keywords []string) (*automaton, error) {
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

	// Trie (build time only), flat: the children of a state are a list in
	// class order (its first child, then each child's next sibling), kept
	// in order as children are inserted, so that no state has a slice of
	// its own and nothing is sorted afterwards; the root's children are
	// also a dense row, since most failure walks end at the root. (The
	// build it replaced, with a slice of children per state sorted after
	// the trie, is TestAutomatonBuildMatchesReference's reference: the
	// automaton is the same, and the build costs 2 M instructions less at
	// every start.)
	//
	// A state's outputs are its own keywords (a list through kwNext, in
	// keyword order) followed by its failure state's outputs; nOut counts
	// them. They are written out once, into one array, after the
	// renumbering: no slice per state while building (a node is 28 bytes,
	// not 48, and the trie of the default catalog has 5,466 of them).
	type node struct {
		first, next int32 // first child, next sibling; -1: none
		fail        int32
		own, ownEnd int32 // first and last own keyword; -1: none
		nOut        int32
		c           uint8 // class of the edge from the parent (classes < 256)
		depth       uint8 // <= maxKeywordLen
	}
	kwNext := make([]int32, len(keywords))
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
	nodes[0] = node{first: -1, next: -1, own: -1, ownEnd: -1}
	child := func(s int32, c uint8) int32 {
		if s == 0 {
			return rootRow[c]
		}
		for k := nodes[s].first; k >= 0; k = nodes[k].next {
			if nodes[k].c >= c {
				if nodes[k].c == c {
					return k
				}
				break
			}
		}
		return -1
	}
	for i, kw := range keywords {
		s := int32(0)
		for j := 0; j < len(kw); j++ {
			c := a.classes[kw[j]]
			t := int32(-1)
			if s == 0 {
				t = rootRow[c]
			}
			if t < 0 {
				// The child on c, or the place of a new one in class order.
				prev, k := int32(-1), nodes[s].first
				for k >= 0 && nodes[k].c < c {
					prev, k = k, nodes[k].next
				}
				if k >= 0 && nodes[k].c == c {
					t = k
				} else {
					t = int32(len(nodes))
					nodes = append(nodes, node{first: -1, next: k, own: -1, ownEnd: -1, c: c, depth: uint8(j + 1)})
					if prev < 0 {
						nodes[s].first = t
					} else {
						nodes[prev].next = t
					}
					if s == 0 {
						rootRow[c] = t
					}
				}
			}
			s = t
		}
		kwNext[i] = -1
		if nodes[s].ownEnd < 0 {
			nodes[s].own = int32(i)
		} else {
			kwNext[nodes[s].ownEnd] = int32(i)
		}
		nodes[s].ownEnd = int32(i)
		nodes[s].nOut++
	}
	// Breadth-first, children in class order: failure links and inherited
	// outputs. The failure link of a child is found by walking the failure
	// chain of its parent.
	queue := make([]int32, 0, len(nodes))
	for k := nodes[0].first; k >= 0; k = nodes[k].next {
		queue = append(queue, k)
	}
	for qi := 0; qi < len(queue); qi++ {
		s := queue[qi]
		nodes[s].nOut += nodes[nodes[s].fail].nOut
		for t := nodes[s].first; t >= 0; t = nodes[t].next {
			c := nodes[t].c
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
		if nodes[s].nOut == 0 {
			order = append(order, s)
		}
	}
	firstMatch := len(order)
	for _, s := range queue {
		if nodes[s].nOut != 0 {
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
	// Every row is written below: its pages are backed in one call, not
	// one fault each.
	prefault(unsafe.Pointer(unsafe.SliceData(a.trans)), len(a.trans)*2)
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
		for k := nodes[s].first; k >= 0; k = nodes[k].next {
			for _, b := range byClass[nodes[k].c] {
				row[b] = newID[k]
			}
		}
	}
	fill(0)
	for _, s := range queue {
		fill(s)
	}
	nOut := 0
	for _, s := range order[firstMatch:] {
		nOut += int(nodes[s].nOut)
	}
	outBuf := make([]int32, 0, nOut)
	for i, s := range order {
		from := len(outBuf)
		for f := s; f != 0; f = nodes[f].fail {
			for k := nodes[f].own; k >= 0; k = kwNext[k] {
				outBuf = append(outBuf, k)
			}
		}
		out := outBuf[from:len(outBuf):len(outBuf)]
		if len(out) > 1 {
			sort.SliceStable(out, func(x, y int) bool { return a.kwLen[out[x]] > a.kwLen[out[y]] })
		}
		if len(out) > 0 {
			// Only the states from firstMatch on have outputs: the
			// entries before it stay as allocated, so that their pages
			// (fresh memory at start-up) are never touched.
			a.outputs[i] = out
		}
		a.depth[i] = uint8(nodes[s].depth)
	}
	a.matchMin = uint32(firstMatch)
	return a, nil
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// step is one transition without a bounds check. Safe by construction:
// every entry of trans is a state s < len(trans)>>8, so s<<8|b is always
// inside the table. newAutomaton establishes it;
// TestAutomatonTableInvariant checks it.
func step(tp unsafe.Pointer, s uint32, b byte) uint32 {
	return uint32(*(*uint16)(unsafe.Add(tp, uintptr(s)<<9|uintptr(b)<<1)))
}

// stateIndex converts a state to an index into outputs/depth (the same
// number: kept so that callers do not depend on the table layout).
func (a *automaton) stateIndex(s uint32) int { return int(s) }

// run advances the automaton from state s over p and stops right after the
// first byte that leads to a state with outputs. It returns the new state and
// the number of bytes consumed (len(p) if no keyword ended in p).
func (a *automaton) run(s uint32, p []byte) (uint32, int) {
	tp := unsafe.Pointer(unsafe.SliceData(a.trans))
	m := a.matchMin
	for i := 0; i < len(p); i++ {
		s = step(tp, s, p[i])
		if s >= m {
			return s, i + 1
		}
	}
	return s, len(p)
}

// interleaveMin is the shortest input for which run4 splits the work in four
// lanes; below it the setup is not worth it.
const interleaveMin = 1024

// run4 has the contract of run but walks four stretches of p at once, which
// hides the latency of the dependent table loads (one walk is a chain of
// loads; four independent chains keep the core busy). Each lane after the
// first starts maxKw-1 bytes before its stretch from the root state: a state
// without output has depth < maxKw, so after those bytes the lane's state is
// the true state. Lanes report only keyword ends inside their own stretch.
// When some lane sees a keyword end, the earliest one is returned and the work
// of later lanes is discarded; callers that see dense hits should use run.
func (a *automaton) run4(s uint32, p []byte) (uint32, int) {
	if len(p) < interleaveMin {
		return a.run(s, p)
	}
	tp := unsafe.Pointer(unsafe.SliceData(a.trans))
	m := a.matchMin
	q := len(p) / 4
	back := a.maxKw - 1
	// Stretch k covers [k*q, (k+1)*q) (the last takes the remainder); lanes
	// 1..3 warm up over [k*q-back, k*q).
	b1, b2, b3 := q, 2*q, 3*q
	p0 := p[:b1]
	p1 := p[b1-back : b2]
	p2 := p[b2-back : b3]
	p3 := p[b3-back:]
	var s1, s2, s3 uint32
	// Warm-up of lanes 1..3 (ignore outputs: they belong to earlier lanes).
	for i := 0; i < back; i++ {
		s1 = step(tp, s1, p1[i])
		s2 = step(tp, s2, p2[i])
		s3 = step(tp, s3, p3[i])
	}
	p1, p2, p3 = p1[back:], p2[back:], p3[back:]
	// Lockstep over the common length; each lane stops at its first hit.
	h1, h2 := -1, -1
	i := 0
	for ; i < len(p0); i++ {
		s = step(tp, s, p0[i])
		s1 = step(tp, s1, p1[i])
		s2 = step(tp, s2, p2[i])
		s3 = step(tp, s3, p3[i])
		if s >= m || s1 >= m || s2 >= m || s3 >= m {
			break
		}
	}
	if i < len(p0) {
		// Some lane hit at i. Lane 0 first: it is exact.
		if s >= m {
			return s, i + 1
		}
		// Finish lane 0 alone: it may still hit later in its stretch.
		if st, n := a.run(s, p0[i+1:]); n < len(p0)-i-1 || st >= m {
			return st, i + 1 + n
		}
		if s1 >= m {
			h1 = i
		}
		if s2 >= m {
			h2 = i
		}
		// Lane 1 is now the earliest possible; its state at i is exact.
		if h1 >= 0 {
			return s1, b1 + i + 1
		}
		st, n := a.run(s1, p1[i+1:])
		if n < len(p1)-i-1 || st >= m {
			return st, b1 + i + 1 + n
		}
		if h2 >= 0 {
			return s2, b2 + i + 1
		}
		st, n = a.run(s2, p2[i+1:])
		if n < len(p2)-i-1 || st >= m {
			return st, b2 + i + 1 + n
		}
		if s3 >= m {
			return s3, b3 + i + 1
		}
		st, n = a.run(s3, p3[i+1:])
		return st, b3 + i + 1 + n
	}
	// No hit in the common part; lane 3 has a remainder (len(p)%4 bytes).
	st, n := a.run(s3, p3[len(p0):])
	return st, b3 + len(p0) + n
}

// walk8Go is what walk8 (walk8_amd64.s) does, in Go: lane l of eight reads
// p[l*q+j]; from j = i it steps every lane over its byte and returns the
// first j after whose step some lane's state is >= m, or q. The states go in
// and out through st.
func walk8Go(tp *uint16, p *byte, q int, i int, st *[8]uint32, m uint32) int {
	t := unsafe.Pointer(tp)
	for ; i < q; i++ {
		hit := false
		for l := range st {
			st[l] = step(t, st[l], *(*byte)(unsafe.Add(unsafe.Pointer(p), l*q+i)))
			hit = hit || st[l] >= m
		}
		if hit {
			return i
		}
	}
	return i
}

// warm8Go is what warm8 (walk8_amd64.s) does, in Go: lanes 1-7 of walk8
// step over p[l*q-back+i] for i < back from their states in st, with no
// check; lane 0 is left as it is.
func warm8Go(tp *uint16, p *byte, q int, back int, st *[8]uint32) {
	t := unsafe.Pointer(tp)
	for i := 0; i < back; i++ {
		for l := 1; l < 8; l++ {
			st[l] = step(t, st[l], *(*byte)(unsafe.Add(unsafe.Pointer(p), l*q-back+i)))
		}
	}
}

// collect8Min is the shortest block collect walks in eight lanes with the
// assembly kernels (walk8_amd64.s). Each of lanes 1-7 first warms up over
// maxKw-1 bytes (warm8, the eight lanes' cost of about 63 bytes); from 1 KiB
// the eight lanes beat the four of Go (search results, strings of a few
// KiB: +5-10%).
const collect8Min = 1 << 10

// collectLanesMin is the shortest block collect walks in four lanes. Each
// lane after the first warms up over maxKw-1 bytes, so a lane must be at
// least that long: four lanes of maxKeywordLen bytes always are. Below
// 1 KiB the warm-up is a real share of the work, but one lane is about
// three times slower per byte than four; measured on the strings of
// structured search results (BenchmarkCollectShort), four lanes win from
// about 200 bytes.
const collectLanesMin = 4 * maxKeywordLen

// acRec is a keyword end recorded by collect: the automaton state right
// after byte pos of the block.
type acRec struct {
	pos   int32
	state uint32
}

// laneMax is the longest stretch of one lane in collect and also how many
// hits a lane can record, so a lane never runs out of room; hitBufLen is
// the capacity collect needs in its hits buffer (64 KiB per Redactor).
const (
	laneMax   = 2048
	laneCap   = laneMax
	hitBufLen = 4 * laneCap
)

// collect walks a block at the start of p from state s and records every
// position where a keyword ends, without stopping: unlike run4, a hit costs
// one store, not the other lanes' work. Long blocks are walked in four
// interleaved lanes (see run4 for the warm-up argument); the records come
// out in position order. It returns the state after the block, the block
// length and the records (appended to hits[:0]; hits must have capacity
// hitBufLen).
func (a *automaton) collect(s uint32, p []byte, hits []acRec) (uint32, int, []acRec) {
	m := a.matchMin
	hits = hits[:hitBufLen]
	tp := unsafe.Pointer(unsafe.SliceData(a.trans))
	if len(p) < collectLanesMin {
		n := min(len(p), laneMax)
		k := 0
		for i, b := range p[:n] {
			s = step(tp, s, b)
			if s >= m {
				hits[k] = acRec{int32(i), s}
				if k++; k == len(hits) {
					return s, i + 1, hits
				}
			}
		}
		return s, n, hits[:k]
	}
	if haveWalk8 && len(p) >= collect8Min {
		return a.collect8(s, p, hits)
	}
	q := min(len(p)/4, laneMax)
	back := a.maxKw - 1
	p0 := p[:q]
	p1 := p[q-back : 2*q]
	p2 := p[2*q-back : 3*q]
	p3 := p[3*q-back : 4*q]
	var s1, s2, s3 uint32
	for i := 0; i < back; i++ {
		s1 = step(tp, s1, p1[i])
		s2 = step(tp, s2, p2[i])
		s3 = step(tp, s3, p3[i])
	}
	// The hot loop keeps only the four states, the two base pointers and
	// its counters in registers: the per-lane record counts live in memory
	// (an array) and are touched only at a hit, which leaves the registers
	// to the walk (measured: 10-20% faster than four slices and counters).
	var n [4]int
	// The four lanes are at fixed distances from lane 0: read them through
	// one pointer (all of p0..p3 are q bytes long, so no read is out of p).
	b0 := unsafe.Pointer(unsafe.SliceData(p0))
	for i := 0; i < q; i++ {
		s = step(tp, s, *(*byte)(unsafe.Add(b0, i)))
		s1 = step(tp, s1, *(*byte)(unsafe.Add(b0, q+i)))
		s2 = step(tp, s2, *(*byte)(unsafe.Add(b0, 2*q+i)))
		s3 = step(tp, s3, *(*byte)(unsafe.Add(b0, 3*q+i)))
		if max(s, s1, s2, s3) < m {
			continue // the common case: one compare for four lanes
		}
		for l, st := range [4]uint32{s, s1, s2, s3} {
			if st >= m {
				hits[l*laneCap+n[l]] = acRec{int32(l*q + i), st}
				n[l]++
			}
		}
	}
	// Compact the four lanes' records into position order.
	k := n[0]
	for l := 1; l < 4; l++ {
		k += copy(hits[k:], hits[l*laneCap:l*laneCap+n[l]])
	}
	return s3, 4 * q, hits[:k]
}

// laneMax8 is laneMax for collect8: eight lanes share the same hits buffer.
const laneMax8 = hitBufLen / 8

// collect8 is collect in eight lanes, stepped by walk8. The kernel stops at
// each byte where a lane reaches a state with outputs; the records are made
// here.
func (a *automaton) collect8(s uint32, p []byte, hits []acRec) (uint32, int, []acRec) {
	m := a.matchMin
	tp := unsafe.Pointer(unsafe.SliceData(a.trans))
	q := min(len(p)/8, laneMax8)
	back := a.maxKw - 1
	// Lanes 1-7 start back bytes early, from the root, so that each is in
	// the state the text before it leads to when its own bytes begin (a
	// state depends on at most the last maxKw-1 bytes).
	var st [8]uint32
	st[0] = s
	warm8((*uint16)(tp), unsafe.SliceData(p), q, back, &st)
	var n [8]int
	base := unsafe.SliceData(p)
	for j := 0; j < q; j++ {
		j = walk8((*uint16)(tp), base, q, j, &st, m)
		if j == q {
			break
		}
		for l, sl := range st {
			if sl >= m {
				hits[l*laneMax8+n[l]] = acRec{int32(l*q + j), sl}
				n[l]++
			}
		}
	}
	k := n[0]
	for l := 1; l < 8; l++ {
		k += copy(hits[k:], hits[l*laneMax8:l*laneMax8+n[l]])
	}
	return st[7], 8 * q, hits[:k]
}
