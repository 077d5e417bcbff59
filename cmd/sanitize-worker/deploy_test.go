package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"sigs.k8s.io/yaml"

	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The deploy/ files that describe what this command does: the JetStream
// definitions of deploy/nats/jetstream/ must be what serve creates, and
// every metric the Grafana dashboard and the PrometheusRule query must be
// in serve's registry.

var updateDeploy = flag.Bool("update-deploy", false, "rewrite deploy/nats/jetstream/ from what serve creates")

const deployDir = "../../deploy"

// TestJetStreamDefinitions starts serve (embedded server, catalog and state
// service on, one replica), reads back every stream and the consumer it
// created, and compares each with its file in deploy/nats/jetstream/
// (written for three replicas). Regenerate with
// go test ./cmd/sanitize-worker -run TestJetStreamDefinitions -update-deploy.
func TestJetStreamDefinitions(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "keys.json")
	if code, _, stderr := keysCmd(t, "new", "--file", keyFile); code != exitOK {
		t.Fatalf("keys new: %s", stderr)
	}
	var logs stateLog
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readyc := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- runServeEnv(ctx, []string{"--embedded-dir", filepath.Join(dir, "nats"), "--embedded-port", "-1", "--http-addr", "", "--state-keys", keyFile},
			envOf(nil), &logs, func(n, _ string) { readyc <- n })
	}()
	var url string
	select {
	case url = <-readyc:
	case code := <-exit:
		t.Fatalf("serve exited with %d: %s", code, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve not ready: %s", logs.String())
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{} // file name -> configuration
	names := js.StreamNames(ctx)
	for name := range names.Name() {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got["stream-"+name+".json"] = definition(t, s.CachedInfo().Config, true)
		infos := s.ListConsumers(ctx)
		for ci := range infos.Info() {
			if ci.Config.Durable == "" {
				continue // ephemeral consumers of the services (KV watches)
			}
			got["consumer-"+name+"-"+ci.Name+".json"] = definition(t, ci.Config, false)
		}
		if infos.Err() != nil {
			t.Fatal(infos.Err())
		}
	}
	if names.Err() != nil {
		t.Fatal(names.Err())
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("serve exit %d", code)
	}
	for _, want := range []string{"stream-MCP_RAW.json", "stream-MCP_CLEAN.json", "stream-MCP_EVIDENCE.json", "stream-MCP_DLQ.json",
		"stream-KV_mcp-tools.json", "stream-OBJ_mcp-payloads.json", "consumer-MCP_RAW-sanitize-worker.json"} {
		if got[want] == nil {
			t.Errorf("serve did not create %s (got %v)", want, sortedKeys(got))
		}
	}

	defs := filepath.Join(deployDir, "nats", "jetstream")
	if *updateDeploy {
		os.RemoveAll(defs)
		if err := os.MkdirAll(defs, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, def := range got {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(def); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(defs, name), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(defs, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no definitions in %s", defs)
	}
	for _, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g := got[name]; g == nil {
			t.Errorf("%s: serve creates no such stream or consumer", name)
		} else if !reflect.DeepEqual(g, want) {
			gb, _ := json.MarshalIndent(g, "", "  ")
			t.Errorf("%s differs from what serve creates (with 3 replicas):\n%s", name, gb)
		}
		delete(got, name)
	}
	for name := range got {
		t.Errorf("serve creates %s but deploy/nats/jetstream/ has no file for it", name)
	}
}

// definition is a stream or consumer configuration as the server's JSON
// (the format of `nats stream add --config`), with the replicas of a
// three-node cluster and without the server's metadata.
func definition(t *testing.T, cfg any, stream bool) map[string]any {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "metadata")
	if stream {
		m["num_replicas"] = float64(3)
	} else if _, ok := m["num_replicas"]; ok {
		// 0: the consumer has the replicas of its stream.
		m["num_replicas"] = float64(0)
	}
	return m
}

// TestDeployMetricsExist: every metric a PromQL expression of the
// dashboard (deploy/grafana/) or the alerts (PrometheusRule in
// deploy/kubernetes/base/) names is in serve's registry, or is one of the
// NATS exporter's (prometheus-nats-exporter jsz collector names).
func TestDeployMetricsExist(t *testing.T) {
	have := registryNames(t)
	for _, n := range []string{"mcp_sanitize_messages_total", "mcp_sanitize_stalled", "mcp_sanitize_consumer_pending"} {
		if !have[n] {
			t.Fatalf("registry names %v lack %s: the test reads them wrong", sortedKeys(have), n)
		}
	}
	exprs := map[string][]string{}
	dash, err := filepath.Glob(filepath.Join(deployDir, "grafana", "*.json"))
	if err != nil || len(dash) == 0 {
		t.Fatal("no dashboard in deploy/grafana")
	}
	for _, f := range dash {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		collectExprs(d, func(e string) { exprs[f] = append(exprs[f], e) })
	}
	rule := filepath.Join(deployDir, "kubernetes", "base", "prometheusrule.yaml")
	b, err := os.ReadFile(rule)
	if err != nil {
		t.Fatal(err)
	}
	var pr any
	if err := yaml.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	collectExprs(pr, func(e string) { exprs[rule] = append(exprs[rule], e) })
	if len(exprs[rule]) < 5 {
		t.Fatalf("only %d alert expressions read from %s", len(exprs[rule]), rule)
	}
	seen := 0
	for f, list := range exprs {
		for _, e := range list {
			for _, n := range metricNames(e) {
				seen++
				if !have[n] && !natsExporterMetrics[n] && n != "up" {
					t.Errorf("%s: %q queries %s, which serve does not export", filepath.Base(f), e, n)
				}
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d metric references found", seen)
	}
}

// natsExporterMetrics are the JetStream metrics of prometheus-nats-exporter
// (-jsz=all, collector/jsz.go) that the dashboard uses.
var natsExporterMetrics = map[string]bool{
	"jetstream_consumer_num_pending":      true,
	"jetstream_consumer_num_ack_pending":  true,
	"jetstream_consumer_num_redelivered":  true,
	"jetstream_consumer_num_waiting":      true,
	"jetstream_stream_total_messages":     true,
	"jetstream_stream_total_bytes":        true,
	"jetstream_server_total_streams":      true,
	"jetstream_server_jetstream_disabled": true,
}

var descName = regexp.MustCompile(`fqName: "([a-zA-Z_:][a-zA-Z0-9_:]*)"`)

// registryNames returns the metric names that the collectors of serve's
// registry describe (also those of vectors without a child yet, which
// /metrics leaves out).
func registryNames(t *testing.T) map[string]bool {
	t.Helper()
	cs := serveCollectors(t)
	// They register together, as in serve.
	if err := prometheus.NewRegistry().Register(multiCollector(cs)); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	ch := make(chan *prometheus.Desc, 64)
	go func() {
		defer close(ch)
		for _, c := range cs {
			c.Describe(ch)
		}
	}()
	for d := range ch {
		m := descName.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		have[m[1]] = true
	}
	return have
}

// multiCollector registers several collectors as one.
type multiCollector []prometheus.Collector

func (m multiCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m {
		c.Describe(ch)
	}
}

func (m multiCollector) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m {
		c.Collect(ch)
	}
}

// serveCollectors returns the collectors serve registers: the Go and
// process collectors and every exported collector of worker.Metrics.
func serveCollectors(t *testing.T) []prometheus.Collector {
	m, err := worker.NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(m).Elem()
	var cs []prometheus.Collector
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if c, ok := v.Field(i).Interface().(prometheus.Collector); ok {
			cs = append(cs, c)
		}
	}
	return append(cs, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// collectExprs calls f with every "expr" string in a decoded JSON or YAML
// document.
func collectExprs(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "expr" {
				f(s)
				continue
			}
			collectExprs(e, f)
		}
	case []any:
		for _, e := range x {
			collectExprs(e, f)
		}
	}
}

var leadingDigits = regexp.MustCompile(`(^|[^a-zA-Z0-9_:])[0-9][0-9a-zA-Z_.]*`)

var promIdent = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)

// promKeywords are the PromQL words that are not metric names.
var promKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`sum min max avg count by without on ignoring group_left group_right and or unless
		rate irate increase delta deriv histogram_quantile clamp_min clamp_max absent absent_over_time time vector scalar
		topk bottomk sort sort_desc label_replace max_over_time min_over_time avg_over_time offset bool le`) {
		promKeywords[w] = true
	}
}

