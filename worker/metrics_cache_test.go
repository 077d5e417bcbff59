package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// TestMetricsObserveCached: observe counts through its cached children
// exactly what label lookups count, for every path, known kinds, the
// unknown kind and an outcome outside the known four; and the series that
// exist are those the messages made (a kind never seen has no byte or
// duration series, the unknown kind no message series before its first
// message).
func TestMetricsObserveCached(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if n := seriesWith(t, reg, metricPrefix+"messages_total", KindUnknown); n != 0 {
		t.Fatalf("unknown-kind message series before any message: %d", n)
	}
	type obs struct {
		path, kind string
		outcome    pipeline.Outcome
		in, out    int64
	}
	cases := []obs{
		{PathInline, "tool-result", pipeline.OutcomeClean, 100, 120},
		{PathInline, "tool-result", pipeline.OutcomeClean, 10, 20},
		{PathInline, "tool-result", pipeline.OutcomeRejected, 5, 50},
		{PathDurable, "tool-result", pipeline.OutcomeSanitized, 7, 9},
		{PathDurable, "resource-result", pipeline.OutcomeTruncated, 1000, 500},
		{PathInline, "made-up-kind", pipeline.OutcomeClean, 3, 4},
		{PathDurable, "prompt-result", pipeline.Outcome("other"), 1, 1},
	}
	type pk struct{ path, kind string }
	wantMsgs := map[[3]string]float64{}
	wantIn, wantOut := map[pk]float64{}, map[pk]float64{}
	wantObs := map[pk]uint64{}
	for _, c := range cases {
		m.observe(c.path, &pipeline.Evidence{Kind: c.kind, Outcome: c.outcome, Input: pipeline.Digest{Bytes: c.in}, Output: pipeline.Digest{Bytes: c.out}}, time.Now())
		k := kindLabel(pipeline.Kind(c.kind))
		wantMsgs[[3]string{c.path, k, string(c.outcome)}]++
		wantIn[pk{c.path, k}] += float64(c.in)
		wantOut[pk{c.path, k}] += float64(c.out)
		wantObs[pk{c.path, k}]++
	}
	for l, want := range wantMsgs {
		if got := counterValue(m.Messages.WithLabelValues(l[0], l[1], l[2])); got != want {
			t.Errorf("messages %v: %v, want %v", l, got, want)
		}
	}
	for l, want := range wantIn {
		if got := counterValue(m.InputBytes.WithLabelValues(l.path, l.kind)); got != want {
			t.Errorf("input bytes %v: %v, want %v", l, got, want)
		}
		if got := counterValue(m.OutputBytes.WithLabelValues(l.path, l.kind)); got != wantOut[l] {
			t.Errorf("output bytes %v: %v, want %v", l, got, wantOut[l])
		}
	}
	// Byte and duration series exist for what was observed only; the
	// unknown kind's message series only for the outcome it had.
	if n, want := seriesWith(t, reg, metricPrefix+"input_bytes_total", ""), len(wantIn); n != want {
		t.Errorf("input byte series: %d, want %d", n, want)
	}
	if n, want := seriesWith(t, reg, metricPrefix+"duration_seconds", ""), len(wantObs); n != want {
		t.Errorf("duration series: %d, want %d", n, want)
	}
	if n := seriesWith(t, reg, metricPrefix+"messages_total", KindUnknown); n != 1 {
		t.Errorf("unknown-kind message series: %d, want 1", n)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != metricPrefix+"duration_seconds" {
			continue
		}
		for _, s := range mf.GetMetric() {
			var key pk
			for _, lp := range s.GetLabel() {
				switch lp.GetName() {
				case "path":
					key.path = lp.GetValue()
				case "kind":
					key.kind = lp.GetValue()
				}
			}
			if got := s.GetHistogram().GetSampleCount(); got != wantObs[key] {
				t.Errorf("duration %v: %d observations, want %d", key, got, wantObs[key])
			}
		}
	}
}

// seriesWith counts the series of metric name that have a label value
// containing sub ("" counts all).
func seriesWith(t *testing.T, reg *prometheus.Registry, name, sub string) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, s := range mf.GetMetric() {
			match := sub == ""
			for _, lp := range s.GetLabel() {
				if sub != "" && strings.Contains(lp.GetValue(), sub) {
					match = true
				}
			}
			if match {
				n++
			}
		}
	}
	return n
}
