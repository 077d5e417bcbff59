package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker evidence verify` checks the hash chain and the signed
// checkpoints of evidence records (package evchain,
// docs/evidence-chain.md), from a file of records one a line or from the
// evidence stream, and names each record that breaks a chain.

const evidenceUsage = `usage: sanitize-worker evidence verify (--in FILE | --stream NAME) --trust FILE [flags]
       sanitize-worker evidence export --stream NAME [--since T] [--until T] [--subject S] > FILE

verify:

  --in FILE        evidence records and checkpoints, one a line, as published
  --stream NAME    read an evidence stream (` + wire.StreamEvidence + `) through NATS
  --since T        first record to check (RFC 3339, or a duration before now such as 24h; --stream)
  --until T        last record to check (as --since); checkpoints after it are not asked for
  --partial        the file is a range: a chain may start after its first record (--in)
  --trust FILE     trusted keys of the checkpoints (policy keygen writes the format)
  --json           print the report as JSON

Exit codes: 0 every chain verifies; 3 a record or checkpoint breaks a chain (each is named);
1 the records could not be read; 2 usage error.

export: write the records of a stream (default subject filter: all) one a line, byte for byte as
stored, for verify --in or for keeping.

NATS flags (--stream): --nats-url, --creds, --nkey, --tls-ca, --tls-cert, --tls-key, --timeout
`

// exitBroken is the exit code of a verification that found a break.
const exitBroken = 3

// maxEvidenceLine caps one line of --in.
const maxEvidenceLine = 16 << 20

func runEvidence(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return runEvidenceEnv(ctx, args, os.LookupEnv, stdout, stderr)
}

func runEvidenceEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "export" {
		return runEvidenceExport(ctx, args[1:], lookup, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "verify" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, evidenceUsage)
			return exitOK
		}
		fmt.Fprint(stderr, "sanitize-worker evidence: missing or unknown subcommand\n\n"+evidenceUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("evidence verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsClientFlags
	nf.register(fs)
	in := fs.String("in", "", "evidence `FILE`")
	stream := fs.String("stream", "", "evidence `STREAM`")
	since := fs.String("since", "", "first record `T`")
	until := fs.String("until", "", "last record `T`")
	partial := fs.Bool("partial", false, "the file is a range of a longer history")
	trustFile := fs.String("trust", "", "trusted keys `FILE`")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(stderr, "sanitize-worker evidence verify: %s\n", msg)
		return exitUsage
	}
	if (*in == "") == (*stream == "") || fs.NArg() > 0 {
		return usageErr("give one of --in FILE and --stream")
	}
	if *trustFile == "" {
		return usageErr("--trust is required (the checkpoints' keys)")
	}
	trust, err := policyset.LoadTrust(*trustFile)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker evidence verify: --trust: %v\n", err)
		return exitFailure
	}
	now := time.Now()
	t0, err1 := parseWhen(*since, now)
	t1, err2 := parseWhen(*until, now)
	if err1 != nil || err2 != nil {
		return usageErr("--since and --until take RFC 3339 times or durations such as 24h")
	}
	o := evchain.Options{
		Keys:   func(id string) (ed25519.PublicKey, bool) { return trust.Key(id) },
		Ranged: *partial || *stream != "" || !t0.IsZero(),
		NoTail: !t1.IsZero(),
	}
	v := evchain.NewVerifier(o)
	if *in != "" {
		if !t0.IsZero() || !t1.IsZero() {
			return usageErr("--since and --until go with --stream")
		}
		f, err := os.Open(*in)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker evidence verify: cannot read %s\n", filepath.Base(*in))
			return exitFailure
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), maxEvidenceLine)
		n := 0
		for sc.Scan() {
			n++
			v.Add(fmt.Sprintf("line %d", n), sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(stderr, "sanitize-worker evidence verify: reading %s stopped after line %d (a line longer than 16 MiB, or a read error)\n", filepath.Base(*in), n)
			return exitFailure
		}
	} else {
		if err := nf.check(fs, lookup); err != nil {
			return usageErr(err.Error())
		}
		sf := &stateFlags{creds: nf.creds, nkey: nf.nkey, tlsCA: nf.tlsCA, tlsCert: nf.tlsCert, tlsKey: nf.tlsKey, drainTimeout: nf.timeout}
		nc, _, err := sf.connect(nf.url, slog.New(slog.DiscardHandler))
		if err != nil {
			fmt.Fprintln(stderr, "sanitize-worker evidence verify: cannot connect to NATS at "+redactNATSURLs(nf.url))
			return exitFailure
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return exitFailure
		}
		err = worker.ReadStream(ctx, js, *stream, t0, t1, func(seq uint64, _ time.Time, data []byte) error {
			v.Add(fmt.Sprintf("stream seq %d", seq), data)
			return nil
		})
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker evidence verify: %v\n", err)
			return exitFailure
		}
	}
	r := v.Finish()
	if *asJSON {
		if code := writeJSON(stdout, stderr, r); code != exitOK {
			return code
		}
	} else {
		fmt.Fprintf(stdout, "records %d (unchained %d), checkpoints %d (verified %d), chains %d\n", r.Records, r.Unchained, r.Checkpoints, r.Verified, len(r.Chains))
		for _, c := range r.Chains {
			fmt.Fprintf(stdout, "chain %s: sequences %d..%d, %d records, %d void, vouched up to %d\n", c.ID, c.First, c.Last, c.Records, c.Void, c.Vouched)
			if c.UnverifiedTail > 0 {
				fmt.Fprintf(stdout, "UNVERIFIED-TAIL chain %s: %d sequences after the last checkpoint (%d..%d): a cut of them would not be found\n", c.ID, c.UnverifiedTail, c.Last-c.UnverifiedTail+1, c.Last)
			}
		}
		for _, p := range r.Problems {
			where := p.Ref
			if where == "" {
				where = "-"
			}
			fmt.Fprintf(stdout, "BROKEN %s: %s chain %s seq %d: %s\n", p.Kind, where, p.Chain, p.Seq, p.Detail)
		}
		if r.ProblemsCut > 0 {
			fmt.Fprintf(stdout, "... and %d more problems\n", r.ProblemsCut)
		}
		if r.OK() {
			fmt.Fprintln(stdout, "OK")
		}
	}
	if !r.OK() {
		return exitBroken
	}
	return exitOK
}

// parseWhen reads an RFC 3339 time or a duration before now ("" is zero).
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, errors.New("not a time")
	}
	return now.Add(-d), nil
}

// runEvidenceExport writes the messages of a stream one a line. A message
// holding a newline (not an evidence record: those are one line of JSON)
// is skipped and counted on standard error.
func runEvidenceExport(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evidence export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsClientFlags
	nf.register(fs)
	stream := fs.String("stream", wire.StreamEvidence, "`STREAM` to export")
	subject := fs.String("subject", "", "only the messages of this subject `FILTER`")
	since := fs.String("since", "", "first record `T`")
	until := fs.String("until", "", "last record `T`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	now := time.Now()
	t0, err1 := parseWhen(*since, now)
	t1, err2 := parseWhen(*until, now)
	if err1 != nil || err2 != nil || fs.NArg() > 0 || *stream == "" {
		fmt.Fprintln(stderr, "sanitize-worker evidence export: --since and --until take RFC 3339 times or durations; no arguments")
		return exitUsage
	}
	if err := nf.check(fs, lookup); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker evidence export: %v\n", err)
		return exitUsage
	}
	sf := &stateFlags{creds: nf.creds, nkey: nf.nkey, tlsCA: nf.tlsCA, tlsCert: nf.tlsCert, tlsKey: nf.tlsKey, drainTimeout: nf.timeout}
	nc, _, err := sf.connect(nf.url, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker evidence export: cannot connect to NATS at "+redactNATSURLs(nf.url))
		return exitFailure
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return exitFailure
	}
	bw := bufio.NewWriterSize(stdout, 256<<10)
	var n, skipped int64
	err = worker.ReadStreamSubject(ctx, js, *stream, *subject, t0, t1, func(_ uint64, _ time.Time, data []byte) error {
		if bytes.IndexByte(data, '\n') >= 0 {
			skipped++
			return nil
		}
		n++
		bw.Write(data)
		return bw.WriteByte('\n')
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker evidence export: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "%d records exported", n)
	if skipped > 0 {
		fmt.Fprintf(stderr, ", %d messages holding a newline skipped", skipped)
	}
	fmt.Fprintln(stderr)
	return exitOK
}
