package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// StringValues decodes a JSON document and returns every string value (not
// keys) by JSON pointer. An error means doc is not valid JSON.
func StringValues(doc []byte) (map[string]string, error) {
	out := map[string]string{}
	err := walkStrings(doc, func(p, v string) { out[p] = v })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkStrings calls fn with the pointer and decoded text of every string
// value of doc, in document order.
func walkStrings(doc []byte, fn func(ptr, v string)) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	type frame struct {
		obj    bool
		key    string
		idx    int
		expKey bool
	}
	var stack []frame
	ptr := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.obj {
				b.WriteString(ptrEsc(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.idx))
			}
		}
		return b.String()
	}
	// afterValue advances the enclosing container past one value.
	afterValue := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				stack[n-1].expKey = true
			} else {
				stack[n-1].idx++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(stack) > 0 {
					return io.ErrUnexpectedEOF
				}
				return nil
			}
			return err
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				afterValue()
				continue
			}
			stack[n-1].key, stack[n-1].expKey = tok.(string), false
			continue
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, expKey: true})
			case '[':
				stack = append(stack, frame{})
			default: // ']' (a '}' is handled above)
				stack = stack[:len(stack)-1]
				afterValue()
			}
		case string:
			fn(ptr(), t)
			afterValue()
		default:
			afterValue()
		}
	}
}

// Finding is one redaction reported by the detector under test: the rule,
// "secret" or "tag", the JSON pointer of the string value and the byte span
// in the normalized string (as pipeline evidence reports it).
type Finding struct {
	Rule    string
	Kind    string
	Pointer string
	Offset  int
	Length  int
}

// Outcome is what the detector did with one record.
type Outcome struct {
	Output   []byte // the sanitized document
	Findings []Finding
	// Incomplete is set when the detector could not list every finding
	// (evidence capped); scoring then cannot credit coverage fully.
	Incomplete bool
	Truncated  bool // the output was cut to a bound
	Rejected   bool // an error result replaced the record
}

// Scorer scores a detector's outcomes against corpus labels.
type Scorer struct {
	// Normalize maps a decoded string to the string the detector's offsets
	// refer to (for the pipeline, scanners normalization: invisible
	// characters removed, NFKC). Nil means identity.
	Normalize func(string) string
	// Examples, when positive, keeps up to that many example contexts per
	// missed secret type, surviving tag or invisible type, destroyed decoy
	// type and per rule's findings off target. Planted secrets are masked
	// in them (see Mask).
	Examples int

	examples map[string][]string

	types   map[string]*TypeScore
	rules   map[string]*RuleScore
	tot     Totals
	records int
}

// TypeScore counts one labeled type.
type TypeScore struct {
	Kind     LabelKind `json:"kind"`
	Family   string    `json:"family"`
	Provider string    `json:"provider,omitempty"`
	Type     string    `json:"type"`
	Planted  int       `json:"planted"`
	// Found: secrets whose needles are gone and that a finding covers;
	// tags and invisibles whose needles are gone; decoys still intact.
	Found int `json:"found"`
	// Survived: needles still in the output (secrets, tags, invisibles).
	Survived int `json:"survived"`
	// Uncovered: secrets gone from the output without a covering finding
	// (cut, or removed by something else).
	Uncovered int `json:"uncovered"`
	// Destroyed: decoys no longer intact.
	Destroyed int `json:"destroyed"`
	// Rules that covered items of this type, with counts.
	Rules map[string]int `json:"rules,omitempty"`
	// Contexts where an item of this type was missed or destroyed.
	MissContexts map[string]int `json:"missContexts,omitempty"`
}

// RuleScore counts the findings of one rule.
type RuleScore struct {
	Rule     string `json:"rule"`
	Kind     string `json:"kind"`
	Findings int    `json:"findings"`
	// OnPlanted: findings overlapping a planted secret (secret rules) or
	// tag (tag rules).
	OnPlanted int `json:"onPlanted"`
	// OnDecoy: findings overlapping a decoy.
	OnDecoy int `json:"onDecoy"`
	// Elsewhere: findings overlapping nothing planted (untargeted text).
	Elsewhere int `json:"elsewhere"`
	// DecoysDestroyed: decoys this rule's findings destroyed.
	DecoysDestroyed int `json:"decoysDestroyed"`
}

