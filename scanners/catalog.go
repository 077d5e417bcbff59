package scanners

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// RuleID identifies a rule inside one Catalog: it indexes Catalog.Rules().
// It is not stable across catalogs built with different options; the stable
// name is Catalog.RuleName(id).
type RuleID uint16

// Kind says what a rule finds.
type Kind uint8

const (
	// KindSecret is a credential; it is replaced by the secret marker.
	KindSecret Kind = iota + 1
	// KindTag is a pseudo-instruction tag or chat-template marker; it is
	// replaced by the tag marker.
	KindTag
)

// ChecksumResult records whether a format with a built-in checksum verified.
type ChecksumResult uint8

const (
	// ChecksumNone: the format has no checksum, or this match is not in the
	// checksummed shape.
	ChecksumNone ChecksumResult = iota
	// ChecksumValid: the embedded checksum matches; almost surely a real token.
	ChecksumValid
	// ChecksumInvalid: the shape matches but the checksum does not (a
	// placeholder, a typo, or a hand-made example). Still redacted unless
	// CatalogOptions.KeepInvalidChecksum.
	ChecksumInvalid
)

// Finding describes one replaced match. It never holds the matched bytes.
type Finding struct {
	Rule     RuleID
	Kind     Kind
	Offset   int64 // byte offset of the match in the normalized string (counted from the last Reset)
	Length   int   // bytes of normalized text replaced
	Checksum ChecksumResult
	// Encoding is how the secret was encoded when it was found inside an
	// encoded run (decode.go); Offset and Length then cover the whole run,
	// and Checksum and Fingerprint are those of the decoded secret.
	Encoding Encoding
	// Fingerprint is HMAC-SHA256(key, rule name || 0x00 || matched bytes),
	// truncated to 16 bytes, where rule name is the stable id such as
	// "github-pat". Zero for tags.
	Fingerprint [16]byte
	// Suppressed says the match was kept in the text because the
	// Redactor's suppress func (SetSuppress) allowed it.
	Suppressed bool
}

// RuleInfo describes a rule of a Catalog.
type RuleInfo struct {
	ID          string // stable id, such as "github-pat"
	Provider    string
	Kind        Kind
	Confidence  string // "high", "medium" or "low"
	Description string
	Keywords    []string // lower-case keywords that trigger the rule
}

// CustomRule is a rule supplied by policy.
//
// A custom rule is triggered by its keywords like a built-in one. On a hit of
// keyword K at [ks, ke) the Pattern is evaluated on the window
// text[ks-CustomWindow : ke+CustomWindow] (clipped to the string), and the
// first (leftmost-first, non-overlapping, as regexp.FindAllIndex) match that
// contains the whole keyword occurrence becomes a candidate. Matches of the
// pattern that do not cover the keyword are ignored, so the pattern must
// include the keyword (or its case variant). Anchors ^, $ and \b see the
// window edges as text edges. Because evaluation uses the Go regexp package,
// a custom rule costs more per hit than a built-in one; pick distinctive
// keywords.
type CustomRule struct {
	ID          string   // unique, [a-z0-9-]+, not the id of a built-in rule
	Keywords    []string // literal ASCII, matched case-insensitively, non-empty
	Pattern     string   // Go regexp (RE2) syntax
	Description string
}

// CustomWindow is how many bytes on each side of a keyword hit a custom rule's
// pattern can see.
const CustomWindow = 256

// CatalogOptions selects and configures rules. The zero value enables every
// built-in rule with the default markers and allowlist.
type CatalogOptions struct {
	Disabled []string // rule ids switched off
	Custom   []CustomRule
	// Allowlist holds exact strings never redacted: a candidate whose matched
	// bytes equal an entry is dropped. Nil means DefaultAllowlist(); a
	// non-nil empty slice means none.
	Allowlist    []string
	SecretMarker string // format with one %s for the rule id; default "[REDACTED:%s]"
	TagMarker    string // default "[REMOVED_PSEUDO_INSTRUCTION_TAG]"
	DisableTags  bool
	// KeepInvalidChecksum leaves a match whose built-in checksum fails
	// (ChecksumInvalid: a placeholder, a typo, a hand-made example) in the
	// text. Default false: it is redacted like any other match, because a
	// token one character off is still one character from a real one.
	KeepInvalidChecksum bool
	// DisableDecoding switches off the decoding of base64, hex and
	// percent-encoded runs (see decode.go). Default false: on.
	DisableDecoding bool
	// DisableSkeleton makes the detection view (view.go) read look-alike
	// characters as they are instead of as their UTS #39 skeleton
	// (skeleton.go); character references are still read as their
	// characters. Default false: "‹Ꮪystem›" and "ghρ_" are read as
	// "<System>" and "ghp_".
	DisableSkeleton bool
	// MaxDecodeRun is the longest encoded run decoded, in bytes; 0 means
	// DefaultMaxDecodeRun (4 KiB); at most MaxDecodeRunLimit.
	MaxDecodeRun int
	// MaxDecodeDepth is how many nested encodings are decoded; 0 means
	// DefaultMaxDecodeDepth (2); at most MaxDecodeDepthLimit.
	MaxDecodeDepth int
}

