package scanners

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"hash"
)

// MaxHold bounds the bytes a Redactor keeps between two Append calls. The
// largest look-ahead of any rule (the private-key window, pemWindow, plus
// its END label) and the largest look-behind (CustomWindow) fit under it.
const MaxHold = 64 << 10

// candidate is a confirmed match not yet committed to the output.
type candidate struct {
	start, end int64
	rule       RuleID
	cs         ChecksumResult
	open       bool // private key without END in its window: end is where the window stops
	// An encoded run holding a secret (see decode.go): the inner finding's
	// encoding and fingerprint.
	enc Encoding
	fp  [16]byte
}

// Redactor replaces secrets and pseudo-instruction tags in one string at a
// time, streaming. Create one per goroutine with Catalog.NewRedactor.
//
// How it works: the Catalog's automaton runs over every byte once, in place
// in src. A keyword hit hands the text around it to the checks of the rules
// owning that keyword; a check either decides (match or not) or asks for more
// bytes, in which case scanning pauses at that hit until more input arrives.
// Confirmed matches become candidates; a candidate is committed once no hit
// still to come can produce a match that starts at or before it, and then
// overlapping candidates are resolved exactly as the whole-string reference
// does: by start, longer first, a match on the text itself before one found
// by decoding (decode.go), lower RuleID first; the earliest wins, any
// candidate starting inside it is dropped. Text before the earliest position
// a future match could start at (or an open encoded run starts at) is final
// and is appended to dst.
type Redactor struct {
	c    *Catalog
	memo nameMemo // answers for the member names seen last (namememo.go)
	// fresh: the state is what Reset leaves (set by Reset, cleared by
	// Append and by a member-name context), so Reset has nothing to do.
	fresh bool
	mac   hash.Hash
	sum   [sha256.Size]byte
	key   []byte

	// Encoded runs (decode.go): the open run starts at rs (-1: none), has
	// rpad '=' so far, and rlong once it is longer than the catalog's
	// MaxDecodeRun (then it is decoded in windows: the current one starts
	// at rwin, and what is held of the run starts there; rcov is the end of
	// the last window replaced). inner scans decoded runs one level deeper;
	// depth is this Redactor's level.
	suppress func(rule RuleID, fingerprint [16]byte) bool // SetSuppress

	rs       int64
	rwin     int64
	rcov     int64
	rpad     int8
	rlong    bool
	depth    int
	inner    *Redactor
	dec      []byte
	innerOut []byte
	innerFs  []Finding

	// State of the current string; offsets are from the last Reset.
	off      int64  // offset of the next input byte
	buf      []byte // held bytes: string[bufBase : bufBase+len(buf)]
	bufBase  int64
	state    uint32 // automaton state after string[:scan]
	scan     int64
	pending  bool // a hit at scan has items from pendItem on left to check
	pendItem int
	hint     int64   // for the pending check (see view.hint)
	hits     []acRec // scratch for automaton.collect
	cands    []candidate
	out      int64  // string[:out] has been emitted (as text or marker) or dropped
	lastEnd  int64  // end of the last committed match
	spans    []Span // verbatim stretches written by the current Append
	marks    []Mark // markers written by the current Append (marks.go)
	dst0     int    // len(dst) when the current Append began

	cont      bool // an open private-key match is being extended
	contRule  RuleID
	contStart int64
	contPos   int64
	contCS    ChecksumResult

	v view // the view handed to checks (a field so that it does not escape per hit)

	vw detView // the detection view of the current string (view.go)

	// Every occurrence (repeats): the secrets committed so far on the
	// current line of the string; each later occurrence of the same bytes
	// on that line is a match of the same rule, context or not
	// (token = 'v' | 'v').
	reps []repeat
	seam [2 * repMaxLen]byte // a repeat's occurrences across the held bytes and src

	// Current call.
	src     []byte
	srcBase int64
	final   bool

	// Member-name context (context_value.go): string[ctxLo:ctxHi] is the
	// value; the synthetic prefix before it and the closing quote after it
	// are scanned but never emitted or reported. ctxLo is 0 and ctxHi
	// maxOffset without a context.
	ctxLo, ctxHi int64
	pre          []byte // the synthetic prefix
	join         []byte // the value's last bytes and the closing quote
}