// Totals are corpus-wide numbers.
type Totals struct {
	Records          int `json:"records"`
	Secrets          int `json:"secrets"`
	SecretsFound     int `json:"secretsFound"`
	Decoys           int `json:"decoys"`
	DecoysDestroyed  int `json:"decoysDestroyed"`
	Tags             int `json:"tags"`
	TagsSurviving    int `json:"tagsSurviving"`
	Invisible        int `json:"invisible"`
	InvisibleSurvive int `json:"invisibleSurviving"`
	// InvisibleInOutput counts invisible or control characters (but tab,
	// newline, carriage return) anywhere in the sanitized strings, planted
	// or not.
	InvisibleInOutput int `json:"invisibleInOutput"`
	SecretFindings    int `json:"secretFindings"`
	SecretFindingsTP  int `json:"secretFindingsOnPlanted"`
	TagFindings       int `json:"tagFindings"`
	TagFindingsTP     int `json:"tagFindingsOnPlanted"`
	Truncated         int `json:"truncatedRecords"`
	Rejected          int `json:"rejectedRecords"`
	Incomplete        int `json:"incompleteEvidence"`
}

// Recall is found secrets over planted secrets.
func (t Totals) Recall() float64 { return ratio(t.SecretsFound, t.Secrets) }

// Precision is secret findings on a planted secret over all secret findings.
func (t Totals) Precision() float64 { return ratio(t.SecretFindingsTP, t.SecretFindings) }

