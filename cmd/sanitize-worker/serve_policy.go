package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The signed policies of `serve` (docs/policy.md, "Signed policies and the
// fleet"): with --policy-trust the worker watches the policy bucket and
// runs its active version, verified against the trusted keys; --policy (or
// the built-in default) runs until the bucket has an active version.

func registerPolicyServeFlags(fs *flag.FlagSet, f *serveFlags) {
	fs.StringVar(&f.policyTrust, "policy-trust", "", "trusted policy keys `FILE`: run the signed active policy of the policy bucket, verified with these keys (docs/policy.md)")
	fs.StringVar(&f.policyBucket, "policy-bucket", wire.BucketPolicies, "policy KV `BUCKET` (with --policy-trust)")
	fs.StringVar(&f.policyPin, "policy-pin", "", "pin tenants to a policy `TENANT=VERSION,...` (a version of the bucket or a --policies name)")
	fs.BoolVar(&f.evidenceChain, "evidence-chain", false, "hash-chain every evidence record this worker publishes (docs/evidence-chain.md)")
	fs.StringVar(&f.evidenceKey, "evidence-key", "", "signing key `FILE` (policy keygen) of signed evidence checkpoints; implies --evidence-chain")
	fs.DurationVar(&f.checkpointEvery, "checkpoint-every", worker.DefaultCheckpointEvery, "interval of evidence checkpoints (with --evidence-key)")
	fs.IntVar(&f.checkpointRecords, "checkpoint-records", worker.DefaultCheckpointRecords, "also publish an evidence checkpoint as soon as this many records were sealed since the last (0: by --checkpoint-every only)")
	fs.BoolVar(&f.archive, "archive", false, "keep raw inputs in "+wire.StreamArchive+" for rescan --stream (they hold every secret removed: docs/rescan.md)")
	fs.DurationVar(&f.archiveMaxAge, "archive-max-age", worker.DefaultArchiveMaxAge, "age after which archived inputs are dropped")
	fs.Int64Var(&f.archiveMaxBytes, "archive-max-bytes", worker.DefaultArchiveMaxBytes, "size of the archive stream beyond which the oldest inputs are dropped")
}

var pinTokenRE = lazyre.New(`^[A-Za-z0-9._:-]{1,64}$`)

func (f *serveFlags) checkPolicyFlags() error {
	if f.policyBucket == "" {
		return usagef("--policy-bucket must not be empty")
	}
	f.tenantPins = map[string]string{}
	if f.policyPin != "" {
		for _, p := range strings.Split(f.policyPin, ",") {
			tenant, version, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || tenant == "" || len(tenant) > 128 || !pinTokenRE.MatchString(version) {
				return usagef("--policy-pin wants TENANT=VERSION,... (a version is [A-Za-z0-9._:-]{1,64})")
			}
			if _, dup := f.tenantPins[tenant]; dup {
				return usagef("--policy-pin names a tenant twice")
			}
			f.tenantPins[tenant] = version
		}
	}
	if f.archive {
		if err := (worker.ArchiveConfig{MaxAge: f.archiveMaxAge, MaxBytes: f.archiveMaxBytes}).Validate(); err != nil {
			return usagef("--archive-max-age must be in (0, 366d] and --archive-max-bytes at least 1 MiB")
		}
	}
	if f.checkpointRecords < 0 {
		return usagef("--checkpoint-records must not be negative")
	}
	if f.checkpointEvery < 100*time.Millisecond {
		return usagef("--checkpoint-every must be at least 100ms")
	}
	if f.evidenceKey != "" {
		if _, err := policyset.LoadSigningKey(f.evidenceKey); err != nil {
			return usagef("--evidence-key: not a signing key file of mode 0600 (policy keygen)")
		}
	}
	if f.policyTrust != "" {
		if _, err := policyset.LoadTrust(f.policyTrust); err != nil {
			return usagef("--policy-trust: not a trusted keys file (docs/policy.md)")
		}
	}
	return nil
}

// policyOptions starts the policy watch (with --policy-trust) and returns
// the worker options of the policy flags and a stop function. The metrics
// name the version the worker runs from the start: the default engine's
// until the bucket has an active version.
func (f *serveFlags) policyOptions(ctx context.Context, nc *nats.Conn, reg prometheus.Registerer, def *pipeline.Engine, log *slog.Logger) ([]worker.ServeOption, func(), error) {
	var opts []worker.ServeOption
	for t, v := range f.tenantPins {
		opts = append(opts, worker.WithTenantPolicy(t, v))
	}
	pm, err := worker.NewPolicyMetrics(reg)
	if err != nil {
		return nil, nil, err
	}
	pm.SetVersion(worker.PolicyRoleActive, def.Policy().Version)
	if f.archive {
		opts = append(opts, worker.WithArchive(worker.ArchiveConfig{MaxAge: f.archiveMaxAge, MaxBytes: f.archiveMaxBytes, Replicas: f.replicas}))
		log.Warn("archive on: raw inputs are kept in "+wire.StreamArchive, "maxAge", f.archiveMaxAge.String(), "maxBytes", f.archiveMaxBytes)
	}
	if f.evidenceChain || f.evidenceKey != "" {
		o, err := f.chainOption(log)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, o...)
	}
	if f.policyTrust == "" {
		return opts, func() {}, nil
	}
	trust, err := policyset.LoadTrust(f.policyTrust)
	if err != nil {
		log.Error("cannot load the trusted policy keys", "reason", string(policyset.ReasonOf(err)))
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, nil, err
	}
	var kv jetstream.KeyValue
	if f.manage {
		kv, err = worker.EnsurePolicyBucket(ctx, js, f.policyBucket, f.replicas)
	} else {
		kv, err = js.KeyValue(ctx, f.policyBucket)
	}
	if err != nil {
		log.Error("policy bucket unavailable", "bucket", f.policyBucket)
		return nil, nil, worker.ErrPolicyStore
	}
	w, err := worker.NewPolicyWatcher(kv, trust, worker.PolicyWatchOptions{Logger: log.With("component", "policy"), Metrics: pm})
	if err != nil {
		return nil, nil, err
	}
	if err := w.Start(ctx); err != nil {
		log.Error("policy watch did not start", "bucket", f.policyBucket)
		return nil, nil, err
	}
	active := def.Policy().Version
	if a := w.Active(); a != nil {
		active = a.Version
	}
	log.Info("policy watch", "bucket", f.policyBucket, "trustedKeys", trust.IDs(), "active", active)
	return append(opts, worker.WithPolicySource(w)), w.Stop, nil
}