// NewRedactor returns a Redactor using this catalog. fingerprintKey keys the
// HMAC of Finding.Fingerprint; it is copied.
func (c *Catalog) NewRedactor(fingerprintKey []byte) *Redactor {
	k := append([]byte(nil), fingerprintKey...)
	r := &Redactor{c: c, mac: hmac.New(sha256.New, k), key: k, rs: -1, buf: make([]byte, 0, 512), hits: make([]acRec, hitBufLen), ctxHi: maxOffset}
	r.vw.skel = !c.noSkel
	return r
}

func (c *Catalog) newRedactorNoKey() *Redactor { return c.NewRedactor(nil) }

// Reset starts a new string. Buffers are kept; no allocation.
func (r *Redactor) Reset() {
	if r.fresh {
		// Nothing changed since the last Reset (only Append and a
		// context change what it resets): the pipeline resets before
		// every string, and most strings (short ones the redactor passed
		// without an Append, strings whose final Append ended in a
		// Reset) leave it as it was.
		return
	}
	// Field by field: a whole-struct copy costs write barriers on every
	// pointer field, and Reset runs once per string.
	r.off, r.bufBase, r.scan, r.hint, r.out, r.lastEnd = 0, 0, 0, 0, 0, 0
	r.buf = r.buf[:0]
	r.cands = r.cands[:0]
	r.state = 0
	r.pending, r.pendItem = false, 0
	r.cont, r.contRule, r.contStart, r.contPos, r.contCS = false, 0, 0, 0, ChecksumNone
	r.rs, r.rpad, r.rlong = -1, 0, false
	r.v = view{}
	r.src, r.srcBase, r.final = nil, 0, false
	r.ctxLo, r.ctxHi = 0, maxOffset
	r.reps = r.reps[:0]
	r.vw.reset()
	// Inside a final Append whose view is kept for restoring, the view is
	// not reset: the next Reset does it.
	r.fresh = !r.vw.keep
}

// Append consumes src (normalized UTF-8 text; it may be split at any byte,
// even inside a rune) and appends to dst the text that is now final: no later
// input can change it. It holds back only bytes that a match could still
// cover or that a check still needs (at most MaxHold). final=true flushes
// everything and resets the Redactor for the next string. Confirmed matches
// are replaced by markers and reported by appending to fs, in order of
// offset.
func (r *Redactor) Append(dst, src []byte, final bool, fs []Finding) ([]byte, []Finding) {
	r.fresh = false
	w := &r.vw
	if r.c.noView {
		w.ascii = false
		return r.appendScan(dst, src, final, fs)
	}
	if w.ascii && w.nhold == 0 && !w.mapped() {
		k := bytes.IndexByte(src, '&')
		if k < 0 {
			// ASCII without '&', nothing held and no earlier part of the
			// string viewed differently: the view of src is src.
			w.ascii = false
			return r.appendScan(dst, src, final, fs)
		}
		// build starts from this '&' instead of searching src again.
		w.amp0 = k + 1
	}
	return r.appendViewed(dst, src, final, fs)
}