// Defaults.
const (
	DefaultSecretMarker = "[REDACTED:%s]"
	DefaultTagMarker    = "[REMOVED_PSEUDO_INSTRUCTION_TAG]"
)

// DefaultAllowlist returns the documentation example credentials that are
// published by their vendors and are never real.
func DefaultAllowlist() []string {
	return []string{
		"AKIAIOSFODNN7EXAMPLE",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"AKIAI44QH8DHBEXAMPLE",
		"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
	}
}

// Sentinel errors, matched with errors.Is on a *CatalogError.
var (
	ErrUnknownRule   = errors.New("unknown rule id")
	ErrInvalidRule   = errors.New("invalid custom rule")
	ErrDuplicateRule = errors.New("duplicate rule id")
	ErrInvalidMarker = errors.New("invalid marker")
	ErrInvalidLimit  = errors.New("invalid limit")
)

// CatalogError reports which option was wrong. It never contains a pattern,
// an allowlist entry or any other configured value besides a rule id.
type CatalogError struct {
	Rule   string // rule id concerned, if any
	Field  string // option field: "Disabled", "Custom", "SecretMarker", "TagMarker", "MaxDecodeRun", "MaxDecodeDepth"
	Reason string // short fixed explanation
	Err    error  // one of the sentinels above
}

func (e *CatalogError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("scanners: %s: rule %q: %v: %s", e.Field, e.Rule, e.Err, e.Reason)
	}
	return fmt.Sprintf("scanners: %s: %v: %s", e.Field, e.Err, e.Reason)
}

func (e *CatalogError) Unwrap() error { return e.Err }

// Catalog is a compiled set of rules: one keyword automaton for all of them.
// It is immutable and safe for concurrent use; compile once per policy.
type Catalog struct {
	infos []RuleInfo
	rules []*ruleDef // index == RuleID
	ac    *automaton
	items [][]hitItem // per automaton state index: what to check on a hit
	// ctxState, per automaton state index: some item of the state can use
	// a member name as context (its form is not tokenOnly).
	ctxState []bool
	maxBack  int // max bytes before a keyword start any check reads
	allow    map[string]struct{}
	markers  [][]byte // per RuleID

	keepInvalid bool // CatalogOptions.KeepInvalidChecksum
	decode      bool // !CatalogOptions.DisableDecoding
	noView      bool // scan the text as given, without the detection view (view.go); tests only
	noSkel      bool // CatalogOptions.DisableSkeleton
	maxRun      int
	maxDepth    int
}

// hitItem is one (rule, form) to evaluate when a keyword of length kwLen ends.
type hitItem struct {
	rule  RuleID
	kwLen int32
	form  *form
	wsEnd bool // the keyword ends with whitespace (form.afterSpace applies)
}

var ruleIDRe = regexp.MustCompile(`^[a-z0-9-]+$`)

