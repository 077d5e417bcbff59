package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/rescan"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker rescan` replays archived records through a policy and a
// baseline and writes a report of what the policy changes that the
// baseline did not (package rescan, docs/rescan.md).

const rescanUsage = `usage: sanitize-worker rescan (--in FILE.jsonl | --stream NAME) --policy FILE|VERSION [--baseline FILE|VERSION] --report DIR [flags]

  --in FILE        records, one a line, as scan --jsonl reads them ({"tool","outputSchema","result"}),
                   with optional "tenant" and "time" (RFC 3339) members
  --stream NAME    the archive stream (` + wire.StreamArchive + `): a job shared by every process run with the same
                   --job through one durable consumer, resumed where it stopped after a kill
  --job NAME       the job's name (default: rescan-<policy version>); --since T, --until T bound it
  --policy P       the policy to try: a policy file, a signed envelope file (with --trust), or a
                   version in the policy bucket (with --trust and the NATS flags)
  --baseline P     what to compare with (default: with --in the built-in default policy; with --stream
                   the policy each message was delivered under, from the archive)
  --report DIR     where report.json, report.md and findings.svg go
  --trust FILE     trusted policy keys, for envelopes and versions
  --workers N      passes per policy (default GOMAXPROCS; the two policies run at once)
  --progress MODE  auto (a bar on a terminal, lines otherwise), bar, lines or none

Exit codes: 0 the report was written; 1 a failure; 2 usage error.
`

func runRescan(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return runRescanEnv(ctx, args, os.LookupEnv, stdout, stderr)
}

func runRescanEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rescan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, rescanUsage) }
	var nf natsClientFlags
	nf.register(fs)
	if fl := fs.Lookup("bucket"); fl != nil {
		fl.Value.Set(wire.BucketPolicies)
		fl.DefValue, fl.Usage = wire.BucketPolicies, "policy KV `BUCKET`"
	}
	in := fs.String("in", "", "records `FILE`")
	stream := fs.String("stream", "", "archive `STREAM`")
	job := fs.String("job", "", "job `NAME` (--stream)")
	since := fs.String("since", "", "first message `T` (--stream; RFC 3339 or a duration such as 24h)")
	until := fs.String("until", "", "last message `T` (--stream)")
	catalog := fs.Bool("catalog", true, "with --stream, give tool results the outputSchema of the tool catalog (mcp-tools), as serve does")
	var allow listFlag
	fs.Var(&allow, "allow-resource", "canonical URI `PREFIX` a re-scanned resources/read may name (repeatable; none: resource results are refused under both policies, as scan does)")
	replicas := fs.Int("replicas", 0, "replicas of the result stream "+wire.StreamRescan+" (--stream; 0: 1 when this run creates it, an existing stream's kept; 3 on a three-node cluster)")
	ackWait := fs.Duration("ack-wait", worker.DefaultRescanAckWait, "how long a message taken by a process that stopped waits before another takes it (--stream)")
	pol := fs.String("policy", "", "policy `FILE|VERSION`")
	base := fs.String("baseline", "", "baseline `FILE|VERSION` (default: built-in)")
	dir := fs.String("report", "", "report `DIR`")
	trustFile := fs.String("trust", "", "trusted policy keys `FILE`")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "passes per policy")
	kind := fs.String("kind", string(pipeline.KindToolResult), "message `KIND` of every record")
	framing := fs.String("framing", string(pipeline.FramingAuto), "`FRAMING` of records without a \"framing\" member")
	maxRecord := fs.Int("max-record-bytes", 64<<20, "largest record line")
	progress := fs.String("progress", "auto", "progress display `MODE`: auto, bar, lines, none")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "sanitize-worker rescan: %s\n", msg)
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker rescan: %s\n", fmt.Sprintf(format, a...))
		return exitFailure
	}
	switch {
	case fs.NArg() > 0:
		return usageErr("unexpected argument")
	case (*in == "") == (*stream == ""):
		return usageErr("give one of --in and --stream")
	case *in != "" && (*since != "" || *until != "" || *job != ""):
		return usageErr("--since, --until and --job go with --stream")
	case *pol == "":
		return usageErr("--policy is required")
	case *dir == "" && *in != "":
		return usageErr("--report is required")
	case *replicas < 0 || *replicas > 5:
		return usageErr("--replicas must be 0 to 5")
	case *workers < 1 || *workers > 1024:
		return usageErr("--workers must be 1..1024")
	}
	k, ok := pipeline.ParseKind(*kind)
	if !ok {
		return usageErr("unknown --kind")
	}
	fr, ok := pipeline.ParseFraming(*framing)
	if !ok {
		return usageErr("unknown --framing")
	}
	switch *progress {
	case "auto", "bar", "lines", "none":
	default:
		return usageErr("--progress must be auto, bar, lines or none")
	}
	if err := nf.check(fs, lookup); err != nil {
		return usageErr(err.Error())
	}
	var trust policyset.Trust
	if *trustFile != "" {
		t, err := policyset.LoadTrust(*trustFile)
		if err != nil {
			return fail("--trust: %v", err)
		}
		trust = t
	}
	loader := &policyLoader{nf: &nf, trust: trust, ctx: ctx}
	defer func() {
		if loader.close != nil {
			loader.close()
		}
	}()
	pEng, pRef, err := loader.engine(*pol)
	if err != nil {
		return fail("--policy: %v", err)
	}
	bEng, bRef := (*pipeline.Engine)(nil), rescan.PolicyRef{Version: "default", Source: "built-in"}
	if *base != "" {
		if bEng, bRef, err = loader.engine(*base); err != nil {
			return fail("--baseline: %v", err)
		}
	} else if *stream != "" {
		bRef = rescan.PolicyRef{Version: "(as delivered)", Source: "each message's policy"}
	} else if bEng, err = pipeline.NewEngine(nil); err != nil {
		return fail("%v", err)
	}
	if *stream != "" {
		now := time.Now()
		t0, err1 := parseWhen(*since, now)
		t1, err2 := parseWhen(*until, now)
		if err1 != nil || err2 != nil {
			return usageErr("--since and --until take RFC 3339 times or durations such as 24h")
		}
		name := *job
		if name == "" {
			name = "rescan-" + tokenOf(pRef.Version)
		}
		sr := &streamRescan{nf: &nf, stream: *stream, job: name, since: t0, until: t1, workers: *workers, ackWait: *ackWait, replicas: *replicas, allow: allow,
			dir: *dir, progress: *progress, policy: pEng, pRef: pRef, baseline: bEng, bRef: bRef, loader: loader, catalog: *catalog}
		return sr.run(ctx, stdout, stderr)
	}
	f, err := os.Open(*in)
	if err != nil {
		return fail("cannot read %s", filepath.Base(*in))
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	var prog rescan.Progress
	stop := startProgress(*progress, stderr, &prog, size)
	// The guards' hooks of a re-scan (rescan_stream.go); each record's
	// request context is its "context" member.
	authz, err := rescanAuthorizer(allow)
	if err != nil {
		return fail("--allow-resource: %v", err)
	}
	rep, err := rescan.Run(ctx, f, pEng, bEng, rescan.Options{Workers: *workers, Kind: k, Framing: fr, MaxRecordBytes: *maxRecord, Progress: &prog,
		Guard: &pipeline.GuardInput{Authorizer: authz, Budget: uncharged{}}})
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return fail("stopped")
		}
		return fail("reading %s: %v", filepath.Base(*in), errors.Unwrap(err))
	}
	rep.Policy, rep.Baseline = pRef, bRef
	if err := rep.WriteFiles(*dir); err != nil {
		return fail("cannot write the report into %s", filepath.Base(*dir))
	}
	fmt.Fprintf(stdout, "%d records, %d changed; report in %s\n", rep.Records, rep.Changed, *dir)
	return exitOK
}

// policyLoader reads a policy for rescan: a policy file, an envelope file,
// or a version of the bucket.
type policyLoader struct {
	ctx   context.Context
	nf    *natsClientFlags
	trust policyset.Trust
	store *worker.PolicyStore
	close func()
}

// version reads a version of the policy bucket.
func (l *policyLoader) version(v string) (*pipeline.Engine, rescan.PolicyRef, error) {
	return l.engineFrom(v, true)
}

func (l *policyLoader) engine(arg string) (*pipeline.Engine, rescan.PolicyRef, error) {
	return l.engineFrom(arg, false)
}