// appendScan is Append on the text the rules see: the detection view of
// the text given (view.go), or that text itself.
func (r *Redactor) appendScan(dst, src []byte, final bool, fs []Finding) ([]byte, []Finding) {
	r.spans, r.marks, r.dst0 = r.spans[:0], r.marks[:0], len(dst)
	if final && r.off == 0 && r.ctxLo == 0 && len(src) <= cleanMax && r.runFree(src) {
		// cleanWhole: a whole short string without a member-name context
		// (a member name, a path, a snippet) in which no stretch of run
		// bytes is long enough to decode (runFree) and no keyword ends (or
		// each one that does is ruled out by its form's pre-checks):
		// nothing can match, so it is written as it is, and the Redactor
		// stays as Reset left it. This is what the general path does for
		// it, without its bookkeeping: on structured results, with many
		// short member names and values, it was a tenth of the pass.
		st, n := r.c.ac.run(r.state, src)
		if n < len(src) || st >= r.c.ac.matchMin {
			st, n = r.c.firstLiveHit(st, src, n)
		} else {
			n = -1
		}
		if n < 0 {
			if len(src) > 0 {
				r.spans = append(r.spans, Span{Out: 0, Lo: 0, Hi: int64(len(src))})
			}
			return append(dst, src...), fs
		}
		// A keyword hit no pre-check rules out ends at src[n-1]: the
		// general path goes on from it, with that hit's checks pending,
		// as scanBlock leaves it there (the hits before it are all ruled
		// out: their checks would not have run). The walk is not made
		// twice.
		r.scan, r.state = int64(n), st
		r.pending, r.pendItem, r.hint = true, 0, -1
	}
	if final && r.ctxLo > 0 {
		// A value with a member-name context ends with the synthetic
		// closing quote: scanned like the rest, never emitted. A short
		// last piece is joined with it (one call instead of two: the
		// same result, as for any split).
		r.ctxHi = r.off + int64(len(src))
		if len(src) <= ctxJoinMax {
			r.join = append(append(r.join[:0], src...), '"')
			return r.appendPart(dst, r.join, true, fs)
		}
		dst, fs = r.appendPart(dst, src, false, fs)
		return r.appendPart(dst, closeQuote, true, fs)
	}
	return r.appendPart(dst, src, final, fs)
}

func (r *Redactor) appendPart(dst, src []byte, final bool, fs []Finding) ([]byte, []Finding) {
	r.src, r.srcBase, r.final = src, r.off, final
	end := r.off + int64(len(src))
	r.off = end
	// A string that ends shorter than decodeMinRun holds no run to decode:
	// the short strings of structured results skip the run search.
	if r.c.decode && r.depth < r.c.maxDepth && !(final && end < decodeMinRun) {
		r.trackRuns(src, final)
	}
	for {
		if r.pending && !r.checkHit(end) {
			break
		}
		if r.scan >= end || !r.scanBlock(end) {
			break
		}
	}
	dst, fs = r.settle(dst, fs, end)
	r.keep(end)
	r.src = nil
	if final {
		r.Reset()
	}
	return dst, fs
}

// Released returns how many bytes of the current value (the text given to
// Append since the last Reset, without a member-name context's synthetic
// prefix and quote) the output so far accounts for: written as they were,
// or covered by a match. Between the calls of one string; 0 after a final
// Append.
func (r *Redactor) Released() int64 {
	return max(0, r.vw.textOff(min(r.out, r.ctxHi))-r.ctxLo)
}

// A Span is a stretch of what an Append wrote that is the value's text as
// it was: the Span's Hi-Lo bytes at Out (counted from where that Append
// began writing) are value[Lo:Hi], with value offsets as Released counts
// them. What lies between the Spans of an Append is markers.
type Span struct {
	Out    int
	Lo, Hi int64
}

// Spans returns the Spans of the last Append, in order. The slice is
// reused by the next Append.
func (r *Redactor) Spans() []Span { return r.spans }

// Held returns the number of bytes held back since the last Append.
func (r *Redactor) Held() int { return len(r.buf) + r.vw.nhold }

// keywordFree reports whether no keyword ends in the whole string src walked
// from the current state, or each one that does is ruled out by the
// pre-checks of its forms (hitfilter.go).
func (r *Redactor) keywordFree(src []byte) bool {
	s, n := r.c.ac.run(r.state, src)
	return n == len(src) && s < r.c.ac.matchMin || r.c.hitsRuledOut(s, src, n)
}

func (r *Redactor) bufEnd() int64 { return r.bufBase + int64(len(r.buf)) }