// NewCatalog compiles the built-in rules (minus opts.Disabled) and the custom
// rules into one automaton.
func NewCatalog(opts CatalogOptions) (*Catalog, error) {
	all := builtinRules()
	known := make(map[string]bool, len(all))
	for _, r := range all {
		known[r.id] = true
	}
	disabled := make(map[string]bool, len(opts.Disabled))
	for _, id := range opts.Disabled {
		if !known[id] {
			return nil, &CatalogError{Rule: id, Field: "Disabled", Reason: "not a built-in rule", Err: ErrUnknownRule}
		}
		disabled[id] = true
	}
	secretMarker := opts.SecretMarker
	if secretMarker == "" {
		secretMarker = DefaultSecretMarker
	}
	if strings.Count(secretMarker, "%") != 1 || strings.Count(secretMarker, "%s") != 1 {
		return nil, &CatalogError{Field: "SecretMarker", Reason: "must contain exactly one %s and no other verb", Err: ErrInvalidMarker}
	}
	tagMarker := opts.TagMarker
	if tagMarker == "" {
		tagMarker = DefaultTagMarker
	}

	c := &Catalog{keepInvalid: opts.KeepInvalidChecksum, decode: !opts.DisableDecoding, noSkel: opts.DisableSkeleton, maxRun: opts.MaxDecodeRun, maxDepth: opts.MaxDecodeDepth}
	if c.maxRun == 0 {
		c.maxRun = DefaultMaxDecodeRun
	}
	if c.maxDepth == 0 {
		c.maxDepth = DefaultMaxDecodeDepth
	}
	if c.maxRun < decodeMinRun || c.maxRun > MaxDecodeRunLimit {
		return nil, &CatalogError{Field: "MaxDecodeRun", Reason: "out of range", Err: ErrInvalidLimit}
	}
	if c.maxDepth < 1 || c.maxDepth > MaxDecodeDepthLimit {
		return nil, &CatalogError{Field: "MaxDecodeDepth", Reason: "out of range", Err: ErrInvalidLimit}
	}
	for i := range all {
		r := &all[i]
		if disabled[r.id] || (opts.DisableTags && r.kind == KindTag) {
			continue
		}
		c.rules = append(c.rules, r)
	}
	seen := make(map[string]bool)
	for _, cr := range opts.Custom {
		r, err := compileCustom(cr, known, seen)
		if err != nil {
			return nil, err
		}
		c.rules = append(c.rules, r)
	}
	if len(c.rules) > 1<<16-1 {
		return nil, &CatalogError{Field: "Custom", Reason: "too many rules", Err: ErrInvalidRule}
	}

	// One automaton over the deduplicated keywords of every enabled rule.
	// Sized once from the count of keyword uses (an upper bound of the
	// distinct ones): the index map and lists do not grow at every start.
	uses := 0
	for _, r := range c.rules {
		for fi := range r.forms {
			uses += len(r.forms[fi].keywords)
		}
	}
	kwIndex := make(map[string]int, uses)
	keywords := make([]string, 0, uses)
	kwRule := make([]int, 0, uses) // the last rule whose infos list keyword k, plus one
	// First pass: the keyword index of every keyword use, whether the use
	// adds the keyword to its rule's info, and how many items each keyword
	// and keywords each info get; the second pass carves the item lists and
	// the infos' keyword lists from one array each (no list grows).
	useK := make([]int32, 0, uses)
	useNew := make([]bool, 0, uses)
	kwCount := make([]int32, 0, uses)
	infoKws := 0
	for id, r := range c.rules {
		for fi := range r.forms {
			for _, kw := range r.forms[fi].keywords {
				kw = strings.ToLower(kw)
				k, ok := kwIndex[kw]
				if !ok {
					k = len(keywords)
					kwIndex[kw] = k
					keywords = append(keywords, kw)
					kwCount = append(kwCount, 0)
					kwRule = append(kwRule, 0)
				}
				kwCount[k]++
				isNew := kwRule[k] != id+1
				if isNew {
					kwRule[k] = id + 1
					infoKws++
				}
				useK = append(useK, int32(k))
				useNew = append(useNew, isNew)
			}
		}
	}
	kwItems := make([][]hitItem, len(keywords))
	kwItemBuf := make([]hitItem, len(useK))
	at := 0
	for k, n := range kwCount {
		kwItems[k] = kwItemBuf[at : at : at+int(n)]
		at += int(n)
	}
	infoKwBuf := make([]string, 0, infoKws)
	use := 0
	c.infos = make([]RuleInfo, 0, len(c.rules))
	c.markers = make([][]byte, 0, len(c.rules))
	// secretMarker holds exactly one %s and no other % (checked above): a
	// secret rule's marker is fmt.Sprintf(secretMarker, r.id) without fmt,
	// and every marker is carved from one array.
	markPre, markPost, _ := strings.Cut(secretMarker, "%s")
	markBytes := 0
	for _, r := range c.rules {
		if r.kind == KindSecret {
			markBytes += len(markPre) + len(r.id) + len(markPost)
		} else {
			markBytes += len(tagMarker)
		}
	}
	markBuf := make([]byte, 0, markBytes)
	for id, r := range c.rules {
		info := RuleInfo{ID: r.id, Provider: r.provider, Kind: r.kind, Confidence: r.confidence, Description: r.desc}
		from := len(infoKwBuf)
		for fi := range r.forms {
			f := &r.forms[fi]
			if f.back > c.maxBack {
				c.maxBack = f.back
			}
			for range f.keywords {
				k := useK[use]
				kw := keywords[k]
				kwItems[k] = append(kwItems[k], hitItem{rule: RuleID(id), kwLen: int32(len(kw)), form: f, wsEnd: setSpace[kw[len(kw)-1]]})
				if useNew[use] {
					infoKwBuf = append(infoKwBuf, kw)
				}
				use++
			}
		}
		if len(infoKwBuf) > from {
			info.Keywords = infoKwBuf[from:len(infoKwBuf):len(infoKwBuf)]
		}
		c.infos = append(c.infos, info)
		mFrom := len(markBuf)
		if r.kind == KindSecret {
			markBuf = append(append(append(markBuf, markPre...), r.id...), markPost...)
		} else {
			markBuf = append(markBuf, tagMarker...)
		}
		c.markers = append(c.markers, markBuf[mFrom:len(markBuf):len(markBuf)])
	}
	if len(keywords) == 0 {
		// An automaton needs one keyword; NUL never occurs in normalized text.
		keywords = append(keywords, "\x00")
		kwItems = append(kwItems, nil)
	}
	ac, err := newAutomaton(keywords)
	if err != nil {
		return nil, &CatalogError{Field: "Custom", Reason: err.Error(), Err: ErrInvalidRule}
	}
	c.ac = ac
	c.items = make([][]hitItem, len(ac.outputs))
	c.ctxState = make([]bool, len(ac.outputs))
	// The items of every state, carved from one array. Only states from
	// matchMin on have outputs (and so items): c.items and ac.outputs are
	// not read below it, so that their first pages, fresh memory at
	// start-up, are never touched (a page fault costs microseconds in a
	// virtual machine).
	nItems := 0
	for _, outs := range ac.outputs[ac.matchMin:] {
		for _, k := range outs {
			nItems += len(kwItems[k])
		}
	}
	itemBuf := make([]hitItem, 0, nItems)
	for s := int(ac.matchMin); s < len(ac.outputs); s++ {
		outs := ac.outputs[s]
		from := len(itemBuf)
		for _, k := range outs {
			itemBuf = append(itemBuf, kwItems[k]...)
		}
		if len(itemBuf) > from {
			c.items[s] = itemBuf[from:len(itemBuf):len(itemBuf)]
		}
		for _, it := range c.items[s] {
			if !it.form.tokenOnly {
				c.ctxState[s] = true
			}
		}
	}

	allow := opts.Allowlist
	if allow == nil {
		allow = DefaultAllowlist()
	}
	c.allow = make(map[string]struct{}, len(allow))
	for _, a := range allow {
		c.allow[a] = struct{}{}
	}

	if !defaultMarkersChecked(opts) {
		if err := c.checkMarkers(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// defaultMarkersChecked reports whether a catalog built with o has the
// default markers and no option that lets a rule match more than the
// built-in rules do under the default decoding: no custom rule, invalid
// checksums dropped, the default decode limits. Such a catalog's markers
// are those of the built-in catalog with every rule enabled, or fewer,
// scanned by fewer rules or with fewer matches suppressed by nothing;
// TestDefaultMarkersSafe checks them with every rule, every switch of
// tags, decoding and look-alikes, and nothing allowlisted. NewCatalog then
// skips the scan: it ran the regexps of most vendor-key rules (a marker
// holds the rule id, the rule's keyword), and compiling those was a third
// of what building a catalog allocated at every start.
func defaultMarkersChecked(o CatalogOptions) bool {
	return (o.SecretMarker == "" || o.SecretMarker == DefaultSecretMarker) &&
		(o.TagMarker == "" || o.TagMarker == DefaultTagMarker) &&
		len(o.Custom) == 0 && !o.KeepInvalidChecksum &&
		(o.MaxDecodeRun == 0 || o.MaxDecodeRun == DefaultMaxDecodeRun) &&
		(o.MaxDecodeDepth == 0 || o.MaxDecodeDepth == DefaultMaxDecodeDepth)
}

// checkMarkers returns a CatalogError for the first marker of c that is,
// or combines with its neighbours into, a match: a marker is built from a
// safe alphabet and scans clean. One Redactor for all the checks (its hit
// buffer is large), and each distinct marker checked once.
func (c *Catalog) checkMarkers() error {
	mr := c.newRedactorNoKey()
	checked := make(map[string]string, len(c.markers))
	for id, m := range c.markers {
		reason, ok := checked[string(m)]
		if !ok {
			reason = c.checkMarker(mr, m)
			checked[string(m)] = reason
		}
		if reason != "" {
			field := "TagMarker"
			if c.rules[id].kind == KindSecret {
				field = "SecretMarker"
			}
			return &CatalogError{Rule: c.rules[id].id, Field: field, Reason: reason, Err: ErrInvalidMarker}
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkMarker returns why m is not a safe marker, or "", scanning with r
// (a Redactor of c without a key).
func (c *Catalog) checkMarker(r *Redactor, m []byte) string {
	if len(m) == 0 {
		return "empty"
	}
	for i, b := range m {
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case b == '_' || b == ':' || b == '-' || b == '.' || b == ' ' || b == '*' || b == '#':
		case b == '[' && i == 0, b == ']' && i == len(m)-1:
		default:
			return "only letters, digits, _ : - . space * # and a leading [ and trailing ] are allowed"
		}
	}
	// Scan the marker alone and between the bytes most likely to complete a
	// match; nothing may be found.
	for _, ctx := range [][2]string{{"", ""}, {" ", " "}, {"<", ">"}, {"[", "]"}, {"<|", "|>"}} {
		in := append(append([]byte(ctx[0]), m...), ctx[1]...)
		r.Reset()
		_, fs := r.Append(nil, in, true, nil)
		if len(fs) != 0 {
			return "marker text matches a rule"
		}
	}
	return ""
}

// Rules lists the enabled rules; the index is the RuleID used in findings.
// The returned slice is a copy.
func (c *Catalog) Rules() []RuleInfo {
	out := make([]RuleInfo, len(c.infos))
	for i, r := range c.infos {
		r.Keywords = append([]string(nil), r.Keywords...)
		out[i] = r
	}
	return out
}

// RuleName returns the stable id of a rule, such as "github-pat", or "" if
// id is out of range.
func (c *Catalog) RuleName(id RuleID) string {
	if int(id) >= len(c.rules) {
		return ""
	}
	return c.rules[id].id
}

// compileCustom validates a custom rule and turns it into a ruleDef.
func compileCustom(cr CustomRule, builtin, seen map[string]bool) (*ruleDef, error) {
	bad := func(reason string, err error) error {
		return &CatalogError{Rule: cr.ID, Field: "Custom", Reason: reason, Err: err}
	}
	if !ruleIDRe.MatchString(cr.ID) {
		return nil, bad("id must match [a-z0-9-]+", ErrInvalidRule)
	}
	if builtin[cr.ID] || seen[cr.ID] {
		return nil, bad("id already used", ErrDuplicateRule)
	}
	seen[cr.ID] = true
	if len(cr.Keywords) == 0 {
		return nil, bad("no keywords", ErrInvalidRule)
	}
	for _, kw := range cr.Keywords {
		if len(kw) == 0 || len(kw) > maxKeywordLen {
			return nil, bad("keyword length out of range", ErrInvalidRule)
		}
		for i := 0; i < len(kw); i++ {
			if kw[i] < 0x20 || kw[i] >= 0x7f {
				return nil, bad("keywords must be printable ASCII", ErrInvalidRule)
			}
		}
	}
	re, err := regexp.Compile(cr.Pattern)
	if err != nil {
		return nil, bad("pattern does not compile", ErrInvalidRule)
	}
	if re.MatchString("") {
		return nil, bad("pattern matches the empty string", ErrInvalidRule)
	}
	return &ruleDef{
		id:         cr.ID,
		provider:   "custom",
		kind:       KindSecret,
		confidence: "medium",
		desc:       cr.Description,
		forms:      []form{customForm(cr.Keywords, re)},
	}, nil
}

// builtinRules lists the built-in rules in RuleID order (before disabling).
// Provider rules come before generic ones so that, on identical spans, the
// more specific id is reported.
func builtinRules() []ruleDef {
	// Sized for the built-in rules (375 on 2026-12-07) and some to come:
	// the list is not copied as it grows.
	rs := make([]ruleDef, 0, 400)
	rs = append(rs, aiRules()...)
	rs = append(rs, vcsRules()...)
	rs = append(rs, cloudRules()...)
	rs = append(rs, ciRules()...)
	rs = append(rs, paymentRules()...)
	rs = append(rs, devtoolsRules()...)
	rs = append(rs, messagingRules()...)
	rs = append(rs, registryRules()...)
	rs = append(rs, databaseRules()...)
	rs = append(rs, observabilityRules()...)
	rs = append(rs, identityRules()...)
	rs = append(rs, peerRules()...)
	rs = append(rs, vendorRules()...)
	rs = append(rs, structuredRules()...)
	rs = append(rs, kubernetesRules()...)
	rs = append(rs, sumologicRules()...)
	rs = append(rs, facebookRules()...)
	rs = append(rs, familyRules2()...)
	rs = append(rs, familyRules3()...)
	rs = append(rs, vendorKeyRules()...)
	rs = append(rs, contextRules()...)
	rs = append(rs, cliRules()...)
	rs = append(rs, hashRules()...)
	rs = append(rs, familyRules()...)
	rs = append(rs, genericSKRule())
	rs = append(rs, tagRules()...)
	rs = append(rs, markupRules()...)
	return rs
}
