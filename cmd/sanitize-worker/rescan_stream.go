package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/rescan"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// rescan --stream: a job over the archive stream, shared by every process
// that runs it with the same --job, resumable after a kill
// (worker.RunRescanJob); the process that sees the job finished writes the
// report from the job's results.

type streamRescan struct {
	nf          *natsClientFlags
	stream, job string
	since       time.Time
	until       time.Time
	workers     int
	ackWait     time.Duration
	replicas    int
	allow       []string // --allow-resource
	dir         string
	progress    string
	policy      *pipeline.Engine
	pRef        rescan.PolicyRef
	baseline    *pipeline.Engine // nil: each message's own policy
	bRef        rescan.PolicyRef
	loader      *policyLoader
	catalog     bool
}

type discardOut struct{}

func (discardOut) Write(p []byte) (int, error) { return len(p), nil }
func (discardOut) Discard() error              { return nil }

func (r *streamRescan) run(ctx context.Context, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker rescan: %s\n", fmt.Sprintf(format, a...))
		return exitFailure
	}
	sf := &stateFlags{creds: r.nf.creds, nkey: r.nf.nkey, tlsCA: r.nf.tlsCA, tlsCert: r.nf.tlsCert, tlsKey: r.nf.tlsKey, drainTimeout: r.nf.timeout}
	nc, _, err := sf.connect(r.nf.url, slog.New(slog.DiscardHandler))
	if err != nil {
		return fail("cannot connect to NATS at %s", redactNATSURLs(r.nf.url))
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fail("JetStream is not available")
	}
	// The tool catalog gives tool results their outputSchema, as serve
	// does (the catalog's present entry, which may be newer than the
	// message); pinning is off, so a re-scan never pins a definition.
	var resolver worker.Resolver
	if r.catalog {
		if _, err := js.KeyValue(ctx, wire.BucketTools); err == nil {
			cat, err := toolcat.Open(ctx, js, toolcat.Options{})
			if err != nil {
				return fail("tool catalog unavailable")
			}
			defer cat.Close()
			resolver = worker.CatalogResolver{Catalog: cat, NoPinning: true}
		}
	}
	// Baselines by the version that produced each message, compiled once.
	var bmu sync.Mutex
	baselines := map[string]*pipeline.Engine{}
	baselineFor := func(version string) (*pipeline.Engine, error) {
		if r.baseline != nil {
			return r.baseline, nil
		}
		bmu.Lock()
		defer bmu.Unlock()
		if e := baselines[version]; e != nil {
			return e, nil
		}
		var e *pipeline.Engine
		var err error
		if version == "" || version == "default" {
			e, err = pipeline.NewEngine(nil)
		} else {
			e, _, err = r.loader.version(version)
		}
		if err != nil {
			return nil, err
		}
		baselines[version] = e
		return e, nil
	}
	// Claimed bodies are archived as claims of their own bucket
	// (worker.ArchiveBodiesBucket), opened like any claim.
	var bodies jetstream.ObjectStore
	if st, err := payload.NewStore(ctx, js, worker.ArchiveBodiesBucket); err == nil {
		bodies = st
	}
	// Resources are authorized by --allow-resource (the deployment's hook
	// is not asked again for each archived read; none: refused, fail
	// closed).
	authz, err := rescanAuthorizer(r.allow)
	if err != nil {
		return fail("--allow-resource: %v", err)
	}
	var prog rescan.Progress
	var total int64
	if st, err := js.Stream(ctx, r.stream); err == nil {
		if si, err := st.Info(ctx); err == nil {
			total = int64(si.State.Msgs)
		}
	}
	fn := func(ctx context.Context, m worker.ArchivedMsg) ([]byte, error) {
		defer func() {
			prog.Records.Add(1)
			prog.Bytes.Add(int64(len(m.Data)))
		}()
		h := m.Header
		tenant := h.Get(wire.HeaderTenant)
		kind, ok := pipeline.ParseKind(h.Get(wire.HeaderKind))
		if !ok {
			return rescan.AppendFailedResult(nil, m.Seq, tenant, m.Stored, "unknown-kind"), nil
		}
		if payload.IsClaim(h) && bodies == nil {
			// Archived by a worker without the bodies bucket (or it was
			// removed): the claimed body cannot be read.
			return rescan.AppendFailedResult(nil, m.Seq, tenant, m.Stored, "claimed-body"), nil
		}
		be, err := baselineFor(h.Get(worker.HeaderArchivePolicy))
		if err != nil {
			return rescan.AppendFailedResult(nil, m.Seq, tenant, m.Stored, "baseline-unavailable"), nil
		}
		info := pipeline.MessageInfo{Kind: kind, Framing: pipeline.Framing(h.Get(wire.HeaderFraming)), Tool: h.Get(wire.HeaderTool), Server: h.Get(wire.HeaderServer), Tenant: tenant}
		// The guards' request context as archived; the same for both
		// policies.
		gi := worker.RequestContext(h, tenant)
		gi.Authorizer, gi.Budget = authz, uncharged{}
		info.Guard = gi
		if resolver != nil {
			if err := resolver.Resolve(ctx, &info, h); err != nil {
				var pe *pipeline.Error
				if errors.As(err, &pe) {
					return rescan.AppendFailedResult(nil, m.Seq, tenant, m.Stored, "catalog-entry"), nil
				}
				return nil, err // transient: the message comes back
			}
		}
		var evs [2]*pipeline.Evidence
		for i, eng := range []*pipeline.Engine{r.policy, be} {
			body, err := payload.Open(ctx, h, m.Data, bodies, payload.Limits{Bucket: worker.ArchiveBodiesBucket})
			if err != nil {
				var pe *payload.Error
				if payload.IsClaim(h) && !(errors.As(err, &pe) && pe.Code == wire.CodeInvalidEncoding) {
					return nil, err // the bucket did not answer: the message comes back
				}
				return rescan.AppendFailedResult(nil, m.Seq, tenant, m.Stored, "bad-body"), nil
			}
			ev, err := eng.Sanitize(ctx, body, discardOut{}, info)
			body.Close()
			if err != nil {
				return nil, err // transient: the message comes back
			}
			evs[i] = ev
		}
		return rescan.AppendResult(make([]byte, 0, 512), m.Seq, tenant, m.Stored, evs[0], evs[1]), nil
	}
	stop := startProgressRecords(r.progress, stderr, &prog, total)
	identity := "policy " + r.pRef.Version + " " + r.pRef.Digest + "; baseline " + r.bRef.Version + " " + r.bRef.Digest
	state, err := worker.RunRescanJob(ctx, js, worker.RescanJob{Job: r.job, Stream: r.stream, Since: r.since, Until: r.until, Workers: r.workers, AckWait: r.ackWait, Replicas: r.replicas, Identity: identity}, fn)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "sanitize-worker rescan: stopped; run the same command again to resume job %s\n", r.job)
			return exitFailure
		}
		return fail("%v", err)
	}
	if !state.Done {
		return fail("job %s not finished", r.job)
	}
	cmp := rescan.NewComparison(rescan.Options{})
	err = worker.ReadStreamSubject(ctx, js, wire.StreamRescan, worker.RescanResultSubject(r.job), time.Time{}, time.Time{}, func(_ uint64, _ time.Time, data []byte) error {
		cmp.AddResult(data)
		return nil
	})
	if err != nil {
		return fail("reading the results of job %s: %v", r.job, err)
	}
	rep := cmp.Report()
	rep.Policy, rep.Baseline = r.pRef, r.bRef
	if r.dir != "" {
		if err := rep.WriteFiles(r.dir); err != nil {
			return fail("cannot write the report")
		}
	}
	fmt.Fprintf(stdout, "job %s: %d messages (this process %d), %d changed; %d results counted once more were dropped\n", r.job, rep.Records, state.Handled, rep.Changed, cmp.Duplicates())
	return exitOK
}

// uncharged is a re-scan's completion budget: it allows every completion
// and charges nothing. A re-scan compares two policies over archived
// results; it must not spend the principals' live budgets, and the
// budget's verdict at delivery time is the same for both policies.
type uncharged struct{}

func (uncharged) Charge(context.Context, string, int64, time.Duration) (bool, error) {
	return true, nil
}

// rescanAuthorizer is a re-scan's resource authorization: the allow-list
// of --allow-resource (nil without one: every resource refused).
func rescanAuthorizer(allow []string) (resgate.Authorizer, error) {
	if len(allow) == 0 {
		return nil, nil
	}
	return resgate.NewPrefixAuthorizer(allow)
}
