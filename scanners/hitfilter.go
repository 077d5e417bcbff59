package scanners

// Pre-checks of a whole short string. A member name or a short value in
// which a keyword ends takes the general path of the Redactor (a view, a
// check per item, the settle and keep bookkeeping) even when every item of
// every hit is one the Redactor rejects before calling its check: "path" holds
// the "pat" of Airtable tokens, whose '.' must come 14 bytes on, and
// structured results repeat such names in every record. hitsRuledOut lets the
// short-string path of Append (keywordFree) skip those strings too.

// hitsRuledOut goes on with the walk of the whole string s from state st
// after its first i bytes, the last of which ended a keyword (st has
// outputs), and reports whether every item of every keyword hit in s fails
// a pre-check of its form (notBefore, fixed, afterSpace) on s alone: then no
// check can match in s and the Redactor writes it as it is. s must be a
// whole string without a member-name context (ResetWithContext gives one a
// prefix that the walk would not see), as the short-string path of Append
// has it.
func (c *Catalog) hitsRuledOut(st uint32, s []byte, i int) bool {
	_, i = c.firstLiveHit(st, s, i)
	return i < 0
}

// firstLiveHit is hitsRuledOut that also says where it stopped: at the
// first keyword hit with an item no pre-check rules out, the state after
// its last byte and the number of bytes of s walked (i, st of that hit,
// as automaton.run returns them), or i -1 when there is none. Every hit
// before it is ruled out, so the Redactor may begin its checks there
// (Redactor.appendScan).
func (c *Catalog) firstLiveHit(st uint32, s []byte, i int) (uint32, int) {
	a := c.ac
	for {
		items := c.items[a.stateIndex(st)]
		for k := range items {
			if !itemRuledOut(&items[k], s, i) {
				return st, i
			}
		}
		if i == len(s) {
			return st, -1
		}
		var n int
		st, n = a.run(st, s[i:])
		if i += n; st < a.matchMin {
			return st, -1 // i == len(s): no keyword ends in the rest
		}
	}
}

// itemRuledOut reports whether the item's form rejects its keyword ending
// right before s[ke] by a pre-check on the whole string s: the same tests as
// Redactor.checkHit makes before it calls check, where the end of s is the
// end of the string. A fixed byte past the end of s rules the hit out too:
// the form's match needs that byte (rules_token.go, form.fixed).
func itemRuledOut(it *hitItem, s []byte, ke int) bool {
	f := it.form
	ks := ke - int(it.kwLen)
	if f.notBefore != nil && ks > 0 && f.notBefore[s[ks-1]] {
		if !(ks >= 2 && s[ks-2] == '\\' && (s[ks-1] == 'n' || s[ks-1] == 't' || s[ks-1] == 'r')) {
			return true
		}
	}
	if f.fixed {
		if p := ke + f.fixedAt; p >= len(s) || s[p] != f.fixedByte {
			return true
		}
	}
	if it.wsEnd && f.afterSpace != nil {
		p, lim := ke, min(len(s), ke+afterSpaceLook)
		for p < lim && setSpace[s[p]] {
			p++
		}
		if p < lim && !f.afterSpace[s[p]] {
			return true
		}
	}
	return false
}
