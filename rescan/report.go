package rescan

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Report is what a re-scan found. It holds rule ids, counts, record
// references, tenants (restricted to a token) and keyed fingerprints;
// never record content.
type Report struct {
	Policy   PolicyRef `json:"policy"`
	Baseline PolicyRef `json:"baseline"`
	Records  int64     `json:"records"`
	Bytes    int64     `json:"bytes"`
	Seconds  float64   `json:"seconds"`
	// Changed counts the records whose evidence differs between the two
	// policies: a rule's count or the outcome.
	Changed int64 `json:"changed"`
	// OutcomeChanged counts the records with another outcome (clean,
	// sanitized, truncated, rejected).
	OutcomeChanged int64 `json:"outcomeChanged"`
	// Failed counts the records an engine failed on (no evidence).
	Failed int64 `json:"failed,omitempty"`
	// Unmatched counts records whose parts did not all arrive (none in a
	// run that completed).
	Unmatched int64         `json:"unmatched,omitempty"`
	Rules     []RuleCount   `json:"rules"`
	Tenants   []TenantCount `json:"tenants"`
	// Timeline is findings over time: by the records' "time" when they
	// have one (TimeAxis "time"), else by their position ("record").
	TimeAxis string   `json:"timeAxis"`
	Timeline []Bucket `json:"timeline"`
}

// PolicyRef names a policy of the comparison.
type PolicyRef struct {
	Version string `json:"version"`
	Digest  string `json:"digest,omitempty"`
	Source  string `json:"source,omitempty"`
}

// RuleCount is one rule: in how many records each policy finds it, and in
// how many the policy finds more of it than the baseline (Added) or fewer
// (Removed).
type RuleCount struct {
	Rule          string `json:"rule"`
	Policy        int64  `json:"policy"`
	Baseline      int64  `json:"baseline"`
	Added         int64  `json:"added"`
	Removed       int64  `json:"removed"`
	Refs          []Ref  `json:"refs,omitempty"`
	RefsNotListed int64  `json:"refsNotListed,omitempty"`
}

// Ref is a record the policy changes that the baseline did not, for one
// rule: its line (a file) or stream sequence, its tenant and the
// fingerprints of the policy's findings of the rule in it.
type Ref struct {
	Line         int64    `json:"line,omitempty"`
	Seq          uint64   `json:"seq,omitempty"`
	Tenant       string   `json:"tenant,omitempty"`
	Fingerprints []string `json:"fingerprints,omitempty"`
}

// TenantCount is one tenant's records: how many, how many changed, and by
// rule how many records the policy adds findings to.
type TenantCount struct {
	Tenant  string           `json:"tenant"`
	Records int64            `json:"records"`
	Changed int64            `json:"changed"`
	Added   int64            `json:"added"`
	Rules   map[string]int64 `json:"rules,omitempty"`
}

// Bucket is one stretch of the timeline.
type Bucket struct {
	// From is the start: an RFC 3339 time, or a record number.
	From    string `json:"from"`
	Records int64  `json:"records"`
	// Added counts the records in which the policy finds more than the
	// baseline.
	Added int64 `json:"added"`
}

// timelineBuckets is how many buckets a timeline has at most.
const timelineBuckets = 48

// indexBucket is the record count of one bucket of the position
// timeline's fine grain.
const indexBucket = 1024

type aggregate struct {
	o         Options
	rep       Report
	rules     map[string]*RuleCount
	tenants   map[string]*TenantCount
	byMinute  map[int64]*Bucket // unix minute
	minuteDiv int64             // 1 (minutes), or 60 once there are too many
	byIndex   []Bucket
	timed     int64 // records with a time
}

func newAggregate(o Options) *aggregate {
	return &aggregate{o: o, rules: map[string]*RuleCount{}, tenants: map[string]*TenantCount{}, byMinute: map[int64]*Bucket{}, minuteDiv: 1}
}

