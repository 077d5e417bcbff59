package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestServerNakDelay pins what the server does with NakWithDelay when the
// consumer has a back-off list (the reason for ConsumerConfig.nakDelay):
// the next delivery of delivery k comes d - BackOff[0] + BackOff[k-1]
// after the nak. If a server upgrade changes that, this test says so.
func TestServerNakDelay(t *testing.T) {
	s := serveTestServer(t)
	_, js := serveConnect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "NAK", Subjects: []string{"nak.>"}}); err != nil {
		t.Fatal(err)
	}
	backoff := []time.Duration{time.Second, 2 * time.Second}
	cons, err := js.CreateConsumer(ctx, "NAK", jetstream.ConsumerConfig{Durable: "d", AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: backoff[0], BackOff: backoff, MaxDeliver: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "nak.x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	next := func() (jetstream.Msg, time.Time) {
		t.Helper()
		b, err := cons.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range b.Messages() {
			return m, time.Now()
		}
		t.Fatal("no delivery")
		return nil, time.Time{}
	}
	const d = 1500 * time.Millisecond
	m, _ := next()
	m.NakWithDelay(d)
	nak := time.Now()
	m, at := next()
	// Delivery 1: d - 1s + 1s = d.
	if gap := at.Sub(nak); gap < d-50*time.Millisecond || gap > d+time.Second {
		t.Errorf("after delivery 1: next delivery %v after the nak, want about %v", gap, d)
	}
	m.NakWithDelay(d)
	nak = time.Now()
	_, at = next()
	// Delivery 2: d - 1s + 2s = d + 1s (not d).
	if want, gap := d+time.Second, at.Sub(nak); gap < want-50*time.Millisecond || gap > want+time.Second {
		t.Errorf("after delivery 2: next delivery %v after the nak, want about %v", gap, want)
	}
}

// failingResolver fails every message transiently and records when.
type failingResolver struct {
	mu    sync.Mutex
	calls []time.Time
}

func (r *failingResolver) Resolve(context.Context, *pipeline.MessageInfo, nats.Header) error {
	r.mu.Lock()
	r.calls = append(r.calls, time.Now())
	r.mu.Unlock()
	// Not ErrResolverUnavailable: no retry within the attempt.
	return errors.New("backend down")
}

func (r *failingResolver) times() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.calls...)
}