// DecoysIntact is the share of decoys left intact.
func (t Totals) DecoysIntact() float64 { return ratio(t.Decoys-t.DecoysDestroyed, t.Decoys) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// ErrLabel reports a label that does not point at its bytes in the input.
var ErrLabel = errors.New("bench: label does not match its record")

func (s *Scorer) norm(x string) string {
	if s.Normalize == nil {
		return x
	}
	return s.Normalize(x)
}

// Add scores one record.
func (s *Scorer) Add(rec *LabeledRecord, out Outcome) error {
	if s.types == nil {
		s.types, s.rules, s.examples = map[string]*TypeScore{}, map[string]*RuleScore{}, map[string][]string{}
	}
	// Everything of a planted secret that an example could show: the span,
	// its needles (key lines, token halves) and an encoded credential.
	var secrets []string
	for i := range rec.Labels {
		if l := &rec.Labels[i]; l.Kind == LabelSecret {
			secrets = append(secrets, l.Exact, l.Inner)
			secrets = append(secrets, l.Needles...)
		}
	}
	sort.Slice(secrets, func(a, b int) bool { return len(secrets[a]) > len(secrets[b]) })
	example := func(key, v string, lo, hi int, mask bool) {
		if len(s.examples[key]) < s.Examples {
			s.examples[key] = append(s.examples[key], fmt.Sprintf("record %d (%s): %s", rec.Index, rec.Shape, context(v, lo, hi, mask, secrets)))
		}
	}
	in, err := StringValues(rec.Result)
	if err != nil {
		return fmt.Errorf("bench: record %d input: %w", rec.Index, err)
	}
	outStr, err := StringValues(out.Output)
	if err != nil {
		// An output that is not JSON keeps nothing intact and covers
		// nothing: everything planted is scored as missed or destroyed.
		outStr = map[string]string{}
	}
	s.tot.Records++
	if out.Truncated {
		s.tot.Truncated++
	}
	if out.Rejected {
		s.tot.Rejected++
	}
	if out.Incomplete {
		s.tot.Incomplete++
	}
	for _, v := range outStr {
		s.tot.InvisibleInOutput += countInvisible(v)
	}
	type span struct{ lo, hi int }
	spans := make([]span, len(rec.Labels))
	for i := range rec.Labels {
		l := &rec.Labels[i]
		v, ok := in[l.Pointer]
		if !ok || l.Offset < 0 || l.Offset+len(l.Exact) > len(v) || v[l.Offset:l.Offset+len(l.Exact)] != l.Exact {
			return fmt.Errorf("%w: record %d, %s at %s", ErrLabel, rec.Index, l.Type, l.Pointer)
		}
		lo := len(s.norm(v[:l.Offset]))
		spans[i] = span{lo, lo + len(s.norm(l.Exact))}
	}
	overlaps := func(f *Finding, i int) bool {
		l := &rec.Labels[i]
		return f.Pointer == l.Pointer && spans[i].lo < spans[i].hi && f.Offset < spans[i].hi && spans[i].lo < f.Offset+f.Length
	}
	// Findings: classify and remember which labels each covers.
	covered := make([]map[string]int, len(rec.Labels))
	for fi := range out.Findings {
		f := &out.Findings[fi]
		rs := s.rules[f.Rule]
		if rs == nil {
			rs = &RuleScore{Rule: f.Rule, Kind: f.Kind}
			s.rules[f.Rule] = rs
		}
		rs.Findings++
		if f.Kind == "tag" {
			s.tot.TagFindings++
		} else {
			s.tot.SecretFindings++
		}
		planted, onDecoy := false, false
		for i := range rec.Labels {
			if !overlaps(f, i) {
				continue
			}
			k := rec.Labels[i].Kind
			if covered[i] == nil {
				covered[i] = map[string]int{}
			}
			covered[i][f.Rule]++
			switch {
			case k == LabelSecret && f.Kind != "tag", k == LabelTag && f.Kind == "tag":
				planted = true
			case k == LabelDecoy:
				onDecoy = true
			}
		}
		switch {
		case planted:
			rs.OnPlanted++
			if f.Kind == "tag" {
				s.tot.TagFindingsTP++
			} else {
				s.tot.SecretFindingsTP++
			}
		case onDecoy:
			rs.OnDecoy++
			if s.Examples > 0 {
				n := s.norm(in[f.Pointer])
				example("rule "+f.Rule+" on a decoy", n, f.Offset, f.Offset+f.Length, false)
			}
		default:
			rs.Elsewhere++
			if s.Examples > 0 {
				n := s.norm(in[f.Pointer])
				example("rule "+f.Rule+" elsewhere", n, f.Offset, f.Offset+f.Length, true)
			}
		}
	}
	for i := range rec.Labels {
		l := &rec.Labels[i]
		key := string(l.Kind) + "/" + l.Type
		ts := s.types[key]
		if ts == nil {
			ts = &TypeScore{Kind: l.Kind, Family: l.Family, Provider: l.Provider, Type: l.Type, Rules: map[string]int{}, MissContexts: map[string]int{}}
			s.types[key] = ts
		}
		ts.Planted++
		o := outStr[l.Pointer]
		survived := false
		for _, n := range l.needleList() {
			if strings.Contains(o, n) {
				survived = true
				break
			}
		}
		miss := false
		switch l.Kind {
		case LabelSecret:
			s.tot.Secrets++
			var rules []string
			for r := range covered[i] {
				if s.rules[r].Kind != "tag" {
					rules = append(rules, r)
				}
			}
			switch {
			case survived:
				ts.Survived++
				miss = true
			case len(rules) == 0:
				ts.Uncovered++
				miss = true
			default:
				ts.Found++
				s.tot.SecretsFound++
				sort.Strings(rules)
				ts.Rules[strings.Join(rules, "+")]++
			}
		case LabelTag, LabelInvisible:
			if l.Kind == LabelTag {
				s.tot.Tags++
			} else {
				s.tot.Invisible++
			}
			if survived {
				ts.Survived++
				miss = true
				if l.Kind == LabelTag {
					s.tot.TagsSurviving++
				} else {
					s.tot.InvisibleSurvive++
				}
			} else {
				ts.Found++
				for r := range covered[i] {
					ts.Rules[r]++
				}
			}
		case LabelDecoy:
			s.tot.Decoys++
			if !decoyIntact(o, in[l.Pointer], l.Exact) {
				ts.Destroyed++
				s.tot.DecoysDestroyed++
				miss = true
				if len(covered[i]) == 0 {
					ts.Rules["(no finding)"]++
				}
				for r := range covered[i] {
					ts.Rules[r]++
					s.rules[r].DecoysDestroyed++
				}
			} else {
				ts.Found++
			}
		}
		if miss {
			ts.MissContexts[l.Context]++
			if s.Examples > 0 {
				example(string(l.Kind)+" "+l.Type, in[l.Pointer], l.Offset, l.Offset+len(l.Exact), l.Kind == LabelSecret)
			}
		}
	}
	return nil
}

// countInvisible counts characters a sanitized string must not hold: C0
// controls but tab, newline and carriage return, DEL, C1 controls, and the
// invisible format characters planted by the corpus (zero-width, bidi,
// BOM, soft hyphen, word joiner, Mongolian vowel separator, tag block).
func countInvisible(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7f && r < 0xa0, r == 0xad, r == 0x180e,
			r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069, r == 0xfeff,
			r >= 0xe0000 && r <= 0xe007f:
			n++
		}
	}
	return n
}

