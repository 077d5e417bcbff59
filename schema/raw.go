package schema

import (
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// This file is the raw path: one walk over the JSON text of a value that
// answers "Decode accepts it, Validate finds it valid and Project drops
// nothing" without building the value, for schemas whose keywords it
// handles. It is the fast path (fast.go) run on the text instead of on
// Decode's tree, with Project's rules for those keywords, so a caller
// holding the text of a structured result (the common case: a listing of
// small objects that conforms and declares every member) skips the tree,
// its maps and strings, the second walk of Project and the copies of the
// tree walks. Any other answer is "not known": the caller decodes,
// validates and projects as before, which also says why.
//
// Handled: boolean schemas, $ref, allOf, type, const and enum of scalars,
// properties, additionalProperties, required, min/maxProperties,
// prefixItems, items, min/maxItems, uniqueItems false, min/maxLength,
// pattern and the number keywords. A location whose applicable schemas use
// anything else (not, anyOf, oneOf, if, patternProperties, propertyNames,
// dependent*, contains, uniqueItems true, const or enum of a container)
// is not known. FuzzValidRaw, FuzzValidRawObjects and the suite test
// demand that a true answer is what Decode, Validate and Project say.

// rawBase is the member count of an object up to which its names are
// compared with each other linearly; a larger object uses a set.
const rawBase = 16

// rawScratch holds the buffers of ValidRaw.
type rawScratch struct {
	sc    strictjson.Scanner
	nodes []*fnode // applicable schemas and child roots, one run per open location
	chain []*fnode // schemas entered at the current location
	keys  []byte   // decoded member names of the open objects
	ends  []int    // end offset in keys of each name
	// orders holds, per object depth, the numbers of the first members
	// of the last object walked there with a property index: the object
	// after it (the next item of a listing) is tried against them before
	// the index is asked.
	orders [maxOrderDepth]nameOrder
}

// maxOrderDepth and maxOrderMembers bound what orders remembers.
const (
	maxOrderDepth   = 8
	maxOrderMembers = 16
)

type nameOrder struct {
	ix  *propIndex
	n   int
	num [maxOrderMembers]int8
}

// ValidRaw reports whether data is a value that Decode(data, maxDepth)
// accepts, that Validate finds valid and that Project returns unchanged,
// told in one walk of the text without building the value. False says
// nothing about the value (a keyword or limit the walk does not handle, a
// member Project would drop, an invalid value): callers then decode,
// validate and project. sc may be nil.
func (s *Schema) ValidRaw(data []byte, maxDepth int, sc *Scratch) bool {
	if s.fast == nil {
		return false
	}
	if maxDepth <= 0 {
		maxDepth = DefaultValueDepth
	}
	if sc == nil {
		sc = &Scratch{}
	}
	w := rawWalker{rawScratch: &sc.raw, maxDepth: maxDepth, budget: s.budget}
	w.sc.Reset(data)
	w.nodes = append(w.nodes[:0], s.fast)
	ok := w.value(0, 1, 0)
	ok = ok && w.sc.Done()
	// Keep the buffers, not what they point at, for the next call.
	clear(w.nodes[:cap(w.nodes)])
	clear(w.chain[:cap(w.chain)])
	clear(w.orders[:])
	w.nodes, w.chain, w.keys, w.ends = w.nodes[:0], w.chain[:0], w.keys[:0], w.ends[:0]
	return ok
}

type rawWalker struct {
	*rawScratch
	maxDepth     int
	budget, work int
}

// value walks the value at the scanner's position whose root schemas are
// w.nodes[from:to] (as the fast path checks them there: once per schema
// that reaches the location, duplicates included). depth is the number of
// containers around it; frames bounds the schemas entered on the path to
// it (the fast path's frame stack), which must stay under maxFastFrames.
func (w *rawWalker) value(from, to, depth int) bool {
	return w.valueAt(from, to, depth, 0)
}

func (w *rawWalker) valueAt(from, to, depth, frames int) bool {
	// The applicable schemas: the roots and what they reach through $ref
	// and allOf, appended after the roots.
	app := len(w.nodes)
	for i := from; i < to; i++ {
		n := w.nodes[i]
		if n.leaf {
			// What enter does for it.
			w.work++
			if w.work > w.budget || frames+len(w.chain) >= maxFastFrames {
				return false
			}
			w.nodes = append(w.nodes, n)
			continue
		}
		if !w.enter(n, frames) {
			return false
		}
	}
	end := len(w.nodes)
	frames += end - app
	if frames >= maxFastFrames {
		return false
	}
	switch c := w.sc.Space(); {
	case c == '{':
		if depth >= w.maxDepth {
			return false
		}
		return w.object(app, end, depth+1, frames)
	case c == '[':
		if depth >= w.maxDepth {
			return false
		}
		return w.array(app, end, depth+1, frames)
	case c == '"':
		b, err := w.sc.Str()
		if err != nil {
			return false
		}
		for _, n := range w.nodes[app:end] {
			if !n.rawString(b) {
				return false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		lit, err := w.sc.Number()
		if err != nil {
			return false
		}
		for _, n := range w.nodes[app:end] {
			if !n.rawNumber(lit) {
				return false
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		c, err := w.sc.Literal()
		if err != nil {
			return false
		}
		var v any
		k := tNull
		if c != 'n' {
			v, k = c == 't', tBool
		}
		for _, n := range w.nodes[app:end] {
			if n.types != 0 && n.types&k == 0 || !n.scalarConst(v) {
				return false
			}
		}
	default:
		return false
	}
	w.nodes = w.nodes[:app]
	return true
}

// child walks the value at the scanner's position whose root schemas are
// w.nodes[from:], and drops them: valueAt, except that a string or number
// under one schema that is entered alone (fnode.leaf: the common member
// of a listing) is checked here, counted against the budget and the
// frames as valueAt counts it.
func (w *rawWalker) child(from, depth, frames int) bool {
	if len(w.nodes) == from+1 && w.nodes[from].leaf {
		n := w.nodes[from]
		switch c := w.sc.Space(); {
		case c == '"':
			w.work++
			if w.work > w.budget || frames+1 >= maxFastFrames {
				return false
			}
			if n.anyString {
				if n.types != 0 && n.types&tString == 0 || w.sc.SkipStr() != nil {
					return false
				}
			} else if b, err := w.sc.Str(); err != nil || !n.rawString(b) {
				return false
			}
			w.nodes = w.nodes[:from]
			return true
		case c == '-' || c >= '0' && c <= '9':
			w.work++
			if w.work > w.budget || frames+1 >= maxFastFrames {
				return false
			}
			lit, err := w.sc.Number()
			if err != nil || !(n.anyNumber && (n.types == 0 || n.types&tNumber != 0)) && !n.rawNumber(lit) {
				return false
			}
			w.nodes = w.nodes[:from]
			return true
		}
	}
	if !w.valueAt(from, len(w.nodes), depth, frames) {
		return false
	}
	w.nodes = w.nodes[:from]
	return true
}

// enter appends n and what it reaches through $ref and allOf to the
// applicable schemas of the current location, counting each schema
// entered against the budget as the fast path does. A false schema, a
// keyword the walk does not handle, a reference cycle or the budget end
// it.
func (w *rawWalker) enter(n *fnode, frames int) bool {
	if n.boolv != 0 {
		return n.boolv > 0
	}
	w.work++
	if w.work > w.budget || n.noRaw || frames+len(w.chain) >= maxFastFrames {
		return false
	}
	if n.ref == nil && len(n.allOf) == 0 {
		// Nothing is entered through n, so no cycle runs through it (a
		// schema on the chain is one being entered through).
		w.nodes = append(w.nodes, n)
		return true
	}
	for _, x := range w.chain {
		if x == n {
			return false
		}
	}
	w.chain = append(w.chain, n)
	w.nodes = append(w.nodes, n)
	ok := n.ref == nil || w.enter(n.ref, frames)
	for _, a := range n.allOf {
		ok = ok && w.enter(a, frames)
	}
	w.chain = w.chain[:len(w.chain)-1]
	return ok
}

// object walks an object whose applicable schemas are w.nodes[app:end].
//
// The first applicable schema with a property index (rawprops.go) numbers
// the members it declares: those are kept as bits of met (a duplicate is
// a bit met twice) and looked up in that schema without hashing the name.
// Only the other names are kept as bytes, compared linearly with each
// other up to rawBase of them and through a set beyond; a name the index
// declares cannot equal one it does not.
func (w *rawWalker) object(app, end, depth, frames int) bool {
	nodes := w.nodes[app:end]
	speaks := false
	var ix *propIndex
	for _, n := range nodes {
		if n.types != 0 && n.types&tObject == 0 || n.constv != nil || n.enum != nil {
			return false
		}
		speaks = speaks || n.props != nil || n.addl != 0 || len(n.required) > 0
		if ix == nil {
			ix = n.pidx
		}
	}
	w.sc.Skip() // '{'
	keyBase, endBase := len(w.keys), len(w.ends)
	defer func() { w.keys, w.ends = w.keys[:keyBase], w.ends[:endBase] }()
	var set map[string]struct{}
	var met uint64
	// The numbers of the last object at this depth with the same index
	// are guesses for this one's, and are overwritten by them as they come
	// (each is read before it is written; a wrong one costs a compare).
	var order *nameOrder
	if ix != nil && depth < maxOrderDepth {
		order = &w.orders[depth]
		if order.ix != ix {
			order.ix, order.n = ix, 0
		}
	}
	count := 0
	if w.sc.Space() == '}' {
		w.sc.Skip()
	} else {
		for {
			if w.sc.Space() != '"' {
				return false
			}
			k, err := w.sc.Str()
			if err != nil {
				return false
			}
			num := -1
			if ix != nil {
				if order != nil && count < order.n {
					if g := int(order.num[count]); g >= 0 && ix.names[g] == string(k) {
						num = g
					}
				}
				if num < 0 {
					num = ix.find(k)
				}
				if order != nil && count < maxOrderMembers {
					order.num[count] = int8(num)
				}
			}
			if num >= 0 {
				if met&(1<<num) != 0 {
					return false // duplicate: Decode refuses it
				}
				met |= 1 << num
			} else {
				if !w.addKey(k, keyBase, endBase, &set) {
					return false // duplicate: Decode refuses it
				}
				k = w.keys[len(w.keys)-len(k):]
			}
			count++
			// The member's schemas: as checkObject checks them, and as
			// Project declares the member.
			from := len(w.nodes)
			declared := false
			for _, n := range nodes {
				var c *fnode
				if n.pidx == ix && ix != nil {
					if num >= 0 {
						c = ix.nodes[num]
					}
				} else if n.props != nil {
					c = n.props[string(k)]
				}
				if c != nil {
					w.nodes = append(w.nodes, c)
					declared = true
					continue
				}
				switch n.addl {
				case -1:
					return false
				case 1:
					declared = true
				case 2:
					w.nodes = append(w.nodes, n.addlNode)
					declared = declared || n.addlNode.boolv >= 0
				}
				if !declared {
					for _, r := range n.required {
						if r == string(k) {
							declared = true
							break
						}
					}
				}
			}
			if speaks && !declared {
				return false // Project drops it
			}
			if w.sc.Colon() != nil || !w.child(from, depth, frames) {
				return false
			}
			done, err := w.sc.Separator('}')
			if err != nil {
				return false
			}
			if done {
				break
			}
		}
	}
	if order != nil {
		order.n = min(count, maxOrderMembers)
	}
	for _, n := range nodes {
		if n.minProps >= 0 && count < n.minProps || n.maxProps >= 0 && count > n.maxProps {
			return false
		}
		if n.pidx == ix && ix != nil {
			if met&ix.reqMask != ix.reqMask {
				return false
			}
			for _, r := range ix.reqRest {
				if !w.hasKey(keyBase, endBase, set, r) {
					return false
				}
			}
			continue
		}
		for _, r := range n.required {
			if ix != nil {
				if i := ix.findString(r); i >= 0 {
					if met&(1<<i) == 0 {
						return false
					}
					continue
				}
			}
			if !w.hasKey(keyBase, endBase, set, r) {
				return false
			}
		}
	}
	return true
}

// addKey adds the member name k to the names of the open object kept as
// bytes (those starting at keyBase, ends at endBase), or reports false
// when it is one of them already.
func (w *rawWalker) addKey(k []byte, keyBase, endBase int, set *map[string]struct{}) bool {
	if len(w.ends)-endBase < rawBase {
		start := keyBase
		for _, e := range w.ends[endBase:] {
			if string(w.keys[start:e]) == string(k) {
				return false
			}
			start = e
		}
	} else {
		if *set == nil {
			*set = make(map[string]struct{}, 2*rawBase)
			start := keyBase
			for _, e := range w.ends[endBase:] {
				(*set)[string(w.keys[start:e])] = struct{}{}
				start = e
			}
		}
		if _, dup := (*set)[string(k)]; dup {
			return false
		}
		(*set)[string(k)] = struct{}{}
	}
	w.keys = append(w.keys, k...)
	w.ends = append(w.ends, len(w.keys))
	return true
}

// hasKey reports whether the open object whose names kept as bytes start
// at keyBase (ends at endBase) has a member named k.
func (w *rawWalker) hasKey(keyBase, endBase int, set map[string]struct{}, k string) bool {
	if set != nil {
		_, ok := set[k]
		return ok
	}
	start := keyBase
	for _, e := range w.ends[endBase:] {
		if string(w.keys[start:e]) == k {
			return true
		}
		start = e
	}
	return false
}

// array walks an array whose applicable schemas are w.nodes[app:end].
func (w *rawWalker) array(app, end, depth, frames int) bool {
	nodes := w.nodes[app:end]
	for _, n := range nodes {
		if n.types != 0 && n.types&tArray == 0 || n.constv != nil || n.enum != nil {
			return false
		}
	}
	w.sc.Skip() // '['
	count := 0
	if w.sc.Space() == ']' {
		w.sc.Skip()
	} else {
		for {
			from := len(w.nodes)
			for _, n := range nodes {
				switch {
				case count < len(n.prefix):
					w.nodes = append(w.nodes, n.prefix[count])
				case n.items != nil:
					w.nodes = append(w.nodes, n.items)
				}
			}
			if !w.child(from, depth, frames) {
				return false
			}
			count++
			done, err := w.sc.Separator(']')
			if err != nil {
				return false
			}
			if done {
				break
			}
		}
	}
	for _, n := range nodes {
		if n.minItems >= 0 && count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
			return false
		}
	}
	return true
}

// rawString checks a string (its decoded bytes) as checkHere does.
func (n *fnode) rawString(b []byte) bool {
	if n.types != 0 && n.types&tString == 0 {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCount(b)
		if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(string(b)) {
		return false
	}
	if n.constv != nil {
		if c, ok := (*n.constv).(string); !ok || c != string(b) {
			return false
		}
	}
	if n.enum != nil {
		for _, e := range n.enum {
			if c, ok := e.(string); ok && c == string(b) {
				return true
			}
		}
		return false
	}
	return true
}

// rawNumber checks a number literal as checkHere does.
func (n *fnode) rawNumber(lit []byte) bool {
	bounded := n.min != nil || n.max != nil || n.xmin != nil || n.xmax != nil || n.mult != nil
	if n.types != 0 && n.types&tNumber == 0 {
		if n.types&tInteger == 0 {
			return false
		}
		plainInt := true
		for _, c := range lit {
			if c == '.' || c == 'e' || c == 'E' {
				plainInt = false
				break
			}
		}
		if !plainInt {
			nv := newNum(json.Number(lit))
			isInt, ok := nv.integer()
			if !ok || !isInt {
				return false
			}
		}
	}
	if bounded {
		nv, ok := n.intNum(lit)
		if !ok {
			nv = newNum(json.Number(lit))
		}
		if n.checkNumber(&nv) != fastValid {
			return false
		}
	}
	if n.constv != nil || n.enum != nil {
		return n.scalarConst(json.Number(lit))
	}
	return true
}

// intNum returns newNum(lit) without its literal, for a plain or
// decimal literal (no exponent) whose integer part fits 18 digits, when
// every number keyword of n is an integer that checkNumber compares
// without the literal; ok false otherwise.
func (n *fnode) intNum(lit []byte) (num, bool) {
	for _, b := range [...]*bound{n.min, n.max, n.xmin, n.xmax, n.mult} {
		if b != nil && (!b.isInt || b.i == math.MinInt64) {
			return num{}, false
		}
	}
	x := num{}
	s := lit
	if len(s) > 0 && s[0] == '-' {
		x.neg, s = true, s[1:]
	}
	ip, fp, hasDot := s, []byte(nil), false
	for i, c := range s {
		if c == '.' {
			ip, fp, hasDot = s[:i], s[i+1:], true
			break
		}
	}
	if len(ip) == 0 || len(ip) > 18 || hasDot && len(fp) == 0 {
		return num{}, false
	}
	for _, c := range ip {
		if c < '0' || c > '9' {
			return num{}, false
		}
		x.ip = x.ip*10 + int64(c-'0')
	}
	for _, c := range fp {
		if c < '0' || c > '9' {
			return num{}, false
		}
		if c != '0' {
			x.frac = true
		}
	}
	x.dec = true
	if !hasDot {
		x.isInt, x.i = true, x.ip
		if x.neg {
			x.i = -x.ip
		}
	}
	if n.mult != nil && !(x.isInt && n.mult.i > 0) {
		return num{}, false // multipleOf needs the literal (rat)
	}
	return x, true
}

// scalarConst checks const and enum (of scalars: noRaw excludes others)
// against the scalar v.
func (n *fnode) scalarConst(v any) bool {
	if n.constv != nil {
		if eq, ok := fastEqual(v, *n.constv); !ok || !eq {
			return false
		}
	}
	if n.enum != nil {
		for _, e := range n.enum {
			if eq, ok := fastEqual(v, e); ok && eq {
				return true
			} else if !ok {
				return false
			}
		}
		return false
	}
	return true
}

// rawUnhandled reports whether n uses a keyword the raw walk does not
// handle (see the list at the top of this file).
func rawUnhandled(n *fnode) bool {
	if n.boolv != 0 {
		return false
	}
	if n.not != nil || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.ifn != nil || n.then != nil || n.els != nil ||
		len(n.patProps) > 0 || n.propNames != nil || len(n.depReq) > 0 || len(n.depSch) > 0 ||
		n.contains != nil || n.unique {
		return true
	}
	if n.constv != nil && !isScalar(*n.constv) {
		return true
	}
	for _, e := range n.enum {
		if !isScalar(e) {
			return true
		}
	}
	return false
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, string, json.Number:
		return true
	}
	return false
}