// seg returns the longest contiguous run of input starting at p.
func (r *Redactor) seg(p int64) []byte {
	if p < r.bufEnd() {
		return r.buf[p-r.bufBase:]
	}
	return r.src[p-r.srcBase:]
}

// window returns string[lo:hi] contiguously, copying the needed part of src
// behind the held bytes when the range starts in them.
func (r *Redactor) window(lo, hi int64) []byte {
	if lo >= r.srcBase {
		return r.src[lo-r.srcBase : hi-r.srcBase]
	}
	if e := r.bufEnd(); hi > e {
		r.buf = append(r.buf, r.src[e-r.srcBase:hi-r.srcBase]...)
	}
	return r.buf[lo-r.bufBase : hi-r.bufBase]
}

// emit appends string[lo:hi] to dst, but only the part that lies in the
// value (a member-name context's prefix and closing quote are never output).
func (r *Redactor) emit(dst []byte, lo, hi int64) []byte {
	lo, hi = max(lo, r.ctxLo), min(hi, r.ctxHi)
	if lo >= hi {
		return dst
	}
	r.spans = append(r.spans, Span{Out: len(dst) - r.dst0, Lo: lo - r.ctxLo, Hi: hi - r.ctxLo})
	if e := r.bufEnd(); lo < e {
		dst = append(dst, r.buf[lo-r.bufBase:min(hi, e)-r.bufBase]...)
		lo = e
	}
	if lo < hi {
		dst = append(dst, r.src[lo-r.srcBase:hi-r.srcBase]...)
	}
	return dst
}

// hashRange feeds string[lo:hi] to the fingerprint HMAC, clipped to the
// value like emit.
func (r *Redactor) hashRange(lo, hi int64) {
	lo, hi = max(lo, r.ctxLo), min(hi, r.ctxHi)
	if lo >= hi {
		return
	}
	if e := r.bufEnd(); lo < e {
		r.mac.Write(r.buf[lo-r.bufBase : min(hi, e)-r.bufBase])
		lo = e
	}
	if lo < hi {
		r.mac.Write(r.src[lo-r.srcBase : hi-r.srcBase])
	}
}

// scanBlock runs the automaton over the next block of input and checks its
// hits in order. It returns false if a check paused scanning at its hit.
func (r *Redactor) scanBlock(end int64) bool {
	base := r.scan
	st, n, hits := r.c.ac.collect(r.state, r.seg(base), r.hits)
	for _, h := range hits {
		r.scan, r.state = base+int64(h.pos)+1, h.state
		r.pending, r.pendItem, r.hint = true, 0, -1
		if !r.checkHit(end) {
			return false
		}
	}
	r.scan, r.state = base+int64(n), st
	return true
}

// escapeBefore reports a JSON escape of a line break or tab (\n, \t, \r)
// just before offset ks, which is no word the keyword is glued to (the
// check decides, jsonEscapeBefore).
func (r *Redactor) escapeBefore(ks int64) bool {
	if ks < 2 || r.byteAt(ks-2) != '\\' {
		return false
	}
	switch r.byteAt(ks - 1) {
	case 'n', 't', 'r':
		return true
	}
	return false
}

// byteAt returns the input byte at offset p (held or in src).
func (r *Redactor) byteAt(p int64) byte {
	if p >= r.srcBase {
		return r.src[p-r.srcBase]
	}
	return r.buf[p-r.bufBase]
}

// checkHit evaluates the pending hit's remaining items. It returns false if a
// check needs bytes that have not arrived yet.
// afterSpaceLook bounds how far afterSpaceOK looks past whitespace.
const afterSpaceLook = 64

// afterSpaceOK reports whether the first byte after the whitespace that
// follows the current hit may go on a match of a form with afterSpace set:
// true when it is in the set, and when it is not there yet or the
// whitespace runs on past afterSpaceLook (the check decides). *ws is the
// end of that whitespace, or -1 when checkHit has not asked yet: the
// items of one hit share it (indented JSON puts a dozen spaces after
// every "key": that ends a keyword, and several forms ask).
func (r *Redactor) afterSpaceOK(set *byteSet, end int64, ws *int64) bool {
	lim := min(end, r.scan+afterSpaceLook)
	if *ws < 0 {
		*ws = r.spaceEnd(lim)
	}
	p := *ws
	return p == lim || set[r.byteAt(p)]
}