func (l *policyLoader) engineFrom(arg string, bucketOnly bool) (*pipeline.Engine, rescan.PolicyRef, error) {
	if l.close == nil {
		l.close = func() {}
	}
	ref := rescan.PolicyRef{Source: filepath.Base(arg)}
	var pol *pipeline.Policy
	data, err := readFileLimited(arg, policyset.MaxEnvelopeBytes)
	if bucketOnly {
		err = os.ErrNotExist
	}
	if err == nil {
		if env, perr := policyset.ParseEnvelope(data); perr == nil {
			if l.trust.Len() == 0 {
				return nil, ref, errors.New("a signed envelope needs --trust")
			}
			sp, err := policyset.Verify(data, l.trust)
			if err != nil {
				return nil, ref, err
			}
			pol, ref.Digest = sp.Policy, env.Digest
		} else if pol, err = pipeline.ParsePolicy(data); err != nil {
			return nil, ref, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, ref, fmt.Errorf("cannot read %s", filepath.Base(arg))
	} else {
		// A version of the policy bucket.
		if l.trust.Len() == 0 {
			return nil, ref, errors.New("no such file; a version of the policy bucket needs --trust")
		}
		if l.store == nil {
			ctx, cancel := context.WithTimeout(l.ctx, l.nf.timeout)
			defer cancel()
			st, nc, err := openPolicyStore(ctx, l.nf, l.trust, false)
			if err != nil {
				return nil, ref, err
			}
			l.store, l.close = &st, nc.Close
		}
		ctx, cancel := context.WithTimeout(l.ctx, l.nf.timeout)
		defer cancel()
		env, err := l.store.Get(ctx, arg)
		if err != nil {
			return nil, ref, err
		}
		sp, err := policyset.Verify(env, l.trust)
		if err != nil {
			return nil, ref, err
		}
		pol, ref.Digest, ref.Source = sp.Policy, sp.Envelope.Digest, "bucket "+l.nf.bucket
	}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		return nil, ref, err
	}
	ref.Version = eng.Policy().Version
	if ref.Digest == "" {
		// A policy file: the digest of its fields with defaults filled, so
		// two spellings of one policy have one digest.
		p := eng.Policy()
		b, err := json.Marshal(&p)
		if err != nil {
			return nil, ref, err
		}
		sum := sha256.Sum256(b)
		ref.Digest = "sha256:" + hex.EncodeToString(sum[:])
	}
	return eng, ref, nil
}

// tokenOf turns a policy version into a subject token ('.' and ':' become
// '_').
func tokenOf(v string) string {
	b := []byte(v)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 50 {
		b = b[:50]
	}
	return string(b)
}

// startProgressRecords is startProgress with the total counted in records
// (a stream) rather than bytes.
func startProgressRecords(mode string, w io.Writer, p *rescan.Progress, total int64) func() {
	return startProgressOf(mode, w, p, total, true)
}

// startProgress shows the progress of a re-scan on w until the returned
// func is called: a bar with an ETA on a terminal, a line every five
// seconds otherwise.
func startProgress(mode string, w io.Writer, p *rescan.Progress, total int64) func() {
	return startProgressOf(mode, w, p, total, false)
}

func startProgressOf(mode string, w io.Writer, p *rescan.Progress, total int64, byRecords bool) func() {
	if mode == "auto" {
		mode = "lines"
		if f, ok := w.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				mode = "bar"
			}
		}
	}
	if mode == "none" {
		return func() {}
	}
	every := 5 * time.Second
	if mode == "bar" {
		every = 200 * time.Millisecond
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	show := func(final bool) {
		n, b := p.Records.Load(), p.Bytes.Load()
		el := time.Since(start)
		rate := float64(n) / max(el.Seconds(), 1e-9)
		mbs := float64(b) / 1e6 / max(el.Seconds(), 1e-9)
		frac, eta := -1.0, ""
		if total > 0 {
			done := b
			if byRecords {
				done = n
			}
			frac = min(float64(done)/float64(total), 1)
			if frac > 0 && !final {
				eta = " ETA " + (time.Duration(float64(el) * (1 - frac) / frac)).Round(time.Second).String()
			}
		}
		if mode == "bar" {
			bar := ""
			if frac >= 0 {
				k := int(frac * 30)
				bar = fmt.Sprintf("[%s%s] %3.0f%% ", strings.Repeat("#", k), strings.Repeat(" ", 30-k), frac*100)
			}
			fmt.Fprintf(w, "\r%s%d records, %.0f/s, %.1f MB/s%s   ", bar, n, rate, mbs, eta)
			if final {
				fmt.Fprintln(w)
			}
			return
		}
		pct := ""
		if frac >= 0 {
			pct = fmt.Sprintf("%.0f%% ", frac*100)
		}
		fmt.Fprintf(w, "rescan: %s%d records, %.0f/s, %.1f MB/s%s\n", pct, n, rate, mbs, eta)
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				show(true)
				return
			case <-t.C:
				show(false)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