// chainOption returns the evidence chain option: a new chain per process,
// named for the host and the start time, with checkpoints signed by
// --evidence-key when given.
func (f *serveFlags) chainOption(log *slog.Logger) ([]worker.ServeOption, error) {
	host, _ := os.Hostname()
	var b strings.Builder
	for _, c := range []byte(host) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			b.WriteByte(c)
		}
		if b.Len() == 64 {
			break
		}
	}
	var r [4]byte
	rand.Read(r[:])
	id := fmt.Sprintf("%s.%s.%x", cmp.Or(b.String(), "worker"), time.Now().UTC().Format("20060102T150405Z"), r)
	var key policyset.SigningKey
	if f.evidenceKey != "" {
		k, err := policyset.LoadSigningKey(f.evidenceKey)
		if err != nil {
			log.Error("cannot load the evidence key", "reason", string(policyset.ReasonOf(err)))
			return nil, err
		}
		key = k
	}
	s, err := evchain.NewSealer(id, key.ID, key.Key)
	if err != nil {
		return nil, err
	}
	log.Info("evidence chain", "chain", id, "checkpointKey", key.ID, "checkpointEvery", f.checkpointEvery.String(), "checkpointRecords", f.checkpointRecords)
	return []worker.ServeOption{worker.WithEvidenceChain(s, f.checkpointEvery), worker.WithCheckpointRecords(f.checkpointRecords)}, nil
}
