package worker

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Metrics are the Prometheus collectors of the sanitization service. They
// are registered on the Registerer given to NewMetrics, never in init.
//
// Every label takes its values from a fixed set: path (inline, durable),
// kind (the pipeline kinds and "unknown"), outcome (the pipeline outcomes
// and "failed", "dlq"), rule id (the policy's catalog), bound id and action
// (package bounds), code (pipeline and payload codes), stream (the four
// stream names and "reply"). Tenants, servers, tools and request ids never
// become labels: they are unbounded and chosen by producers.
type Metrics struct {
	Messages         *prometheus.CounterVec   // path, kind, outcome
	InputBytes       *prometheus.CounterVec   // path, kind
	OutputBytes      *prometheus.CounterVec   // path, kind
	Redactions       *prometheus.CounterVec   // rule
	Normalized       *prometheus.CounterVec   // class
	BoundHits        *prometheus.CounterVec   // bound, action
	Rejections       *prometheus.CounterVec   // path, code
	Duration         *prometheus.HistogramVec // path, kind
	InFlight         *prometheus.GaugeVec     // path
	Redeliveries     *prometheus.CounterVec   // kind
	Naks             *prometheus.CounterVec   // code
	DLQ              *prometheus.CounterVec   // code
	PublishFailures  *prometheus.CounterVec   // stream
	FetchErrors      prometheus.Counter
	PullRequests     *prometheus.CounterVec // status
	PublishRetries   *prometheus.CounterVec // stream
	Reacks           prometheus.Counter
	Stranded         prometheus.Counter
	Stalled          prometheus.Gauge
	ConsumerAckPend  prometheus.Gauge
	ConsumerPending  prometheus.Gauge
	ConsumerRedelivd prometheus.Gauge
	ConsumerWaiting  prometheus.Gauge
	ConsumerInfoAge  prometheus.Gauge

	// The in-flight gauges of the two paths, looked up once: they change
	// twice per message.
	inFlightInline, inFlightDurable prometheus.Gauge
	// byPathKind caches, by path and kind label (pathKind), the children
	// observe updates for every message (*pathKindMetrics): a label lookup
	// hashes the values and takes the vector's lock. A child is cached when
	// observe first needs it, so the series that exist are the same as
	// without the cache.
	byPathKind sync.Map
}

type pathKind struct{ path, kind string }

// pathKindMetrics are the children of one path and kind label.
type pathKindMetrics struct {
	messages      [len(knownOutcomes)]prometheus.Counter // by knownOutcomes
	input, output prometheus.Counter
	duration      prometheus.Observer
}

// knownOutcomes are the outcomes of a pass, the index of
// pathKindMetrics.messages.
var knownOutcomes = [...]pipeline.Outcome{pipeline.OutcomeClean, pipeline.OutcomeSanitized, pipeline.OutcomeTruncated, pipeline.OutcomeRejected}

// Label values of Metrics.
const (
	PathInline   = "inline"
	PathDurable  = "durable"
	OutcomeFail  = "failed" // a durable attempt that will be retried (nak)
	OutcomeDLQ   = "dlq"    // a durable message sent to the dead-letter stream
	KindUnknown  = "unknown"
	StreamReply  = "reply"
	metricPrefix = "mcp_sanitize_"
)

