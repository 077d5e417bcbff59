package worker

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/policyset"
)

// PolicyMetrics are the collectors of the policy a worker runs. The
// version label takes the value of a verified policy's version (a token of
// at most 64 bytes); each role has one series at a time, the previous
// version's is deleted on a swap.
type PolicyMetrics struct {
	// Info is 1 for the version of each role ("active", "shadow").
	Info *prometheus.GaugeVec // role, version
	// Swaps counts the policies taken into use, by role.
	Swaps *prometheus.CounterVec // role
	// Refused counts envelopes read from the bucket and refused, by
	// policyset.Reason (and "compile" for a policy the engine refused).
	Refused *prometheus.CounterVec // reason

	mu  sync.Mutex
	cur map[string]string // role -> version in Info
}

// Roles of a policy.
const (
	PolicyRoleActive = "active"
	PolicyRoleShadow = "shadow"
)

// NewPolicyMetrics builds the collectors and registers them on reg (nil:
// not registered).
func NewPolicyMetrics(reg prometheus.Registerer) (*PolicyMetrics, error) {
	m := &PolicyMetrics{
		Info: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricPrefix + "policy_info",
			Help: "1 for the policy version this worker runs in each role (active, shadow)."}, []string{"role", "version"}),
		Swaps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricPrefix + "policy_swaps_total",
			Help: "Policies taken into use from the policy bucket, by role."}, []string{"role"}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricPrefix + "policy_refused_total",
			Help: "Policy envelopes read from the bucket and refused (the running policy stays), by reason."}, []string{"reason"}),
		cur: map[string]string{},
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.Info, m.Swaps, m.Refused} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range []policyset.Reason{policyset.ReasonMalformed, policyset.ReasonTooLarge, policyset.ReasonUnsigned,
		policyset.ReasonUntrustedKey, policyset.ReasonBadSignature, policyset.ReasonDigestMismatch, policyset.ReasonInvalidPolicy} {
		m.Refused.WithLabelValues(string(r))
	}
	return m, nil
}

// SetVersion records the version a role runs ("" when the role has none).
func (m *PolicyMetrics) SetVersion(role, version string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.cur[role]; ok {
		if old == version {
			return
		}
		m.Info.DeleteLabelValues(role, old)
		delete(m.cur, role)
	}
	if version != "" {
		m.Info.WithLabelValues(role, version).Set(1)
		m.cur[role] = version
	}
}

// Version returns the version recorded for a role.
func (m *PolicyMetrics) Version(role string) string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur[role]
}
