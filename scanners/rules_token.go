package scanners

import (
	"bytes"
	"math/bits"
	"regexp"
	"strings"
)

// This file holds the machinery rules are declared with. A rule is a stable
// id, some metadata, one or more forms, and example tables. A form owns
// keywords and a check: on every occurrence of one of its keywords the check
// looks at the text around the occurrence and says whether a match starts
// and ends there.
//
// A check sees a window of the string (a view) and must be a pure function of
// the string: if it needs bytes beyond the view and the view does not reach
// the end of the string, it answers resMore and is called again with more
// bytes. To keep the Redactor's hold-back bounded each form declares how far
// before the keyword start (back) and after it (ahead) it may read.

// ruleDef is a rule declaration.
type ruleDef struct {
	id         string
	provider   string
	kind       Kind
	confidence string
	desc       string
	forms      []form
	// examples returns the examples checked by TestRuleExamples: each tp
	// must be found (as the whole string, or inside the surrounding text
	// when it contains a space), each fp must not. They serve the tests and
	// the rules doc only, so they are built when asked for, not with the
	// rule: building them (fake keys, concatenations) in every process was
	// a sixth of a scan's start-up of our own code.
	examples func() (tp, fp []string)
}

// exampleLists returns r's examples (none when r declares none, as a
// custom rule).
func (r *ruleDef) exampleLists() (tp, fp []string) {
	if r.examples == nil {
		return nil, nil
	}
	return r.examples()
}

// form is one way a rule can match.
type form struct {
	keywords []string // ASCII, matched case-insensitively
	back     int      // bytes before the keyword start the check reads (>= 1 for a boundary)
	ahead    int      // bytes from the keyword start the check reads at most
	check    func(v *view, ks, ke int) result
	// notBefore, if set, lets the Redactor reject a hit without calling
	// check when the byte before the keyword is in it (check must reject
	// those too): "task-" never costs a call of the sk- rules.
	notBefore *byteSet
	// tokenOnly says every match of the form starts at its keyword (a
	// token with a prefix): a keyword in a member name then only matches in
	// the name, which is scanned on its own, so the name gives no context
	// (see context_value.go) and such hits in the prefix are skipped.
	tokenOnly bool
	// fixed, if set, says a match needs fixedByte fixedAt bytes after the
	// keyword's end: the Redactor rejects a hit without calling check when
	// the string holds another byte there, or (a whole short string,
	// hitfilter.go) ends before it (check must reject those too): the
	// Airtable keyword "pat" hits every "path", and its token has a '.' 14
	// bytes on.
	fixed     bool
	fixedAt   int
	fixedByte byte
	// afterSpace, if set, lets the Redactor reject a hit of a keyword that
	// ends with whitespace without calling check when the first byte after
	// that whitespace is not in it (check must reject those too): the
	// triggers of tags and chat-template markers include an opener and two
	// whitespace bytes, and "[\n  " opens every pretty-printed JSON array.
	afterSpace *byteSet
	// pattern is regexForm's regexp, compiled on first use (nil for other
	// forms); kept here so that a test can compile every one.
	pattern *lazyRegexp
}

// view is a window of the string being scanned.
type view struct {
	data  []byte
	base  int64 // offset of data[0] in the string
	atEnd bool  // data ends where the string ends
	// hint, if not nil, lets a check that is asked again about the same hit
	// (with more data) remember how far it already searched (an offset in
	// the string). Only an optimization: results must not depend on it.
	hint *int64
}

// more reports whether the check must wait: index i is past the data and the
// string goes on.
func (v *view) more(i int) bool { return i >= len(v.data) && !v.atEnd }

type resStatus uint8

const (
	resNo    resStatus = iota // no match at this hit
	resMatch                  // match [start, end)
	resMore                   // need more bytes
	resOpen                   // match from start whose end lies beyond end (private-key continuation)
)

// result is what a check answers; start and end are indexes into view.data.
type result struct {
	status     resStatus
	start, end int
	cs         ChecksumResult
}

var noMatch = result{}

// byteSet is a set of bytes; indexing by a byte needs no bounds check.
type byteSet [256]bool