// DefaultDurationBuckets are the latency buckets in seconds: 100 µs to 30 s.
var DefaultDurationBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// NewMetrics creates the collectors and registers them on reg. A nil reg
// leaves them unregistered (they still count, for tests).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "messages_total",
			Help: "Messages sanitized, by path, kind and outcome (clean, sanitized, truncated, rejected; failed and dlq on the durable path).",
		}, []string{"path", "kind", "outcome"}),
		InputBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "input_bytes_total",
			Help: "Bytes of message bodies read (after decoding), by path and kind.",
		}, []string{"path", "kind"}),
		OutputBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "output_bytes_total",
			Help: "Bytes of sanitized messages written, by path and kind.",
		}, []string{"path", "kind"}),
		Redactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "redactions_total",
			Help: "Secret and tag findings, by rule id.",
		}, []string{"rule"}),
		Normalized: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "normalized_chars_total",
			Help: "Characters removed by class (zero-width, bidi, tag-char, variation-selector, control, default-ignorable, escape-sequence) and confusable letters folded (confusable-folded).",
		}, []string{"class"}),
		BoundHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "bound_hits_total",
			Help: "Bounds crossed, by bound id and action (truncate, reject).",
		}, []string{"bound", "action"}),
		Rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "rejections_total",
			Help: "Messages replaced by an error result, by path and stable code.",
		}, []string{"path", "code"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    metricPrefix + "duration_seconds",
			Help:    "Time from receiving a message to its output being published (reply sent, or clean and evidence acknowledged), by path and kind.",
			Buckets: DefaultDurationBuckets,
		}, []string{"path", "kind"}),
		InFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: metricPrefix + "in_flight",
			Help: "Messages being processed, by path.",
		}, []string{"path"}),
		Redeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "redeliveries_total",
			Help: "Durable messages received with a delivery count above 1, by kind.",
		}, []string{"kind"}),
		Naks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "naks_total",
			Help: "Durable attempts that failed and were handed back for redelivery, by stable code.",
		}, []string{"code"}),
		DLQ: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "dlq_total",
			Help: "Durable messages sent to the dead-letter stream after MaxDeliver attempts, by stable code.",
		}, []string{"code"}),
		PublishFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "publish_failures_total",
			Help: "Publishes that failed or were not acknowledged, by stream (MCP_CLEAN, MCP_EVIDENCE, MCP_DLQ, reply).",
		}, []string{"stream"}),
		FetchErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: metricPrefix + "fetch_errors_total",
			Help: "Pull requests on the durable consumer that failed: status bad-request or other of pull_requests_total (a pull status of the cluster is not a failure).",
		}),
		PullRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "pull_requests_total",
			Help: "Pull requests on the durable consumer, by how they ended (complete, expired, batch-completed, leadership-change, consumer-deleted, server-shutdown, no-heartbeat, pin-mismatch, no-responders, connection, bad-request, other).",
		}, []string{"status"}),
		PublishRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "publish_retries_total",
			Help: "Durable output publishes sent again within an attempt after a cluster failure (timeout, no responders, connection), by stream.",
		}, []string{"stream"}),
		Reacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: metricPrefix + "reacks_total",
			Help: "Acknowledgements sent again after a reconnect (they may have been lost with the connection).",
		}),
		Stranded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: metricPrefix + "stranded_total",
			Help: "Inputs sent to the DLQ from the server's max-deliveries advisory (their last delivery reached no worker, or its DLQ publish failed); also counted in dlq_total.",
		}),
		Stalled: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "stalled",
			Help: "1 when the durable consumer has input and this worker received and finished nothing for the stall time; /readyz then fails.",
		}),
		ConsumerAckPend: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "consumer_ack_pending",
			Help: "Messages delivered by the durable consumer and not yet acknowledged (fleet-wide; compare with MaxAckPending).",
		}),
		ConsumerPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "consumer_pending",
			Help: "Messages of MCP_RAW not yet delivered by the durable consumer (fleet-wide backlog).",
		}),
		ConsumerRedelivd: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "consumer_redelivered",
			Help: "Messages of the durable consumer waiting for redelivery (fleet-wide).",
		}),
		ConsumerWaiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "consumer_waiting_pulls",
			Help: "Pull requests waiting at the durable consumer (fleet-wide).",
		}),
		ConsumerInfoAge: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: metricPrefix + "consumer_info_age_seconds",
			Help: "Age of the consumer_* gauges: time since the consumer's counts were last read.",
		}),
	}
	if reg != nil {
		for _, c := range m.collectors() {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	// Known label values are created up front so that dashboards see zeros.
	for _, k := range pipeline.Kinds() {
		for _, p := range []string{PathInline, PathDurable} {
			for _, o := range knownOutcomes {
				m.Messages.WithLabelValues(p, string(k), string(o))
			}
		}
	}
	for _, st := range pullStatuses {
		m.PullRequests.WithLabelValues(st)
	}
	m.inFlightInline = m.InFlight.WithLabelValues(PathInline)
	m.inFlightDurable = m.InFlight.WithLabelValues(PathDurable)
	return m, nil
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Messages, m.InputBytes, m.OutputBytes, m.Redactions, m.Normalized, m.BoundHits,
		m.Rejections, m.Duration, m.InFlight, m.Redeliveries, m.Naks, m.DLQ, m.PublishFailures,
		m.FetchErrors, m.PullRequests, m.PublishRetries, m.Reacks, m.Stranded, m.Stalled,
		m.ConsumerAckPend, m.ConsumerPending, m.ConsumerRedelivd, m.ConsumerWaiting, m.ConsumerInfoAge}
}