// metricNames returns the metric names in a PromQL expression: identifiers
// outside label matchers, grouping lists, strings and Grafana variables,
// with the _bucket, _sum and _count of histograms folded to their family.
func metricNames(expr string) []string {
	expr = leadingDigits.ReplaceAllString(expr, "$1 ")
	s := regexp.MustCompile(`"[^"]*"|\{[^}]*\}|\[[^\]]*\]|\$\w+|\b(by|without|on|ignoring)\s*\([^)]*\)`).ReplaceAllString(expr, " ")
	var out []string
	for _, id := range promIdent.FindAllString(s, -1) {
		if promKeywords[id] {
			continue
		}
		if strings.HasPrefix(id, "mcp_sanitize_") {
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				id = strings.TrimSuffix(id, suf)
			}
		}
		out = append(out, id)
	}
	return out
}

// TestMetricNamesOfExpr pins the expression reader of TestDeployMetricsExist.
func TestMetricNamesOfExpr(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`sum by (rule) (rate(mcp_sanitize_redactions_total{job="x"}[5m]))`, "mcp_sanitize_redactions_total"},
		{`histogram_quantile(0.99, sum by (le, path) (rate(mcp_sanitize_duration_seconds_bucket[$__rate_interval])))`, "mcp_sanitize_duration_seconds"},
		{`max(mcp_sanitize_stalled) == 1 or absent(up{job="a"})`, "mcp_sanitize_stalled up"},
		{`sum(jetstream_consumer_num_pending{consumer_name="sanitize-worker"}) / 1e3`, "jetstream_consumer_num_pending"},
	} {
		if got := strings.Join(metricNames(tc.expr), " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.expr, got, tc.want)
		}
	}
}