// spaceEnd returns the offset of the first byte from r.scan on that is not
// whitespace, or lim: a loop over src where the bytes are there, byteAt for
// the held ones.
func (r *Redactor) spaceEnd(lim int64) int64 {
	p := r.scan
	if p >= r.srcBase && lim > p {
		s := r.src[p-r.srcBase : min(lim-r.srcBase, int64(len(r.src)))]
		k := 0
		for k < len(s) && setSpace[s[k]] {
			k++
		}
		if k < len(s) {
			return p + int64(k)
		}
		p += int64(k)
	}
	for p < lim && setSpace[r.byteAt(p)] {
		p++
	}
	return p
}

func (r *Redactor) checkHit(end int64) bool {
	c := r.c
	items := c.items[c.ac.stateIndex(r.state)]
	ws := int64(-1)
	for ; r.pendItem < len(items); r.pendItem++ {
		it := &items[r.pendItem]
		f := it.form
		ks := r.scan - int64(it.kwLen)
		if f.notBefore != nil && ks > 0 && f.notBefore[r.byteAt(ks-1)] && !r.escapeBefore(ks) || f.tokenOnly && ks < r.ctxLo {
			continue
		}
		if f.fixed {
			if p := r.scan + int64(f.fixedAt); p < end && r.byteAt(p) != f.fixedByte {
				continue
			}
		}
		if it.wsEnd && f.afterSpace != nil && !r.afterSpaceOK(f.afterSpace, end, &ws) {
			continue
		}
		lo := max(0, ks-int64(f.back))
		hi := min(end, ks+int64(f.ahead))
		r.v = view{data: r.window(lo, hi), base: lo, atEnd: r.final && hi == end, hint: &r.hint}
		v := &r.v
		res := f.check(v, int(ks-lo), int(r.scan-lo))
		switch res.status {
		case resMore:
			if hi < end || r.final {
				// The check wants more than its declared ahead: a rule
				// bug. Treat as no match rather than stall.
				break
			}
			return false
		case resMatch:
			if res.cs == ChecksumInvalid && c.keepInvalid {
				break
			}
			if len(c.allow) != 0 {
				if _, ok := c.allow[string(v.data[res.start:res.end])]; ok {
					break
				}
			}
			r.addCand(candidate{start: lo + int64(res.start), end: lo + int64(res.end), rule: it.rule, cs: res.cs})
		case resOpen:
			r.addCand(candidate{start: lo + int64(res.start), end: lo + int64(res.end), rule: it.rule, cs: res.cs, open: true})
		}
		r.hint = -1
	}
	r.pending = false
	return true
}

// addCand inserts in (start, open first, longer first, rule) order.
func (r *Redactor) addCand(x candidate) {
	r.cands = append(r.cands, x)
	i := len(r.cands) - 1
	for ; i > 0 && candLess(&x, &r.cands[i-1]); i-- {
		r.cands[i] = r.cands[i-1]
	}
	r.cands[i] = x
}

func candLess(a, b *candidate) bool {
	if a.start != b.start {
		return a.start < b.start
	}
	if a.open != b.open {
		return a.open
	}
	if a.end != b.end {
		return a.end > b.end
	}
	if a.enc != b.enc {
		return a.enc < b.enc // a rule matching the text itself before decoding
	}
	return a.rule < b.rule
}

// frontier is the earliest offset at which a match not yet known could
// start: everything before it is decided.
func (r *Redactor) frontier(end int64) int64 {
	if r.final && !r.pending && r.scan >= end {
		return end
	}
	d := int64(r.c.ac.depth[r.c.ac.stateIndex(r.state)])
	f := max(0, r.scan-d-int64(r.c.maxBack))
	if r.rs >= 0 {
		f = min(f, r.rwin) // an open run (its current window) may still become a match
	}
	for i := range r.reps {
		f = min(f, r.reps[i].pos) // a repeat may still start there
	}
	return f
}

