package rescan

import "time"

// Comparison counts pairs of evidence records (a policy's and a
// baseline's for one message) the way Run does, for pairs that come from
// elsewhere: the shadow records of a live fleet (`policy shadow-report`).
type Comparison struct {
	agg  *aggregate
	n    int64
	seen map[uint64]struct{} // sequences counted by AddResult
	dups int64
}

// NewComparison returns an empty comparison; Options.MaxRefs and
// MaxTenants apply.
func NewComparison(o Options) *Comparison {
	if o.MaxRefs == 0 {
		o.MaxRefs = DefaultMaxRefs
	}
	if o.MaxTenants == 0 {
		o.MaxTenants = DefaultMaxTenants
	}
	return &Comparison{agg: newAggregate(o)}
}

// Add counts one message: its reference (a stream sequence), tenant, time
// (zero: none) and the JSON of its two evidence records.
func (c *Comparison) Add(ref uint64, tenant string, at time.Time, policyEv, baselineEv []byte) {
	s := &slot{have: 7, m: meta{ref: ref, tenant: label(tenant), at: at}}
	s.ev[0], s.ev[1] = summarize(policyEv), summarize(baselineEv)
	c.agg.add(c.n, s)
	c.n++
}

// Report returns the counts so far.
func (c *Comparison) Report() *Report { return c.agg.report() }