// kindLabel maps a kind to its label value: a known kind or "unknown".
func kindLabel(k pipeline.Kind) string {
	if _, ok := pipeline.ParseKind(string(k)); ok {
		return string(k)
	}
	return KindUnknown
}

// observe records one finished pass (the outcome of the evidence).
func (m *Metrics) observe(path string, ev *pipeline.Evidence, start time.Time) {
	kind := kindLabel(pipeline.Kind(ev.Kind))
	pk := m.pathKind(path, kind)
	if i := outcomeIndex(ev.Outcome); i >= 0 && pk.messages[i] != nil {
		pk.messages[i].Inc()
	} else {
		m.Messages.WithLabelValues(path, kind, string(ev.Outcome)).Inc()
	}
	pk.input.Add(float64(ev.Input.Bytes))
	pk.output.Add(float64(ev.Output.Bytes))
	for rule, n := range ev.Rules {
		m.Redactions.WithLabelValues(rule).Add(float64(n))
	}
	for class, n := range ev.Removed {
		m.Normalized.WithLabelValues(normClassLabel(class)).Add(float64(n))
	}
	if ev.ConfusablesFolded > 0 {
		m.Normalized.WithLabelValues(ClassConfusableFolded).Add(float64(ev.ConfusablesFolded))
	}
	for _, b := range ev.Bounds {
		m.BoundHits.WithLabelValues(b.Bound, b.Action).Inc()
	}
	if ev.Outcome == pipeline.OutcomeRejected {
		m.Rejections.WithLabelValues(path, codeLabel(ev.Code)).Inc()
	}
	pk.duration.Observe(time.Since(start).Seconds())
}

// pathKind returns the cached children of a path and kind label, creating
// them on first use. The message counters of a known kind exist from
// NewMetrics on and are cached with them; those of the unknown kind are
// left to observe's label lookup, so that a series appears only with its
// first message.
func (m *Metrics) pathKind(path, kind string) *pathKindMetrics {
	key := pathKind{path, kind}
	if v, ok := m.byPathKind.Load(key); ok {
		return v.(*pathKindMetrics)
	}
	pk := &pathKindMetrics{
		input:    m.InputBytes.WithLabelValues(path, kind),
		output:   m.OutputBytes.WithLabelValues(path, kind),
		duration: m.Duration.WithLabelValues(path, kind),
	}
	if kind != KindUnknown {
		for i, o := range knownOutcomes {
			pk.messages[i] = m.Messages.WithLabelValues(path, kind, string(o))
		}
	}
	v, _ := m.byPathKind.LoadOrStore(key, pk)
	return v.(*pathKindMetrics)
}

// outcomeIndex returns the index of o in knownOutcomes, or -1.
func outcomeIndex(o pipeline.Outcome) int {
	for i, k := range knownOutcomes {
		if o == k {
			return i
		}
	}
	return -1
}

// codeLabel bounds a code label to its charset and length (codes are
// constants, but a payload error could carry a code this build does not
// know).
func codeLabel(c pipeline.Code) string {
	s := string(c)
	if s == "" || len(s) > 32 {
		return "OTHER"
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
			return "OTHER"
		}
	}
	return s
}

// ClassConfusableFolded is the class label of folded confusable letters in
// mcp_sanitize_normalized_chars_total.
const ClassConfusableFolded = "confusable-folded"

// normClassLabel keeps a removed-character class label to the
// normalizer's classes (evidence could in principle be built elsewhere).
func normClassLabel(class string) string {
	for c := scanners.NormClass(0); c < scanners.NumNormClasses; c++ {
		if c.String() == class {
			return class
		}
	}
	return "unknown"
}
