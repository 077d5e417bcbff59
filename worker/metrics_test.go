package worker

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestMetricsNormalized: removed characters by class and folded
// confusables are counted; a class the normalizer does not have becomes
// "unknown" (labels stay bounded).
func TestMetricsNormalized(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ev := &pipeline.Evidence{Kind: "tool-result", Outcome: pipeline.OutcomeSanitized,
		Removed:           map[string]int64{"zero-width": 3, "escape-sequence": 7, "made-up": 2},
		ConfusablesFolded: 4}
	m.observe(PathInline, ev, time.Now())
	for class, want := range map[string]float64{"zero-width": 3, "escape-sequence": 7, "unknown": 2, ClassConfusableFolded: 4, "bidi": 0} {
		if got := counterValue(m.Normalized.WithLabelValues(class)); got != want {
			t.Errorf("class %s: %v, want %v", class, got, want)
		}
	}
}