// settle extends an open private-key match, commits decided candidates and
// emits final text. A committed secret becomes a repeat (addRep); its later
// occurrences are searched before anything after it is committed.
func (r *Redactor) settle(dst []byte, fs []Finding, end int64) ([]byte, []Finding) {
	for {
		r.searchReps(end)
		var again bool
		dst, fs, again = r.commit(dst, fs, end)
		if !again {
			break
		}
	}
	if front := r.frontier(end); !r.cont && front > r.out {
		dst = r.emit(dst, r.out, front)
		r.out = front
	}
	return dst, fs
}

// commit commits the candidates before the frontier; again reports that it
// stopped after a new repeat, whose occurrences must be searched first.
func (r *Redactor) commit(dst []byte, fs []Finding, end int64) (_ []byte, _ []Finding, again bool) {
	front := r.frontier(end)
	head := 0
	for !again {
		if r.cont {
			fs = r.extend(fs, end)
		}
		limit := front
		if r.cont {
			limit = min(limit, r.contPos)
		}
		opened := false
		for head < len(r.cands) && r.cands[head].start < limit {
			x := r.cands[head]
			head++
			if r.cont || x.start < r.lastEnd {
				continue // inside a committed match
			}
			dst = r.emit(dst, r.out, x.start)
			// A match is replaced and reported as far as it covers the
			// value (all of it without a member-name context); one that
			// lies wholly in the synthetic prefix or closing quote is
			// resolved like any other but leaves no trace. An open
			// private-key match always reaches the value: its window is
			// longer than any prefix.
			vs, ve := max(x.start, r.ctxLo), min(x.end, r.ctxHi)
			if ve <= vs && !x.open {
				r.out, r.lastEnd = x.end, x.end
				continue
			}
			rule := r.c.rules[x.rule]
			// hashed: r.mac holds this plain match's fingerprint state
			// (suppressed hashed it), so it is not hashed a second time.
			hashed := false
			if r.suppress != nil && rule.kind == KindSecret && !x.open {
				if r.suppressed(&x, rule) {
					// Kept by policy: the bytes stay, the finding says so.
					dst = r.emit(dst, x.start, x.end)
					fs = append(fs, Finding{Rule: x.rule, Kind: KindSecret, Offset: vs - r.ctxLo, Length: int(ve - vs), Checksum: x.cs, Encoding: x.enc, Fingerprint: x.fp, Suppressed: true})
					r.out, r.lastEnd = x.end, x.end
					continue
				}
				hashed = x.enc == EncodingNone
			}
			r.marks = append(r.marks, Mark{Out: len(dst) - r.dst0, At: vs - r.ctxLo})
			dst = append(dst, r.c.markers[x.rule]...)
			if rule.kind == KindTag {
				fs = append(fs, Finding{Rule: x.rule, Kind: KindTag, Offset: vs - r.ctxLo, Length: int(ve - vs)})
				r.out, r.lastEnd = x.end, x.end
				continue
			}
			if x.enc != EncodingNone {
				f := Finding{Rule: x.rule, Kind: KindSecret, Offset: vs - r.ctxLo, Length: int(ve - vs), Checksum: x.cs, Encoding: x.enc, Fingerprint: x.fp}
				fs = append(fs, f)
				r.out, r.lastEnd = x.end, x.end
				continue
			}
			if !hashed {
				r.mac.Reset()
				r.mac.Write([]byte(rule.id))
				r.mac.Write([]byte{0})
				r.hashRange(x.start, x.end)
			}
			if x.open {
				r.cont, r.contRule, r.contStart, r.contPos, r.contCS = true, x.rule, x.start, x.end, x.cs
				r.out, r.lastEnd = x.end, x.end
				opened = true
				break
			}
			fs = append(fs, r.finding(x.rule, x.start, x.end, x.cs))
			r.out, r.lastEnd = x.end, x.end
			if r.addRep(x) {
				again = true
				break
			}
		}
		if !opened {
			break
		}
	}
	// Drop the consumed candidates, keep capacity.
	n := copy(r.cands, r.cands[head:])
	r.cands = r.cands[:n]
	return dst, fs, again
}