func (a *aggregate) add(i int64, s *slot) {
	a.rep.Records++
	p, b := s.ev[0], s.ev[1]
	if !p.ok || !b.ok {
		a.rep.Failed++
		return
	}
	changed, added := p.outcome != b.outcome, false
	if p.outcome != b.outcome {
		a.rep.OutcomeChanged++
	}
	t := a.tenant(s.m.tenant)
	t.Records++
	visit := func(rule string) {
		np, nb := p.rules[rule], b.rules[rule]
		rc := a.rules[rule]
		if rc == nil {
			rc = &RuleCount{Rule: rule}
			a.rules[rule] = rc
		}
		if np > 0 {
			rc.Policy++
		}
		if nb > 0 {
			rc.Baseline++
		}
		if np > nb {
			rc.Added++
			changed, added = true, true
			if t.Rules == nil {
				t.Rules = map[string]int64{}
			}
			t.Rules[rule]++
			if len(rc.Refs) < a.o.MaxRefs {
				ref := Ref{Line: s.m.line, Seq: s.m.ref, Tenant: s.m.tenant}
				for _, f := range p.findings {
					if f.rule == rule && len(ref.Fingerprints) < maxFingerprints {
						ref.Fingerprints = append(ref.Fingerprints, f.fp)
					}
				}
				rc.Refs = append(rc.Refs, ref)
			} else {
				rc.RefsNotListed++
			}
		} else if nb > np {
			rc.Removed++
			changed = true
		}
	}
	for r := range p.rules {
		visit(r)
	}
	for r := range b.rules {
		if _, ok := p.rules[r]; !ok {
			visit(r)
		}
	}
	if changed {
		a.rep.Changed++
		t.Changed++
	}
	if added {
		t.Added++
	}
	a.timeline(i, s.m.at, added)
}

func (a *aggregate) tenant(name string) *TenantCount {
	if t := a.tenants[name]; t != nil {
		return t
	}
	if len(a.tenants) >= a.o.MaxTenants {
		name = OtherTenants
		if t := a.tenants[name]; t != nil {
			return t
		}
	}
	t := &TenantCount{Tenant: name}
	a.tenants[name] = t
	return t
}

func (a *aggregate) timeline(i int64, at time.Time, added bool) {
	k := i / indexBucket
	for int64(len(a.byIndex)) <= k {
		a.byIndex = append(a.byIndex, Bucket{From: fmt.Sprint(int64(len(a.byIndex))*indexBucket + 1)})
	}
	a.byIndex[k].Records++
	if added {
		a.byIndex[k].Added++
	}
	if at.IsZero() {
		return
	}
	a.timed++
	m := at.Unix() / 60 / a.minuteDiv
	bk := a.byMinute[m]
	if bk == nil {
		if len(a.byMinute) >= 200000 && a.minuteDiv == 1 {
			// A long history: count by hour from here on.
			old := a.byMinute
			a.byMinute, a.minuteDiv = map[int64]*Bucket{}, 60
			for k, v := range old {
				h := a.byMinute[k/60]
				if h == nil {
					h = &Bucket{}
					a.byMinute[k/60] = h
				}
				h.Records += v.Records
				h.Added += v.Added
			}
			m = at.Unix() / 3600
		}
		if bk = a.byMinute[m]; bk == nil {
			bk = &Bucket{}
			a.byMinute[m] = bk
		}
	}
	bk.Records++
	if added {
		bk.Added++
	}
}

func (a *aggregate) report() *Report {
	r := a.rep
	for _, rc := range a.rules {
		r.Rules = append(r.Rules, *rc)
	}
	slices.SortFunc(r.Rules, func(x, y RuleCount) int {
		return cmp.Or(cmp.Compare(y.Added, x.Added), strings.Compare(x.Rule, y.Rule))
	})
	for _, t := range a.tenants {
		r.Tenants = append(r.Tenants, *t)
	}
	slices.SortFunc(r.Tenants, func(x, y TenantCount) int {
		return cmp.Or(cmp.Compare(y.Added, x.Added), strings.Compare(x.Tenant, y.Tenant))
	})
	if r.Rules == nil {
		r.Rules = []RuleCount{}
	}
	if r.Tenants == nil {
		r.Tenants = []TenantCount{}
	}
	// By time when every record has one, else by position.
	if a.timed > 0 && a.timed == r.Records {
		r.TimeAxis = "time"
		keys := make([]int64, 0, len(a.byMinute))
		for k := range a.byMinute {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		lo, hi := keys[0], keys[len(keys)-1]
		width := (hi-lo)/timelineBuckets + 1
		unit := 60 * a.minuteDiv
		for _, k := range keys {
			j := (k - lo) / width
			for int64(len(r.Timeline)) <= j {
				r.Timeline = append(r.Timeline, Bucket{From: time.Unix((lo+int64(len(r.Timeline))*width)*unit, 0).UTC().Format(time.RFC3339)})
			}
			r.Timeline[j].Records += a.byMinute[k].Records
			r.Timeline[j].Added += a.byMinute[k].Added
		}
	} else {
		r.TimeAxis = "record"
		per := (len(a.byIndex) + timelineBuckets - 1) / timelineBuckets
		for j := 0; j < len(a.byIndex); j += max(per, 1) {
			b := Bucket{From: a.byIndex[j].From}
			for _, x := range a.byIndex[j:min(j+per, len(a.byIndex))] {
				b.Records += x.Records
				b.Added += x.Added
			}
			r.Timeline = append(r.Timeline, b)
		}
	}
	if r.Timeline == nil {
		r.Timeline = []Bucket{}
	}
	return &r
}

// WriteFiles writes report.json, report.md and findings.svg into dir
// (created 0750 if absent).
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(js, '\n'), 0o640); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "findings.svg"), r.SVG(), 0o640); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), r.Markdown(), 0o640)
}