// Mask shows the shape of a secret without its value: the first bytes
// that name its format (a prefix such as "ghp_", a PEM header) and the
// length.
func Mask(secret string) string {
	keep := min(4, len(secret)/4)
	if strings.HasPrefix(secret, "-----BEGIN") {
		keep = strings.IndexByte(secret, '\n')
		if keep < 0 {
			keep = min(len(secret), 40)
		}
	}
	return fmt.Sprintf("%s…(%d bytes)", secret[:keep], len(secret))
}

// context returns the line of v around [lo, hi), at most 60 bytes each
// side, the span in « », masked when mask is set, and every planted
// secret of the record masked elsewhere in it. Control characters are
// shown as \u escapes.
func context(v string, lo, hi int, mask bool, secrets []string) string {
	lo, hi = max(0, min(lo, len(v))), max(0, min(hi, len(v)))
	a := strings.LastIndexByte(v[:lo], '\n') + 1
	a = max(a, lo-60)
	b := len(v)
	if k := strings.IndexByte(v[hi:], '\n'); k >= 0 {
		b = hi + k
	}
	b = min(b, hi+60)
	for a > 0 && a < len(v) && !utf8.RuneStart(v[a]) {
		a--
	}
	for b < len(v) && !utf8.RuneStart(v[b]) {
		b++
	}
	before, span, after := v[a:lo], v[lo:hi], v[hi:b]
	for _, s := range secrets {
		if len(s) >= 8 {
			before = strings.ReplaceAll(before, s, Mask(s))
			after = strings.ReplaceAll(after, s, Mask(s))
			if !mask {
				span = strings.ReplaceAll(span, s, Mask(s))
			}
		}
	}
	if mask {
		span = Mask(span)
	}
	return strconv.Quote(before + "«" + span + "»" + after)
}

// Report is the result of scoring.
type Report struct {
	Totals   Totals              `json:"totals"`
	Types    []*TypeScore        `json:"types"`
	Rules    []*RuleScore        `json:"rules"`
	Examples map[string][]string `json:"examples,omitempty"`
}

