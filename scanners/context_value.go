package scanners

import (
	"math"
	"unsafe"
)

// Member-name context. In structured JSON a secret is often the value of a
// member whose name says what it is ({"password": "Xk29!vq…"},
// {"DD_API_KEY": "<32 hex>"}). The pipeline decodes each JSON string and
// redacts it on its own, so the rules that need the name (the assignment
// rules of rules_context.go, the name-based provider rules) would never see
// it. ResetWithContext gives it back: the value is scanned as if the text were
//
//	"<name>": "<value>"
//
// with exactly the rules, filters and rule ids that apply to that text. The
// synthetic prefix `"<name>": "` and the closing quote are scanned but never
// emitted: matches are found and resolved (by start, longer first, ...) on
// the whole synthetic text, then each taken match is clipped to the value. A
// match that lies wholly in the prefix or the closing quote leaves no trace
// (the name itself is redacted as a key string of its own); one that starts
// in the prefix and reaches into the value replaces the part in the value.
// Findings are offsets into the value and fingerprints hash the replaced
// bytes, so nothing of the name is in them.
//
// The context applies only to a name of 1 to MaxContextName bytes of
// [A-Za-z0-9_.-] that contains a keyword of some enabled form that can use
// a name (the automaton run over `"` + name reaches a state with such a
// form; forms of prefixed tokens, tokenOnly, cannot: "path" holds the "pat"
// of Airtable tokens and gets no context); for any other name
// ResetWithContext is Reset. The character set keeps the synthetic text what it says (no quote,
// escape, space or marker in the name) and keeps values under ordinary names
// ("id", "sha", "text"... when no keyword is in them) on the plain path, at
// the cost of one automaton walk over the name.

// MaxContextName is the longest member name (in bytes) that
// ResetWithContext uses as context.
const MaxContextName = 128

// ctxJoinMax is the longest last piece of a value that Append copies to
// join it with the closing quote.
const ctxJoinMax = 4 << 10

// maxOffset stands for "no end yet" in ctxHi.
const maxOffset = math.MaxInt64

var closeQuote = []byte{'"'}

// ctxNameByte is the character set of a context name.
var ctxNameByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['_'], t['.'], t['-'] = true, true, true
	return t
}()

// contextName reports whether name qualifies as a member-name context.
func (c *Catalog) contextName(name []byte) bool {
	if len(name) == 0 || len(name) > MaxContextName {
		return false
	}
	for _, b := range name {
		if !ctxNameByte[b] {
			return false
		}
	}
	tp := unsafe.Pointer(unsafe.SliceData(c.ac.trans))
	s := step(tp, 0, '"')
	for _, b := range name {
		s = step(tp, s, b)
		if s >= c.ac.matchMin && c.ctxState[c.ac.stateIndex(s)] {
			return true
		}
	}
	return false
}

// ResetWithContext starts a new string that is the value of the JSON object
// member called name (its sanitized key). When name qualifies (see the top
// of context_value.go) the value is scanned as the text `"name": "value"`
// and only the value's bytes are emitted and replaced; otherwise this is
// Reset. It reports whether the context applies. name is not retained. The
// prefix counts against the hold like any text, so Held stays within
// MaxHold.
func (r *Redactor) ResetWithContext(name []byte) bool {
	r.Reset()
	if k := r.memoName(name); k >= 0 {
		if !r.memo.ctx[k] {
			return false
		}
	} else if !r.c.contextName(name) {
		return false
	}
	r.fresh = false
	r.pre = append(append(append(r.pre[:0], '"'), name...), `": "`...)
	n := int64(len(r.pre))
	r.ctxLo = n
	// The prefix is input that has arrived and not been scanned yet: the
	// next Append scans it with the value's first bytes, as if they had
	// come in one piece. Only the run tracker sees it now, as it sees
	// every piece on arrival.
	if r.c.decode && r.depth < r.c.maxDepth {
		r.src, r.srcBase = r.pre, 0
		r.trackRuns(r.pre, false)
		r.src = nil
	}
	r.buf = append(r.buf[:0], r.pre...)
	r.bufBase, r.off = 0, n
	return true
}