func makeSet(spec string) *byteSet {
	var s byteSet
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for c := int(spec[i]); c <= int(spec[i+2]); c++ {
				s[c] = true
			}
			i += 2
			continue
		}
		s[spec[i]] = true
	}
	return &s
}

func union(sets ...*byteSet) *byteSet {
	var s byteSet
	for _, x := range sets {
		for i, ok := range x {
			if ok {
				s[i] = true
			}
		}
	}
	return &s
}

// Character sets shared by rules.
var (
	setAlnum     = makeSet("A-Za-z0-9")
	setWord      = makeSet("A-Za-z0-9_")
	setWordDash  = makeSet("A-Za-z0-9_-")
	setBase64    = makeSet("A-Za-z0-9+/")
	setBase64Pad = makeSet("A-Za-z0-9+/=")
	setUpperB32  = makeSet("A-Z2-7")
	setLetters   = makeSet("A-Za-z")
	setSpace     = makeSet("\t\n\f\r ") // RE2 \s
)

// tokenSpec declares the common shape "literal prefix, then a run of body
// bytes": prefix must match exactly (case-sensitive unless fold), must not
// be preceded by a byte of notBefore, the body is the maximal run of body
// bytes (min..max long), and the byte after it must not be in notAfter. A
// validate func can check structure and checksums on the body. A token whose
// checksum is valid is unmistakable: it matches even when notBefore would
// reject it (glued to a preceding word, as in "x" + a GitHub token).
type tokenSpec struct {
	prefixes  []string
	fold      bool
	body      *byteSet
	min, max  int
	notBefore *byteSet // default: body ∪ [A-Za-z0-9_]
	notAfter  *byteSet // default: body ∪ [A-Za-z0-9_]
	validate  func(body []byte) (bool, ChecksumResult)
	// floor marks a shape the seed's guard removes whatever its body looks
	// like (sk-, ghp_; see seedFloorBody): no placeholder filter, and a
	// body glued to a preceding word or longer than max still matches (up
	// to max), as the seed's unanchored, unbounded pattern does. validate
	// may still report a checksum but must accept every body.
	floor bool
}

func (t tokenSpec) form() form {
	if t.notBefore == nil || t.notAfter == nil {
		// One set for both defaults (sets are never written once made).
		u := union(t.body, setWord)
		if t.notBefore == nil {
			t.notBefore = u
		}
		if t.notAfter == nil {
			t.notAfter = u
		}
	}
	longest := 0
	var kws []string
	for _, p := range t.prefixes {
		if len(p) > longest {
			longest = len(p)
		}
		if kw := strings.ToLower(p); !containsString(kws, kw) {
			kws = append(kws, kw)
		}
	}
	f := form{keywords: kws, back: max(fileNameBack, escapeBack), ahead: longest + t.max + fileNameLook, check: t.check, notBefore: t.notBefore, tokenOnly: true}
	if t.validate != nil || t.floor {
		f.notBefore = nil // check decides: a valid checksum overrides it
	}
	return f
}