// Report returns the scores so far, types and rules in a stable order.
func (s *Scorer) Report() Report {
	r := Report{Totals: s.tot, Examples: s.examples}
	for _, t := range s.types {
		r.Types = append(r.Types, t)
	}
	kindOrder := map[LabelKind]int{LabelSecret: 0, LabelTag: 1, LabelInvisible: 2, LabelDecoy: 3}
	sort.Slice(r.Types, func(i, j int) bool {
		a, b := r.Types[i], r.Types[j]
		if a.Kind != b.Kind {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		return a.Type < b.Type
	})
	for _, x := range s.rules {
		r.Rules = append(r.Rules, x)
	}
	sort.Slice(r.Rules, func(i, j int) bool { return r.Rules[i].Rule < r.Rules[j].Rule })
	return r
}

// ---- external scanners (gitleaks) ----

// ExternalFinding is one finding of a scanner that reports matched text
// (gitleaks' Secret and Match) rather than offsets in decoded strings.
type ExternalFinding struct {
	Record int
	Rule   string
	Secret string
	Match  string
}

// ExternalScore is the score of an external scanner.
type ExternalScore struct {
	Secrets   int `json:"secrets"`
	Found     int `json:"found"`
	Decoys    int `json:"decoys"`
	OnDecoy   int `json:"findingsOnDecoy"` // findings matching a decoy
	Findings  int `json:"findings"`
	OnSecret  int `json:"findingsOnSecret"`  // first finding of a planted secret
	Duplicate int `json:"findingsDuplicate"` // further findings of a secret already found
	// FalsePositives: findings on no planted secret (decoys and untargeted
	// text).
	FalsePositives int `json:"falsePositives"`
	// Types: found/planted per secret type.
	Types map[string][2]int `json:"types"`
}

// Recall is found over planted.
func (e ExternalScore) Recall() float64 { return ratio(e.Found, e.Secrets) }

// matchForms returns the forms of a label a scanner may report: as
// decoded, as escaped in the record's JSON, its needles and the credential
// inside an encoding.
func matchForms(l *Label, raw bool) []string {
	forms := []string{l.Exact}
	if raw {
		forms = append(forms, l.Raw)
	}
	forms = append(forms, l.Needles...)
	if l.Inner != "" {
		forms = append(forms, l.Inner)
	}
	return forms
}

// textMatches reports whether a reported string s and a planted form f are
// the same item: one holds the other (at least 8 bytes of s, so a short
// generic match does not claim a long secret), or they share a run of
// sharedRun bytes (a scanner that decodes reports a token whose encoded
// part it decoded: "149645874113317228.H9rd3-.…" for "MTQ5NjQ1…H9rd3-.…").
func textMatches(s, f string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 8 || f == "" {
		return false
	}
	if strings.Contains(f, s) || strings.Contains(s, f) {
		return true
	}
	if len(s) < sharedRun || len(f) < sharedRun {
		return false
	}
	for i := 0; i+sharedRun <= len(s); i++ {
		if strings.Contains(f, s[i:i+sharedRun]) {
			return true
		}
	}
	return false
}

// sharedRun is the length of a common run that ties a reported string to
// a planted one.
const sharedRun = 16

// ScoreExternal scores the findings of an external scanner on the corpus.
// Each finding is matched, by its reported text, to one planted secret of
// its record not yet claimed (then to one already claimed, as a duplicate),
// else to a decoy, else it is untargeted. raw says the scanner read the
// records' JSON bytes rather than their decoded text.
func ScoreExternal(recs []LabeledRecord, findings []ExternalFinding, raw bool) ExternalScore {
	sc := ExternalScore{Types: map[string][2]int{}}
	byRec := map[int][]ExternalFinding{}
	for _, f := range findings {
		byRec[f.Record] = append(byRec[f.Record], f)
	}
	for ri := range recs {
		rec := &recs[ri]
		claimed := make([]bool, len(rec.Labels))
		matches := func(f *ExternalFinding, l *Label) bool {
			for _, form := range matchForms(l, raw) {
				if textMatches(f.Secret, form) || textMatches(f.Match, form) && strings.Contains(f.Match, form) {
					return true
				}
			}
			return false
		}
		for _, f := range byRec[rec.Index] {
			sc.Findings++
			done := false
			for pass := 0; pass < 2 && !done; pass++ {
				for i := range rec.Labels {
					l := &rec.Labels[i]
					if l.Kind != LabelSecret || claimed[i] != (pass == 1) || !matches(&f, l) {
						continue
					}
					if pass == 0 {
						claimed[i] = true
						sc.OnSecret++
					} else {
						sc.Duplicate++
					}
					done = true
					break
				}
			}
			if done {
				continue
			}
			sc.FalsePositives++
			for i := range rec.Labels {
				if l := &rec.Labels[i]; l.Kind == LabelDecoy && matches(&f, l) {
					sc.OnDecoy++
					break
				}
			}
		}
		for i := range rec.Labels {
			l := &rec.Labels[i]
			switch l.Kind {
			case LabelSecret:
				sc.Secrets++
				t := sc.Types[l.Type]
				t[1]++
				if claimed[i] {
					sc.Found++
					t[0]++
				}
				sc.Types[l.Type] = t
			case LabelDecoy:
				sc.Decoys++
			}
		}
	}
	return sc
}

// decoyIntact reports whether every occurrence of the decoy exact in the
// input string in survives in the output o, as written or as the
// Normalizer reads escaped JSON in text (scanners/normalize_literal.go:
// "\/" and "\u003c" in JSON written into a text are decoded to "/" and
// "<", which leaves that JSON's value as it was), so a decoy of JSON in
// text whose escapes were decoded is not counted destroyed. NFKC is not
// applied: a decoy NFKC changes is destroyed.
func decoyIntact(o, in, exact string) bool {
	want := strings.Count(in, exact)
	got := strings.Count(o, exact)
	if got >= want {
		return true
	}
	n := scanners.Normalizer{DisableNFKC: true}
	if d := string(n.Append(nil, []byte(exact), true)); d != exact && !strings.Contains(d, exact) {
		got += strings.Count(o, d)
	}
	return got >= want
}