// SetSuppress installs f, asked about every secret match before it is
// replaced (with the match's rule and fingerprint, the one its Finding would
// carry): when f returns true the match is kept as it is and reported with
// Finding.Suppressed. nil (the default) suppresses nothing. An open
// private-key match (one whose END is beyond the window) is never kept.
// Reset keeps f.
func (r *Redactor) SetSuppress(f func(rule RuleID, fingerprint [16]byte) bool) { r.suppress = f }

// suppressed computes x's fingerprint into x.fp (for a plain match; an
// encoded one has it) and asks r.suppress.
func (r *Redactor) suppressed(x *candidate, rule *ruleDef) bool {
	if x.enc == EncodingNone {
		r.mac.Reset()
		r.mac.Write([]byte(rule.id))
		r.mac.Write([]byte{0})
		r.hashRange(x.start, x.end)
		copy(x.fp[:], r.mac.Sum(r.sum[:0]))
	}
	return r.suppress(x.rule, x.fp)
}

// Repeats: at most repMax per string, of repMinLen..repMaxLen bytes.
const (
	repMax    = 16
	repMinLen = 8
	repMaxLen = 1024 // as long as the longest assigned value (ctxMaxValue)
)

// repeat is a committed secret whose later occurrences up to the end of its
// line are matches: b its bytes, pos the first start not yet searched.
type repeat struct {
	b       []byte
	rule    RuleID
	cs      ChecksumResult
	pos     int64
	done    bool  // its line has ended at lineEnd (a line feed)
	lineEnd int64 // set when done
}

// addRep makes the committed secret x a repeat, unless there are repMax
// (on lines not yet ended) already, its length is out of range or the same
// bytes are one.
func (r *Redactor) addRep(x candidate) bool {
	// Repeats whose line ended before x are over.
	for i := 0; i < len(r.reps); {
		if rp := &r.reps[i]; rp.done && rp.lineEnd <= x.start {
			last := len(r.reps) - 1
			r.reps[i], r.reps[last] = r.reps[last], r.reps[i]
			r.reps = r.reps[:last]
			continue
		}
		i++
	}
	n := x.end - x.start
	if len(r.reps) >= repMax || n < repMinLen || n > repMaxLen {
		return false
	}
	b := r.window(x.start, x.end)
	for i := range r.reps {
		if string(r.reps[i].b) == string(b) {
			return false
		}
	}
	k := len(r.reps)
	if k < cap(r.reps) {
		r.reps = r.reps[:k+1]
		r.reps[k].b = append(r.reps[k].b[:0], b...)
	} else {
		r.reps = append(r.reps, repeat{b: append([]byte(nil), b...)})
	}
	r.reps[k].rule, r.reps[k].cs, r.reps[k].pos, r.reps[k].done = x.rule, x.cs, x.end, false
	return true
}

