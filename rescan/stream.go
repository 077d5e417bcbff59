package rescan

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// The result records of a re-scan job over a stream (worker.RunRescanJob):
// one JSON object per archived message, holding what the comparison needs
// of the two passes and nothing of the message:
//
//	{"seq":N,"tenant":"…","time":"…","policy":{summary},"baseline":{summary}}
//	{"seq":N,"tenant":"…","time":"…","failed":"<reason>"}
//
// where a summary is {"policyVersion","outcome","rules","findings":[{"rule","fingerprint"}]}.

// AppendResult appends the result record of an archived message.
func AppendResult(dst []byte, seq uint64, tenant string, at time.Time, policy, baseline *pipeline.Evidence) []byte {
	dst = appendResultHead(dst, seq, tenant, at)
	dst = appendSummary(append(dst, `,"policy":`...), policy)
	dst = appendSummary(append(dst, `,"baseline":`...), baseline)
	return append(dst, '}')
}

// AppendFailedResult appends the result record of a message that could
// not be re-scanned (reason: a token such as "claimed-body").
func AppendFailedResult(dst []byte, seq uint64, tenant string, at time.Time, reason string) []byte {
	dst = appendResultHead(dst, seq, tenant, at)
	dst = pipeline.AppendJSONString(append(dst, `,"failed":`...), reason)
	return append(dst, '}')
}

func appendResultHead(dst []byte, seq uint64, tenant string, at time.Time) []byte {
	dst = strconv.AppendUint(append(dst, `{"seq":`...), seq, 10)
	dst = pipeline.AppendJSONString(append(dst, `,"tenant":`...), label(tenant))
	if !at.IsZero() {
		dst = pipeline.AppendJSONString(append(dst, `,"time":`...), at.UTC().Format(time.RFC3339Nano))
	}
	return dst
}

func appendSummary(dst []byte, ev *pipeline.Evidence) []byte {
	dst = pipeline.AppendJSONString(append(dst, `{"policyVersion":`...), ev.PolicyVersion)
	dst = pipeline.AppendJSONString(append(dst, `,"outcome":`...), string(ev.Outcome))
	dst = append(dst, `,"rules":{`...)
	for i, r := range ev.RuleNames() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = pipeline.AppendJSONString(dst, r)
		dst = strconv.AppendInt(append(dst, ':'), ev.Rules[r], 10)
	}
	dst = append(dst, `},"findings":[`...)
	n := 0
	for _, f := range ev.Findings {
		if f.Fingerprint == "" {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = pipeline.AppendJSONString(append(dst, `{"rule":`...), f.Rule)
		dst = pipeline.AppendJSONString(append(dst, `,"fingerprint":`...), f.Fingerprint)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// AddResult counts a result record; a sequence counted before is not
// counted again (a result published twice by a process killed between
// publishing it and acknowledging its message). It reports whether the
// record was counted.
func (c *Comparison) AddResult(data []byte) bool {
	var r struct {
		Seq      uint64          `json:"seq"`
		Tenant   string          `json:"tenant"`
		Time     string          `json:"time"`
		Policy   json.RawMessage `json:"policy"`
		Baseline json.RawMessage `json:"baseline"`
		Failed   string          `json:"failed"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Seq == 0 {
		return false
	}
	if c.seen == nil {
		c.seen = map[uint64]struct{}{}
	}
	if _, dup := c.seen[r.Seq]; dup {
		c.dups++
		return false
	}
	c.seen[r.Seq] = struct{}{}
	at, _ := time.Parse(time.RFC3339Nano, r.Time)
	if r.Failed != "" {
		c.Add(r.Seq, r.Tenant, at, nil, nil)
		return true
	}
	c.Add(r.Seq, r.Tenant, at, r.Policy, r.Baseline)
	return true
}

// Duplicates returns how many result records AddResult did not count
// again.
func (c *Comparison) Duplicates() int64 { return c.dups }

// Seqs returns the sequences counted, sorted (for tests and audits).
func (c *Comparison) Seqs() []uint64 {
	s := make([]uint64, 0, len(c.seen))
	for k := range c.seen {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}
