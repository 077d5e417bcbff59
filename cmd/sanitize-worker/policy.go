package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker policy` signs policies and rolls them out through the
// policy bucket (docs/policy.md, "Signed policies and the fleet"). Nothing
// it prints holds key material.

const policyUsage = `usage: sanitize-worker policy <subcommand> [flags] [args]

subcommands:
  keygen --id ID --key FILE [--trust FILE]
           draw an Ed25519 signing key (written 0600) and write or extend a trusted keys file
  sign --key FILE [--version V] [--out FILE] POLICY
           sign a policy file (JSON or YAML) into an envelope (stdout without --out)
  push --trust FILE [--shadow] ENVELOPE
           verify the envelope and make it the active policy of the fleet (--shadow: the shadow policy)
  list [--trust FILE] [--json]
           the stored versions in push order, which is active and shadow, and whether each verifies
  diff A B
           the fields that differ; A and B are policy or envelope files, or versions in the bucket
           (a version, "active" or "shadow")
  rollback --trust FILE [--to VERSION]
           make an earlier version active again (default: the active before the current one)
  unshadow
           remove the shadow policy
  shadow-report [--since T] [--until T] [--json] [--report DIR]
           what the shadow policy would have changed differently, per rule and tenant, over a range

NATS flags (push, list, diff of versions, rollback, unshadow): --nats-url, --creds, --nkey,
--tls-ca, --tls-cert, --tls-key, --bucket (default ` + wire.BucketPolicies + `), --timeout
`

func runPolicy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runPolicyEnv(ctx, args, os.LookupEnv, stdin, stdout, stderr)
}

func runPolicyEnv(ctx context.Context, args []string, lookup func(string) (string, bool), _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "sanitize-worker policy: missing subcommand\n\n"+policyUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, policyUsage)
		return exitOK
	case "keygen", "sign", "push", "list", "diff", "rollback", "unshadow":
	case "shadow-report":
		return runShadowReport(ctx, rest, lookup, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "sanitize-worker policy: unknown subcommand %q\n\n%s", sub, policyUsage)
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker policy %s: %s\n", sub, fmt.Sprintf(format, a...))
		return exitFailure
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker policy %s: %s\n", sub, fmt.Sprintf(format, a...))
		return exitUsage
	}
	fs := flag.NewFlagSet("policy "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsClientFlags
	nf.register(fs)
	if fl := fs.Lookup("bucket"); fl != nil {
		fl.Value.Set(wire.BucketPolicies)
		fl.DefValue, fl.Usage = wire.BucketPolicies, "policy KV `BUCKET`"
	}
	id := fs.String("id", "", "key `ID` (keygen)")
	keyFile := fs.String("key", "", "signing key `FILE`")
	trustFile := fs.String("trust", "", "trusted policy keys `FILE`")
	version := fs.String("version", "", "policy `VERSION` to sign as (default: the file's version)")
	out := fs.String("out", "", "write to `FILE` instead of standard output")
	shadow := fs.Bool("shadow", false, "push as the shadow policy (evidence only)")
	asJSON := fs.Bool("json", false, "print JSON")
	to := fs.String("to", "", "`VERSION` to roll back to")
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := nf.check(fs, lookup); err != nil {
		return usageErr("%v", err)
	}
	wantArgs := map[string]int{"keygen": 0, "sign": 1, "push": 1, "list": 0, "diff": 2, "rollback": 0, "unshadow": 0}[sub]
	if fs.NArg() != wantArgs {
		return usageErr("wants %d argument(s), got %d", wantArgs, fs.NArg())
	}
	loadTrust := func(required bool) (policyset.Trust, bool) {
		if *trustFile == "" {
			return policyset.Trust{}, !required
		}
		t, err := policyset.LoadTrust(*trustFile)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker policy %s: --trust: %v\n", sub, err)
			return t, false
		}
		return t, true
	}
	switch sub {
	case "keygen":
		return policyKeygen(*id, *keyFile, *trustFile, stdout, stderr)
	case "sign":
		if *keyFile == "" {
			return usageErr("--key is required")
		}
		k, err := policyset.LoadSigningKey(*keyFile)
		if err != nil {
			return fail("--key: %v (a signing key file of mode 0600, written by policy keygen)", err)
		}
		doc, err := readFileLimited(fs.Arg(0), policyset.MaxPolicyBytes)
		if err != nil {
			return fail("cannot read %s", filepath.Base(fs.Arg(0)))
		}
		env, sp, err := policyset.Sign(k, doc, *version, time.Now())
		if err != nil {
			if _, perr := pipeline.ParsePolicy(doc); perr != nil {
				return fail("%v", perr) // names the field
			}
			return fail("%v (a signed policy needs a version other than \"default\": --version or the file's)", err)
		}
		if *out != "" {
			if err := os.WriteFile(*out, env, 0o644); err != nil {
				return fail("cannot write %s", filepath.Base(*out))
			}
		} else {
			stdout.Write(env)
		}
		fmt.Fprintf(stderr, "signed %s %s with key %s\n", sp.Envelope.Version, sp.Envelope.Digest, k.ID)
		return exitOK
	case "diff":
		return policyDiff(ctx, &nf, fs.Arg(0), fs.Arg(1), stdout, stderr)
	}
	trust, ok := loadTrust(sub == "push" || sub == "rollback")
	if !ok {
		if *trustFile == "" {
			return usageErr("--trust is required")
		}
		return exitFailure
	}
	ctx, cancel := context.WithTimeout(ctx, nf.timeout)
	defer cancel()
	store, nc, err := openPolicyStore(ctx, &nf, trust, sub == "push")
	if err != nil {
		return fail("%v", err)
	}
	defer nc.Close()
	switch sub {
	case "push":
		env, err := readFileLimited(fs.Arg(0), policyset.MaxEnvelopeBytes)
		if err != nil {
			return fail("cannot read %s", filepath.Base(fs.Arg(0)))
		}
		sp, err := store.Push(ctx, env, *shadow)
		if err != nil {
			return fail("refused: %v; nothing was changed", err)
		}
		role := worker.PolicyRoleActive
		if *shadow {
			role = worker.PolicyRoleShadow
		}
		return writeJSON(stdout, stderr, map[string]string{"version": sp.Envelope.Version, "digest": sp.Envelope.Digest, "role": role})
	case "rollback":
		sp, err := store.Rollback(ctx, *to)
		if err != nil {
			return fail("%v; nothing was changed", err)
		}
		return writeJSON(stdout, stderr, map[string]string{"version": sp.Envelope.Version, "digest": sp.Envelope.Digest, "role": worker.PolicyRoleActive})
	case "unshadow":
		if err := store.ClearShadow(ctx); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	list, err := store.List(ctx)
	if err != nil {
		return fail("%v", err)
	}
	if *asJSON {
		if list == nil {
			list = []worker.PolicyListing{}
		}
		return writeJSON(stdout, stderr, list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tROLE\tSIGNED\tKEY\tVERIFIED\tDIGEST")
	for _, l := range list {
		role := ""
		switch {
		case l.Active:
			role = "active"
		case l.Shadow:
			role = "shadow"
		}
		verified := "-"
		if trust.Len() > 0 {
			verified = fmt.Sprint(l.Verified)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Version, role, l.SignedAt, l.KeyID, verified, l.Digest)
	}
	tw.Flush()
	return exitOK
}

// openPolicyStore connects and binds the bucket (creating it for a push).
func openPolicyStore(ctx context.Context, n *natsClientFlags, trust policyset.Trust, create bool) (worker.PolicyStore, *nats.Conn, error) {
	sf := &stateFlags{creds: n.creds, nkey: n.nkey, tlsCA: n.tlsCA, tlsCert: n.tlsCert, tlsKey: n.tlsKey, drainTimeout: n.timeout}
	nc, _, err := sf.connect(n.url, slog.New(slog.DiscardHandler))
	if err != nil {
		return worker.PolicyStore{}, nil, errors.New("cannot connect to NATS at " + redactNATSURLs(n.url))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return worker.PolicyStore{}, nil, errors.New("JetStream is not available")
	}
	var kv jetstream.KeyValue
	if create {
		kv, err = worker.EnsurePolicyBucket(ctx, js, n.bucket, 0)
	} else {
		kv, err = js.KeyValue(ctx, n.bucket)
	}
	if err != nil {
		nc.Close()
		return worker.PolicyStore{}, nil, fmt.Errorf("policy bucket %s unavailable", n.bucket)
	}
	return worker.PolicyStore{KV: kv, Trust: trust}, nc, nil
}

func policyKeygen(id, keyFile, trustFile string, stdout, stderr io.Writer) int {
	if id == "" || keyFile == "" {
		fmt.Fprintln(stderr, "sanitize-worker policy keygen: --id and --key are required")
		return exitUsage
	}
	k, err := policyset.GenerateKey(id)
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker policy keygen: --id must be [A-Za-z0-9._-]{1,64}")
		return exitUsage
	}
	kb, err := policyset.MarshalSigningKey(k)
	if err != nil {
		return exitFailure
	}
	f, err := os.OpenFile(keyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy keygen: cannot create %s (it must not exist)\n", filepath.Base(keyFile))
		return exitFailure
	}
	if _, err := f.Write(kb); err != nil || f.Close() != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy keygen: cannot write %s\n", filepath.Base(keyFile))
		return exitFailure
	}
	// The trusted keys file gains the new public key (created if absent).
	var trust policyset.Trust
	if trustFile != "" {
		if b, err := os.ReadFile(trustFile); err == nil {
			if trust, err = policyset.ParseTrust(b); err != nil {
				fmt.Fprintf(stderr, "sanitize-worker policy keygen: %s is not a trusted keys file\n", filepath.Base(trustFile))
				return exitFailure
			}
		}
	}
	merged, err := policyset.AddTrusted(trust, k.ID, k.Public())
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy keygen: %v\n", err)
		return exitFailure
	}
	tb, err := policyset.MarshalTrust(merged)
	if err != nil {
		return exitFailure
	}
	if trustFile == "" {
		stdout.Write(tb)
	} else if err := os.WriteFile(trustFile, tb, 0o644); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy keygen: cannot write %s\n", filepath.Base(trustFile))
		return exitFailure
	}
	fmt.Fprintf(stderr, "signing key %s written to %s (keep it secret)\n", k.ID, filepath.Base(keyFile))
	return exitOK
}

// policyDiff prints the fields that differ between two policies.
func policyDiff(ctx context.Context, n *natsClientFlags, a, b string, stdout, stderr io.Writer) int {
	var nc *nats.Conn
	var store worker.PolicyStore
	load := func(arg string) (*pipeline.Policy, error) {
		if data, err := readFileLimited(arg, policyset.MaxEnvelopeBytes); err == nil {
			if env, err := policyset.ParseEnvelope(data); err == nil {
				return pipeline.ParsePolicy(env.Policy)
			}
			return pipeline.ParsePolicy(data)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot read %s", filepath.Base(arg))
		}
		if nc == nil {
			var err error
			ctx, cancel := context.WithTimeout(ctx, n.timeout)
			defer cancel()
			if store, nc, err = openPolicyStore(ctx, n, policyset.Trust{}, false); err != nil {
				return nil, err
			}
		}
		ctx, cancel := context.WithTimeout(ctx, n.timeout)
		defer cancel()
		var env []byte
		var err error
		if arg == worker.PolicyKeyActive || arg == worker.PolicyKeyShadow {
			env, err = store.Role(ctx, arg)
			if env == nil && err == nil {
				err = worker.ErrPolicyNotFound
			}
		} else {
			env, err = store.Get(ctx, arg)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", arg, err)
		}
		pe, err := policyset.ParseEnvelope(env)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", arg, err)
		}
		return pipeline.ParsePolicy(pe.Policy)
	}
	defer func() {
		if nc != nil {
			nc.Close()
		}
	}()
	pa, err := load(a)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy diff: %v\n", err)
		return exitFailure
	}
	pb, err := load(b)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy diff: %v\n", err)
		return exitFailure
	}
	changes, err := policyset.Diff(pa, pb)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker policy diff: %v\n", err)
		return exitFailure
	}
	for _, c := range changes {
		switch {
		case c.Old == "":
			fmt.Fprintf(stdout, "+ %s: %s\n", c.Pointer, c.New)
		case c.New == "":
			fmt.Fprintf(stdout, "- %s: %s\n", c.Pointer, c.Old)
		default:
			fmt.Fprintf(stdout, "~ %s: %s -> %s\n", c.Pointer, c.Old, c.New)
		}
	}
	return exitOK
}

// readFileLimited reads a file of at most max bytes.
func readFileLimited(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, errors.New("file too large")
	}
	return b, nil
}