// searchReps adds a candidate for every occurrence of a repeat that starts
// at or after its pos, ends before the line feed that ends its line, and
// lies in the input so far; a repeat whose line has ended is dropped. It
// reads the held bytes and src where they are (no copy of src behind the
// held bytes: that would grow the hold with the input).
func (r *Redactor) searchReps(end int64) {
	for i := 0; i < len(r.reps); {
		rp := &r.reps[i]
		if rp.done {
			i++
			continue
		}
		n := int64(len(rp.b))
		nl := r.indexLF(rp.pos, end)
		hi := end
		if nl >= 0 {
			hi = nl
		}
		if rp.pos+n <= hi {
			lo := rp.pos
			if lo < r.srcBase {
				// Wholly in the held bytes before src.
				r.findRep(rp, r.buf[lo-r.bufBase:min(hi, r.srcBase)-r.bufBase], lo)
				// Straddling the seam: starts in [srcBase-n+1, srcBase).
				a := max(lo, r.srcBase-n+1)
				b := min(r.srcBase+n-1, hi)
				if a < r.srcBase && b-a >= n {
					k := copy(r.seam[:], r.buf[a-r.bufBase:r.srcBase-r.bufBase])
					k += copy(r.seam[k:], r.src[:b-r.srcBase])
					r.findRep(rp, r.seam[:k], a)
				}
				lo = r.srcBase
			}
			if lo < hi {
				r.findRep(rp, r.src[lo-r.srcBase:hi-r.srcBase], lo)
			}
		}
		if nl >= 0 {
			// Its line is over: searched to its end, it holds nothing back;
			// addRep drops it once a later line's secret is committed.
			rp.done, rp.lineEnd, rp.pos = true, nl, maxOffset
		} else {
			rp.pos = max(rp.pos, end-n+1)
		}
		i++
	}
}

// indexLF returns the offset of the first line feed in string[lo:end), or -1.
func (r *Redactor) indexLF(lo, end int64) int64 {
	if lo < r.srcBase {
		if j := bytes.IndexByte(r.buf[lo-r.bufBase:r.srcBase-r.bufBase], '\n'); j >= 0 {
			return lo + int64(j)
		}
		lo = r.srcBase
	}
	if lo < end {
		if j := bytes.IndexByte(r.src[lo-r.srcBase:end-r.srcBase], '\n'); j >= 0 {
			return lo + int64(j)
		}
	}
	return -1
}

// findRep adds a candidate for each occurrence of rp in w (string[base:]),
// once per start: a start already searched in a previous part is skipped by
// the callers' ranges.
func (r *Redactor) findRep(rp *repeat, w []byte, base int64) {
	for off := 0; off+len(rp.b) <= len(w); {
		j := bytes.Index(w[off:], rp.b)
		if j < 0 {
			return
		}
		p := base + int64(off+j)
		r.addCand(candidate{start: p, end: p + int64(len(rp.b)), rule: rp.rule, cs: rp.cs})
		off += j + 1
	}
}

func (r *Redactor) finding(id RuleID, start, end int64, cs ChecksumResult) Finding {
	start, end = max(start, r.ctxLo), min(end, r.ctxHi)
	f := Finding{Rule: id, Kind: KindSecret, Offset: start - r.ctxLo, Length: int(end - start), Checksum: cs}
	copy(f.Fingerprint[:], r.mac.Sum(r.sum[:0]))
	return f
}

// extend advances the open private-key match over the input that is there;
// see pemContinue for what it covers.
func (r *Redactor) extend(fs []Finding, end int64) []Finding {
	for r.cont {
		lo := r.contPos
		hi := end
		if lo < r.srcBase {
			hi = min(end, max(r.bufEnd(), lo+128))
		}
		d := r.window(lo, hi)
		next, done := pemContinue(d, 0, r.final && hi == end)
		r.hashRange(lo, lo+int64(next))
		r.contPos = lo + int64(next)
		if done {
			r.cont = false
			r.out, r.lastEnd = r.contPos, r.contPos
			fs = append(fs, r.finding(r.contRule, r.contStart, r.contPos, r.contCS))
			break
		}
		if hi == end {
			break
		}
	}
	return fs
}

// keep moves the bytes still needed into buf.
func (r *Redactor) keep(end int64) {
	from := min(r.frontier(end), r.out)
	if r.cont {
		from = min(from, r.contPos)
	}
	if r.final {
		from = end
	}
	if e := r.bufEnd(); from < e {
		n := copy(r.buf, r.buf[from-r.bufBase:])
		r.buf = r.buf[:n]
		r.buf = append(r.buf, r.src[e-r.srcBase:]...)
	} else {
		r.buf = append(r.buf[:0], r.src[from-r.srcBase:]...)
	}
	r.bufBase = from
}