// TestRetrySchedule measures the deliveries of an input whose every attempt
// fails: delivery k+1 comes BackOff[k-1] after delivery k failed
// (ConsumerConfig.RetryAfter), and the last attempt sends it to the DLQ
// with its code and reason.
func TestRetrySchedule(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	r := &failingResolver{}
	cc := DefaultConsumerConfig()
	cc.MaxDeliver = 4
	cc.BackOff = []time.Duration{1500 * time.Millisecond, 500 * time.Millisecond, 2500 * time.Millisecond}
	startService(t, nc, WithInline(false), WithResolver(r), WithConsumer(cc), WithMessageTimeout(time.Second))
	publishRaw(t, js, 1)
	waitCount(t, js, wire.StreamDLQ, 1, 30*time.Second)
	calls := r.times()
	if len(calls) != cc.MaxDeliver {
		t.Fatalf("%d attempts, want %d", len(calls), cc.MaxDeliver)
	}
	want := cc.Schedule()
	for k := 1; k < len(calls); k++ {
		gap, step := calls[k].Sub(calls[k-1]), want[k]-want[k-1]
		if gap < step-50*time.Millisecond || gap > step+1500*time.Millisecond {
			t.Errorf("delivery %d came %v after delivery %d, want about %v", k+1, gap, k, step)
		}
	}
	d := streamMsgs(t, js, wire.StreamDLQ)[0]
	if d.Header.Get(wire.HeaderCode) != string(pipeline.CodeInternal) || d.Header.Get("Mcp-Deliveries") != "4" {
		t.Errorf("DLQ entry headers %v", d.Header)
	}
	var found bool
	for _, e := range streamMsgs(t, js, wire.StreamEvidence) {
		var rec struct {
			DLQ    bool   `json:"dlq"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(e.Data, &rec) == nil && rec.DLQ && rec.Reason == string(wire.ReasonResolverUnavailable) {
			found = true
		}
	}
	if !found {
		t.Error("no DLQ evidence record with the failure's reason")
	}
}

// TestStrandedToDLQ: an input whose last delivery no worker handled (here a
// client pulls it twice and never acknowledges) is not delivered again; the
// server's max-deliveries advisory brings it to the DLQ with reason
// max-deliveries, and it leaves MCP_RAW.
func TestStrandedToDLQ(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ensureStreams(t, js)
	cc := DefaultConsumerConfig()
	cc.MaxDeliver = 2
	cc.BackOff = []time.Duration{3 * time.Second}
	thief, err := EnsureConsumer(ctx, js, cc)
	if err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, 1)
	take := func() {
		t.Helper()
		b, err := thief.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for range b.Messages() {
			n++
		}
		if n != 1 {
			t.Fatalf("the thief got %d messages", n)
		}
	}
	take()
	take() // the redelivery after 3 s: the last one
	m, _ := NewMetrics(nil)
	startService(t, nc, WithInline(false), WithConsumer(cc), WithMessageTimeout(time.Second), WithMetrics(m))
	waitCount(t, js, wire.StreamDLQ, 1, 20*time.Second)
	waitCount(t, js, wire.StreamRaw, 0, 10*time.Second)
	d := streamMsgs(t, js, wire.StreamDLQ)[0]
	if d.Header.Get(wire.HeaderCode) != string(pipeline.CodeInternal) || d.Header.Get(wire.HeaderRequestID) != "req-0" {
		t.Errorf("DLQ entry headers %v", d.Header)
	}
	noSecrets(t, "DLQ entry", d.Data)
	if got := counterValue(m.Stranded); got != 1 {
		t.Errorf("stranded_total %v", got)
	}
	var reason string
	for _, e := range streamMsgs(t, js, wire.StreamEvidence) {
		var rec struct {
			DLQ    bool   `json:"dlq"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(e.Data, &rec) == nil && rec.DLQ {
			reason = rec.Reason
		}
	}
	if reason != ReasonMaxDeliveries {
		t.Errorf("DLQ evidence reason %q, want %q", reason, ReasonMaxDeliveries)
	}
	cons, err := js.Consumer(ctx, wire.StreamRaw, cc.Durable)
	if err != nil {
		t.Fatal(err)
	}
	checkFor(t, 10*time.Second, func() error {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumAckPending != 0 {
			return fmt.Errorf("ack pending %d", info.NumAckPending)
		}
		return nil
	})
}

// TestHealthAnswersAtOnce: /healthz and /readyz answer within 100 ms while
// the server is gone and the client reconnects, and /readyz says so.
func TestHealthAnswersAtOnce(t *testing.T) {
	s := serveTestServer(t)
	nc, _ := serveConnect(t, s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond), nats.Timeout(2*time.Second))
	svc := startService(t, nc, WithInline(false), WithConsumerStatsEvery(100*time.Millisecond))
	h := svc.Handler(nil)
	get := func(path string) (int, time.Duration) {
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, time.Since(start)
	}
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz %d before the server stops", code)
	}
	s.Shutdown()
	s.WaitForShutdown()
	defer nc.Close() // before Stop, which then does not wait for a server
	deadline := time.Now().Add(3 * time.Second)
	sawDown := false
	for time.Now().Before(deadline) {
		for _, path := range []string{"/healthz", "/readyz"} {
			code, took := get(path)
			if took > 100*time.Millisecond {
				t.Errorf("%s took %v", path, took)
			}
			if path == "/healthz" && code != http.StatusOK {
				t.Errorf("/healthz %d", code)
			}
			if path == "/readyz" && code == http.StatusServiceUnavailable {
				sawDown = true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !sawDown {
		t.Error("/readyz never said not ready while the server was gone")
	}
}

// TestStalledReported: the consumer has input but this worker receives
// nothing (another client holds the only ack-pending slot): after the stall
// time /readyz fails and the gauge is 1; once the input flows it recovers.
func TestStalledReported(t *testing.T) {
	s := serveTestServer(t)
	nc, js := serveConnect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ensureStreams(t, js)
	cc := fastConsumer(10 * time.Second)
	cc.MaxAckPending = 1
	other, err := EnsureConsumer(ctx, js, cc)
	if err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, 3)
	b, err := other.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var held jetstream.Msg
	for m := range b.Messages() {
		held = m
	}
	if held == nil {
		t.Fatal("nothing fetched")
	}
	m, _ := NewMetrics(nil)
	svc := startService(t, nc, WithInline(false), WithConsumer(cc), WithMetrics(m), WithMessageTimeout(500*time.Millisecond),
		WithPublishTimeout(500*time.Millisecond), WithStallAfter(1500*time.Millisecond), WithConsumerStatsEvery(100*time.Millisecond))
	checkFor(t, 10*time.Second, func() error {
		if !errors.Is(svc.Ready(ctx), ErrStalled) || gaugeValue(m.Stalled) != 1 {
			return fmt.Errorf("ready %v, stalled gauge %v", svc.Ready(ctx), gaugeValue(m.Stalled))
		}
		return nil
	})
	held.Ack()
	checkFor(t, 20*time.Second, func() error {
		if err := svc.Ready(ctx); err != nil {
			return err
		}
		if n, err := streamCount(js, wire.StreamClean); err != nil || n != 2 {
			return fmt.Errorf("MCP_CLEAN holds %d (%v)", n, err)
		}
		return nil
	})
	if gaugeValue(m.Stalled) != 0 {
		t.Error("stalled gauge still 1")
	}
}

func gaugeValue(g prometheus.Gauge) float64 {
	var d dto.Metric
	if g.Write(&d) != nil || d.Gauge == nil {
		return -1
	}
	return d.Gauge.GetValue()
}

func TestPullStatus(t *testing.T) {
	cases := []struct {
		err    error
		got, n int
		want   string
	}{
		{nil, 4, 4, PullComplete},
		{nil, 1, 4, PullExpired},
		{nil, 0, 4, PullExpired},
		{nats.ErrTimeout, 0, 4, PullExpired},
		{jetstream.ErrNoMessages, 0, 4, PullExpired},
		{jetstream.ErrBatchCompleted, 2, 4, PullBatchCompleted},
		{jetstream.ErrConsumerLeadershipChanged, 0, 4, PullLeadershipChange},
		{jetstream.ErrConsumerDeleted, 0, 4, PullConsumerDeleted},
		{jetstream.ErrServerShutdown, 0, 4, PullServerShutdown},
		{jetstream.ErrNoHeartbeat, 0, 4, PullNoHeartbeat},
		{jetstream.ErrPinIDMismatch, 0, 4, PullPinMismatch},
		{nats.ErrNoResponders, 0, 4, PullNoResponders},
		{nats.ErrConnectionClosed, 0, 4, PullConnection},
		{nats.ErrDisconnected, 0, 4, PullConnection},
		{jetstream.ErrBadRequest, 0, 4, PullBadRequest},
		{errors.New("nats: something new"), 0, 4, PullOther},
	}
	for _, c := range cases {
		if got := pullStatus(c.err, c.got, c.n); got != c.want {
			t.Errorf("pullStatus(%v, %d, %d) = %q, want %q", c.err, c.got, c.n, got, c.want)
		}
	}
	for _, st := range pullStatuses {
		p := pullPause(st, 0)
		switch st {
		case PullComplete, PullExpired, PullBatchCompleted:
			if p != 0 {
				t.Errorf("%s pauses %v", st, p)
			}
		default:
			if p <= 0 || p > 2*time.Second || pullPause(st, 10*time.Second) > 2*time.Second {
				t.Errorf("%s pauses %v", st, p)
			}
		}
	}
}

func TestScheduleValidation(t *testing.T) {
	cc := DefaultConsumerConfig()
	if got, want := cc.Schedule(), []time.Duration{0, 45 * time.Second, 105 * time.Second, 225 * time.Second, 345 * time.Second}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("default schedule %v, want %v", got, want)
	}
	if err := ValidateOptions(); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
	cases := []struct {
		name string
		opts []ServeOption
	}{
		{"window below the longest step plus an attempt", []ServeOption{WithStreams(func() StreamsConfig { c := DefaultStreamsConfig(); c.Duplicates = 3 * time.Minute; return c }())}},
		{"stall time within one pass", []ServeOption{WithStallAfter(35 * time.Second)}},
	}
	for _, c := range cases {
		if err := ValidateOptions(c.opts...); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", c.name, err)
		}
	}
	// A step only used after MaxDeliver does not count towards the window.
	cc = DefaultConsumerConfig()
	cc.MaxDeliver = 3
	cc.BackOff = []time.Duration{45 * time.Second, time.Minute}
	if cc.MaxGap() != time.Minute {
		t.Errorf("MaxGap %v", cc.MaxGap())
	}
}
