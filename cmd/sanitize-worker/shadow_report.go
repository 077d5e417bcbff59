package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/rescan"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker policy shadow-report` summarizes the shadow records of
// a time range (worker/shadow.go): per shadow and active version, per rule
// and tenant, what the shadow policy would have changed differently.

func runShadowReport(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy shadow-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsClientFlags
	nf.register(fs)
	since := fs.String("since", "", "first record `T` (RFC 3339 or a duration before now such as 24h)")
	until := fs.String("until", "", "last record `T`")
	dir := fs.String("report", "", "also write report.json, report.md and findings.svg of each pair into `DIR`/<shadow>-vs-<active>")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "sanitize-worker policy shadow-report: %s\n", msg)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument")
	}
	if err := nf.check(fs, lookup); err != nil {
		return usageErr(err.Error())
	}
	now := time.Now()
	t0, err1 := parseWhen(*since, now)
	t1, err2 := parseWhen(*until, now)
	if err1 != nil || err2 != nil {
		return usageErr("--since and --until take RFC 3339 times or durations such as 24h")
	}
	sf := &stateFlags{creds: nf.creds, nkey: nf.nkey, tlsCA: nf.tlsCA, tlsCert: nf.tlsCert, tlsKey: nf.tlsKey, drainTimeout: nf.timeout}
	nc, _, err := sf.connect(nf.url, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker policy shadow-report: cannot connect to NATS at "+redactNATSURLs(nf.url))
		return exitFailure
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return exitFailure
	}
	type pair struct{ shadow, active string }
	cmps := map[pair]*rescan.Comparison{}
	var skipped int64
	err = worker.ReadStreamSubject(ctx, js, wire.StreamEvidence, worker.ShadowEvidencePrefix+".>", t0, t1, func(seq uint64, at time.Time, data []byte) error {
		sh, ac, tenant, ok := worker.SplitShadowRecord(data)
		if !ok {
			skipped++
			return nil
		}
		var v struct {
			PolicyVersion string `json:"policyVersion"`
		}
		var k pair
		if json.Unmarshal(sh, &v) == nil {
			k.shadow = v.PolicyVersion
		}
		if json.Unmarshal(ac, &v) == nil {
			k.active = v.PolicyVersion
		}
		c := cmps[k]
		if c == nil {
			c = rescan.NewComparison(rescan.Options{})
			cmps[k] = c
		}
		c.Add(seq, tenant, at, sh, ac)
		return nil
	})
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy shadow-report: %v\n", err)
		return exitFailure
	}
	keys := make([]pair, 0, len(cmps))
	for k := range cmps {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pair) int {
		return cmp.Or(strings.Compare(a.shadow, b.shadow), strings.Compare(a.active, b.active))
	})
	var reports []*rescan.Report
	for _, k := range keys {
		r := cmps[k].Report()
		r.Policy = rescan.PolicyRef{Version: k.shadow, Source: "shadow"}
		r.Baseline = rescan.PolicyRef{Version: k.active, Source: "active"}
		reports = append(reports, r)
		if *dir != "" {
			sub := filepath.Join(*dir, k.shadow+"-vs-"+k.active)
			if err := r.WriteFiles(sub); err != nil {
				fmt.Fprintf(stderr, "sanitize-worker policy shadow-report: cannot write into %s\n", filepath.Base(*dir))
				return exitFailure
			}
		}
	}
	if *asJSON {
		if reports == nil {
			reports = []*rescan.Report{}
		}
		return writeJSON(stdout, stderr, reports)
	}
	if len(reports) == 0 {
		fmt.Fprintln(stdout, "no shadow records in the range")
	}
	for _, r := range reports {
		fmt.Fprintf(stdout, "shadow %s vs active %s: %d messages, %d would change (%d with another outcome)\n", r.Policy.Version, r.Baseline.Version, r.Records, r.Changed, r.OutcomeChanged)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tSHADOW\tACTIVE\tADDED\tREMOVED")
		for _, rc := range r.Rules {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", rc.Rule, rc.Policy, rc.Baseline, rc.Added, rc.Removed)
		}
		fmt.Fprintln(tw, "TENANT\tMESSAGES\tCHANGED\tADDED\t")
		for _, tc := range r.Tenants {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", tc.Tenant, tc.Records, tc.Changed, tc.Added)
		}
		tw.Flush()
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%d records on the shadow subjects were not shadow records\n", skipped)
	}
	return exitOK
}