// Markdown renders the report.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Re-scan: %s against %s\n\n", r.Policy.Version, r.Baseline.Version)
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| policy | `%s` %s |\n| baseline | `%s` %s |\n", r.Policy.Version, r.Policy.Source, r.Baseline.Version, r.Baseline.Source)
	fmt.Fprintf(&b, "| records | %d (%.1f MB) |\n| changed | %d (%d with another outcome) |\n", r.Records, float64(r.Bytes)/1e6, r.Changed, r.OutcomeChanged)
	if r.Seconds > 0 {
		fmt.Fprintf(&b, "| time | %.1f s, %.0f records/s, %.1f MB/s |\n", r.Seconds, float64(r.Records)/r.Seconds, float64(r.Bytes)/1e6/r.Seconds)
	}
	if r.Failed > 0 {
		fmt.Fprintf(&b, "| failed | %d records an engine failed on |\n", r.Failed)
	}
	b.WriteString("\n## Findings over time\n\n![records in which the policy finds more than the baseline](findings.svg)\n\n")
	b.WriteString("## By rule\n\nRecords in which each policy finds the rule, and in which the policy finds more of it than the baseline (added) or fewer (removed).\n\n")
	b.WriteString("| rule | policy | baseline | added | removed | first records added |\n|---|---:|---:|---:|---:|---|\n")
	for _, rc := range r.Rules {
		var refs []string
		for _, ref := range rc.Refs[:min(len(rc.Refs), 5)] {
			refs = append(refs, ref.String())
		}
		more := ""
		if n := int64(len(rc.Refs)-min(len(rc.Refs), 5)) + rc.RefsNotListed; n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %s%s |\n", rc.Rule, rc.Policy, rc.Baseline, rc.Added, rc.Removed, strings.Join(refs, ", "), more)
	}
	b.WriteString("\n## By tenant\n\n| tenant | records | changed | with findings added | by rule |\n|---|---:|---:|---:|---|\n")
	for _, t := range r.Tenants {
		name := t.Tenant
		if name == "" {
			name = "(none)"
		}
		var rules []string
		for k, v := range t.Rules {
			rules = append(rules, fmt.Sprintf("`%s` %d", k, v))
		}
		slices.Sort(rules)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", name, t.Records, t.Changed, t.Added, strings.Join(rules, ", "))
	}
	b.WriteString("\nEvery record reference and fingerprint is in report.json; no record content is in either file.\n")
	return []byte(b.String())
}

// String names a reference: "line 12" or "seq 345".
func (r Ref) String() string {
	if r.Seq != 0 {
		return fmt.Sprintf("seq %d", r.Seq)
	}
	return fmt.Sprintf("line %d", r.Line)
}

// SVG draws the timeline: per bucket, the records and (darker) those in
// which the policy finds more than the baseline.
func (r *Report) SVG() []byte {
	const w, h, left, bottom, top = 760, 240, 56, 40, 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="14">records (light) and records with findings added by %s (dark), by %s</text>`+"\n", left, xmlEscape(r.Policy.Version), r.TimeAxis)
	var most int64 = 1
	for _, x := range r.Timeline {
		most = max(most, x.Records)
	}
	plotW, plotH := float64(w-left-10), float64(h-bottom-top)
	n := max(len(r.Timeline), 1)
	bw := plotW / float64(n)
	for i, x := range r.Timeline {
		xx := float64(left) + float64(i)*bw
		hr := plotH * float64(x.Records) / float64(most)
		ha := plotH * float64(x.Added) / float64(most)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#c6d4e8"/>`+"\n", xx, float64(top)+plotH-hr, bw*0.9, hr)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#b2182b"><title>%s: %d of %d</title></rect>`+"\n", xx, float64(top)+plotH-ha, bw*0.9, ha, xmlEscape(x.From), x.Added, x.Records)
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", left, top+int(plotH), w-10, top+int(plotH))
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d</text>`+"\n", left-4, top+8, most)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">0</text>`+"\n", left-4, top+int(plotH))
	if len(r.Timeline) > 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", left, h-bottom+16, xmlEscape(r.Timeline[0].From))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", w-10, h-bottom+16, xmlEscape(r.Timeline[len(r.Timeline)-1].From))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