func (t *tokenSpec) check(v *view, ks, ke int) result {
	d := v.data
	pre := d[ks:ke]
	glued := ks > 0 && t.notBefore[d[ks-1]] && !jsonEscapeBefore(d, ks)
	if !prefixIs(t.prefixes, t.fold, pre) || glued && t.validate == nil && !t.floor {
		return noMatch
	}
	i, lim := ke, ke+t.max
	for i < len(d) && i <= lim && t.body[d[i]] {
		i++
	}
	if t.floor {
		return t.floorMatch(v, ks, ke, min(i, lim), glued)
	}
	if i > lim {
		return noMatch // longer than any such token: something else
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if i-ke < t.min || i < len(d) && t.notAfter[d[i]] {
		return noMatch
	}
	if i < len(d) && d[i] == '.' && v.more(i+fileNameLook-1) {
		return result{status: resMore} // an extension may follow (fileNamePart)
	}
	res := t.finish(d[ke:i], glued, ks, i)
	if res.status == resMatch && res.cs != ChecksumValid && fileNamePart(d, ks, i) {
		return noMatch // the hash part of a file name
	}
	return res
}

// floorMatch ends a floor token whose body is d[ke:i]: a match whatever the
// body looks like, except, for a prefix ending in '-' (sk-), a lower-case
// body glued to a preceding letter or digit (seedGluedWord).
func (t *tokenSpec) floorMatch(v *view, ks, ke, i int, glued bool) result {
	d := v.data
	if v.more(i) {
		return result{status: resMore}
	}
	if i-ke < t.min || glued && d[ke-1] == '-' && seedGluedWord(d[ks-1], d[ke:i]) {
		return noMatch
	}
	cs := ChecksumNone
	if t.validate != nil {
		_, cs = t.validate(d[ke:i])
	}
	return result{status: resMatch, start: ks, end: i, cs: cs}
}

// seedGluedWord reports a floor token that is the tail of a lower-case
// identifier: the prefix follows a letter or digit (not '_' or '-') and the
// body has no upper-case letter ("task-runner-deployment-7d9f8b6c5",
// "disk-cleanup-cronjob-28391234"). The seed's pattern has no left boundary
// and removes the "sk-…" of those words too; this is the one place the
// catalog keeps less than the seed removes, because a kebab-case name is no
// credential slot and real keys of these shapes mix cases.
func seedGluedWord(before byte, body []byte) bool {
	if !setAlnum[before] {
		return false
	}
	u, _, _ := hasClasses(body)
	return !u
}

// prefixIs reports whether pre is one of prefixes (ASCII case-insensitively
// with fold).
func prefixIs(prefixes []string, fold bool, pre []byte) bool {
	for _, p := range prefixes {
		if len(p) == len(pre) && (string(pre) == p || fold && strings.EqualFold(string(pre), p)) {
			return true
		}
	}
	return false
}

// finish validates the body of a token found at [ks, end): a match unless
// it is a mask (fillBody), validate refuses it or it is glued to a word
// without a valid checksum. A placeholder-looking body (placeholderBody:
// words such as "example" or "test", ascending runs) is no reason to keep a
// token with a provider's prefix: the prefix says where it goes, and a real
// key that looks like filler would slip through (placeholder filters are
// for the generic and context rules only). The seed's shapes (floor) keep
// not even a mask.
func (t *tokenSpec) finish(body []byte, glued bool, ks, end int) result {
	if fillBody(body) {
		return noMatch
	}
	cs := ChecksumNone
	if t.validate != nil {
		var good bool
		if good, cs = t.validate(body); !good {
			return noMatch
		}
	}
	if glued && cs != ChecksumValid {
		return noMatch
	}
	return result{status: resMatch, start: ks, end: end, cs: cs}
}

// hasClasses counts which of upper, lower and digit occur in b.
func hasClasses(b []byte) (upper, lower, digit bool) {
	for _, c := range b {
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return
}

// customForm evaluates a policy regexp around each keyword hit; see
// CustomRule for the exact semantics.
func customForm(keywords []string, re *regexp.Regexp) form {
	maxKw := 0
	for _, k := range keywords {
		if len(k) > maxKw {
			maxKw = len(k)
		}
	}
	return form{
		keywords: keywords,
		back:     CustomWindow,
		ahead:    maxKw + CustomWindow,
		check: func(v *view, ks, ke int) result {
			lo := ks - CustomWindow
			if lo < 0 {
				lo = 0 // the view starts at the string start (or CustomWindow before ks)
			}
			hi := ke + CustomWindow
			if hi > len(v.data) {
				if !v.atEnd {
					return result{status: resMore}
				}
				hi = len(v.data)
			}
			for _, m := range re.FindAllIndex(v.data[lo:hi], -1) {
				if lo+m[0] <= ks && lo+m[1] >= ke {
					return result{status: resMatch, start: lo + m[0], end: lo + m[1]}
				}
			}
			return noMatch
		},
	}
}

// escapedSlashes returns the form of t written inside JSON text whose
// serializer escapes '/' as "\/" (PHP's json_encode does by default), as in
// "https:\/\/hooks.slack.com\/services\/T…\/B…\/…": the prefixes with "\/"
// for '/', then a body in which "\/" stands for '/'. The unescaped body must
// satisfy t exactly as the plain form does (length, notAfter, validate); the
// match covers the escaped bytes. After a prefix without '/' (AccountKey=)
// the body must hold at least one "\/", so that the plain form alone finds
// what has none. t's body must contain '/' and t.max must be at most
// escapedMax.
func (t tokenSpec) escapedSlashes() form {
	if t.notBefore == nil {
		t.notBefore = union(t.body, setWord)
	}
	if t.notAfter == nil {
		t.notAfter = union(t.body, setWord)
	}
	if !t.body['/'] || t.max > escapedMax {
		panic("scanners: escapedSlashes needs '/' in the body and max <= escapedMax")
	}
	var prefixes, kws []string
	longest := 0
	for _, p := range t.prefixes {
		e := strings.ReplaceAll(p, "/", `\/`)
		prefixes = append(prefixes, e)
		longest = max(longest, len(e))
		if kw := strings.ToLower(e); !containsString(kws, kw) {
			kws = append(kws, kw)
		}
	}
	et := t
	et.prefixes = prefixes
	return form{keywords: kws, back: 1, ahead: longest + 2*t.max + 2, check: et.checkEscaped, tokenOnly: true}
}

// withEscapedSlashes returns the plain form of a URL token and its form in
// JSON text with escaped slashes.
func withEscapedSlashes(t tokenSpec) []form { return []form{plainForm(t), t.escapedSlashes()} }

// strictWithEscapedSlashes is withEscapedSlashes for a strictForm token.
func strictWithEscapedSlashes(t tokenSpec) []form { return []form{strictForm(t), t.escapedSlashes()} }

// slackHookSpec: a Slack incoming webhook, workflow or workflow trigger URL.
var slackHookSpec = tokenSpec{
	prefixes: []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"}, fold: true,
	body: makeSet("A-Za-z0-9/_-"), min: 20, max: 255, notBefore: makeSet("A-Za-z0-9_.-"),
}

// escapedMax bounds the unescaped body of an escapedSlashes form.
const escapedMax = 512

func (t *tokenSpec) checkEscaped(v *view, ks, ke int) result {
	d := v.data
	pre := d[ks:ke]
	glued := ks > 0 && t.notBefore[d[ks-1]]
	if !prefixIs(t.prefixes, t.fold, pre) || glued && t.validate == nil {
		return noMatch
	}
	var buf [escapedMax + 1]byte
	u := 0 // unescaped body length
	escapes := 0
	i := ke
	for i < len(d) {
		c := d[i]
		if c == '\\' {
			if i+1 >= len(d) {
				if !v.atEnd {
					return result{status: resMore}
				}
				break
			}
			if d[i+1] != '/' {
				break
			}
			c = '/'
			escapes++
		} else if c == '/' || !t.body[c] {
			break // a raw '/' among escaped ones ends the body (then notAfter)
		}
		if u == t.max {
			return noMatch // longer than any such token
		}
		buf[u] = c
		u++
		if c == '/' {
			i += 2
		} else {
			i++
		}
	}
	if v.more(i) {
		return result{status: resMore}
	}
	if u < t.min || i < len(d) && d[i] != '\\' && t.notAfter[d[i]] {
		return noMatch
	}
	if escapes == 0 && !bytes.Contains(pre, []byte(`\/`)) {
		return noMatch // the plain form's
	}
	return t.finish(buf[:u], glued, ks, i)
}

// fillBody reports a mask: a body of 8 or more letters and digits of which
// the letter x (either case) makes half or more (ghp_xxxx…, AKIAXXXX…,
// glpat-xxxxxxxx-xxxx…), as documentation writes a key it does not show. It
// carries no information, so no random token looks like it. Other repeated
// characters (glc_1111…, sntryu_aaaa…) are not a mask to this filter and are
// redacted, unless the rule's format asks for mixed character classes
// (mixes2, mixes3), which a body of one character lacks.
func fillBody(b []byte) bool {
	n, x := 0, 0
	for _, c := range b {
		if !setAlnum[c] {
			continue
		}
		n++
		if c == 'x' || c == 'X' {
			x++
		}
	}
	return n >= 8 && 2*x >= n
}

// placeholderBody reports a token body that is filler rather than a
// credential, whatever its prefix promises: one byte (letters case-folded)
// makes half or more of its letters and digits (ghp_xxxx…, glc_1111…,
// 0000…TUVWXYZ), 20 or more of them use fewer than a fifth as many distinct
// bytes (of at most 64: a long base64 body has no more), it holds a run of 8 ascending letters or digits (abcdefgh,
// 12345678), a placeholder word (tokenFillerWords) or camel-case words
// (camelFiller: xoxp-1-SlackAppConfigurationTokenHere). A random body of 8
// bytes or more is none of these but with negligible probability; a checksum
// cannot vouch for it (GitHub's CRC32 of "xxxx…" is as easy to compute).
func placeholderBody(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	var counts [256]uint8
	n, top, run := 0, 0, 1
	for i, c := range b {
		if !setAlnum[c] {
			run = 1
			continue
		}
		lc := lowerASCII(c)
		if counts[lc] < 255 {
			counts[lc]++
		}
		n++
		top = max(top, int(counts[lc]))
		if i > 0 && c == b[i-1]+1 {
			if run++; run >= 8 {
				return true
			}
		} else {
			run = 1
		}
	}
	if n >= 8 && 2*top >= n {
		return true
	}
	if n >= 20 {
		distinct := 0
		for _, k := range counts {
			if k != 0 {
				distinct++
			}
		}
		if 5*distinct < min(n, 64) {
			return true // a few bytes repeated (5555555dAAAAA7777777Cccc…)
		}
	}
	return fillerWord(b) || camelFiller(b)
}

// fillerWord reports whether some filler word (tokenFillerWords) stands in
// b as a hand-written word, not as letters a random body happens to
// contain. A word of six letters or more counts anywhere (a random base62
// body holds a given one with odds of about 1 in 10^9). A shorter word
// ("fake", "your", "here", "xxxx", "dummy") counts only at the start or end
// of the body or next to a separator, and in one letter case: a random
// 20-byte AWS key id or 36-byte token body holds one of them in the middle
// about once in 10^4 keys, and such a key must still be redacted.
//
// One pass over b: only at a byte that starts some word (fillerFirst) are
// the words that start with it compared, so a body of a few KiB (a JWT, a
// key file's base64) costs a table load a byte, not one scan per word.
func fillerWord(b []byte) bool {
	for i, c := range b {
		for m := fillerFirst[c]; m != 0; m &= m - 1 {
			w := tokenFillerWords[bits.TrailingZeros16(m)]
			end := i + len(w)
			if end > len(b) {
				continue
			}
			j := 1
			for j < len(w) && lowerASCII(b[i+j]) == w[j] {
				j++
			}
			if j < len(w) {
				continue
			}
			if len(w) >= 6 {
				return true
			}
			edge := i == 0 || !setAlnum[b[i-1]] || end == len(b) || !setAlnum[b[end]]
			if edge && oneCase(b[i:end]) {
				return true
			}
		}
	}
	return false
}

// fillerFirst: per byte, the bit set of the tokenFillerWords that start
// with it (in either letter case); 16 words at most (TestFillerWord).
var fillerFirst = func() (t [256]uint16) {
	for k, w := range tokenFillerWords {
		c := w[0]
		t[c] |= 1 << k
		if 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] |= 1 << k
		}
	}
	return t
}()

// oneCase reports whether the letters of b are all upper or all lower case.
func oneCase(b []byte) bool {
	upper, lower := false, false
	for _, c := range b {
		upper = upper || (c >= 'A' && c <= 'Z')
		lower = lower || (c >= 'a' && c <= 'z')
	}
	return !(upper && lower)
}

// tokenFillerWords mark a token body written by hand (lower case; matched
// ASCII case-insensitively).
var tokenFillerWords = []string{"example", "xxxx", "placeholder", "your", "here", "dummy", "sample", "changeme", "redacted", "randomstring", "fake", "insert", "replace"}
