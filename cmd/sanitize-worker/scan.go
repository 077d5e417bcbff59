package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/startgc"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/records"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

type scanFlags struct {
	in, out, evidence, policy, tool, kind, outputSchema, framing string
	jsonl                                                        bool
	workers                                                      int
	timeout                                                      time.Duration
	maxRecord                                                    int
	normalization                                                string
	method                                                       string
	guards                                                       localGuardFlags // guards_local.go
}

const scanUsageHead = `usage: sanitize-worker scan [flags] [< message.json] [> clean.json]
       sanitize-worker scan --jsonl [flags] < records.jsonl > clean.jsonl

Sanitizes one MCP message (a tool result unless --kind says otherwise) from
standard input or --in to standard output or --out, in one streaming pass,
without NATS. With --jsonl, a stream of records {"tool", "outputSchema",
"result"}, one a line, is sanitized on --workers cores and written in order.
Evidence (what was changed and why, never a secret) goes to --evidence.

Exit codes: 0 the output was written (clean, sanitized or truncated); 3 the
message was rejected and a sanitized error result was written in its place
(one message only); 2 usage error; 1 any other failure.

flags:
`

func runScan(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// No collection while the policy, schema and engine are built: all of
	// it lives until the process exits (package startgc).
	releaseGC := startgc.Hold()
	defer releaseGC()
	var f scanFlags
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), scanUsageHead)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.in, "in", "", "read the message from `FILE` instead of standard input")
	fs.StringVar(&f.out, "out", "", "write the sanitized message to `FILE` instead of standard output")
	fs.StringVar(&f.evidence, "evidence", "", "write the evidence record (JSON; JSON lines with --jsonl) to `FILE`")
	fs.StringVar(&f.policy, "policy", "", "policy `FILE` (JSON or YAML); the built-in defaults without it")
	fs.StringVar(&f.tool, "tool", "", "tool `NAME` for the untrusted-output label")
	fs.StringVar(&f.kind, "kind", string(pipeline.KindToolResult), kindUsage())
	fs.StringVar(&f.framing, "framing", string(pipeline.FramingAuto), "how the message is framed: `FRAMING` bare (the result itself), jsonrpc (a JSON-RPC message carrying it) or auto (a JSON-RPC envelope when its top-level members are an envelope's only, and then a well-formed JSON-RPC 2.0 message of the kind; a body that mixes a result's members with an envelope's is rejected in every framing); with --jsonl, for records without a \"framing\" member")
	fs.StringVar(&f.method, "method", "", methodUsage())
	fs.StringVar(&f.outputSchema, "output-schema", "", "the tool's outputSchema `FILE` (JSON Schema, 2020-12 unless it names its dialect): structuredContent must conform, undeclared members are dropped by policy")
	fs.BoolVar(&f.jsonl, "jsonl", false, `read records {"tool","outputSchema","result"} one a line and write one sanitized record a line, in order`)
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "parallel passes with --jsonl")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "deadline of one message (TIMEOUT when it runs out)")
	fs.IntVar(&f.maxRecord, "max-record-bytes", 64<<20, "largest record line accepted with --jsonl")
	fs.StringVar(&f.normalization, "normalization", "", "`MODE` nfkc (write the normalized text) or lossless (keep the original characters outside what was redacted); overrides the policy's normalization (default nfkc)")
	f.guards.register(fs, true)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sanitize-worker scan: unexpected argument %q (the message comes from standard input or --in)\n", fs.Arg(0))
		return exitUsage
	}
	kind, ok := scanKind(fs, f.kind, f.method, stderr)
	if !ok {
		return exitUsage
	}
	framing, ok := pipeline.ParseFraming(f.framing)
	if !ok {
		fmt.Fprintf(stderr, "sanitize-worker scan: unknown --framing %q (bare, jsonrpc or auto)\n", f.framing)
		return exitUsage
	}
	if f.workers < 1 || f.workers > 1024 {
		fmt.Fprintln(stderr, "sanitize-worker scan: --workers must be between 1 and 1024")
		return exitUsage
	}
	if f.timeout <= 0 {
		fmt.Fprintln(stderr, "sanitize-worker scan: --timeout must be positive")
		return exitUsage
	}
	if f.maxRecord < 1024 {
		fmt.Fprintln(stderr, "sanitize-worker scan: --max-record-bytes must be at least 1024")
		return exitUsage
	}
	if f.jsonl && (f.outputSchema != "" || f.tool != "") {
		fmt.Fprintln(stderr, "sanitize-worker scan: --tool and --output-schema come from each record with --jsonl")
		return exitUsage
	}
	pol := pipeline.DefaultPolicy()
	if f.policy != "" {
		p, err := pipeline.LoadPolicy(f.policy)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker scan: %v\n", err)
			return exitUsage
		}
		pol = p
	}
	useFingerprintKeyEnv(pol, lookupEnv)
	if f.normalization != "" {
		if f.normalization != pipeline.NormalizationNFKC && f.normalization != pipeline.NormalizationLossless {
			fmt.Fprintf(stderr, "sanitize-worker scan: --normalization must be %s or %s\n", pipeline.NormalizationNFKC, pipeline.NormalizationLossless)
			return exitUsage
		}
		pol.Normalization = f.normalization
	}
	var outSchema *schema.Schema
	if f.outputSchema != "" {
		if kind != pipeline.KindToolResult {
			fmt.Fprintln(stderr, "sanitize-worker scan: --output-schema applies to --kind tool-result only")
			return exitUsage
		}
		s, err := loadSchemaFile(f.outputSchema)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker scan: --output-schema: %v\n", err)
			return exitUsage
		}
		outSchema = s
	}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: %v\n", err)
		return exitUsage
	}
	if eng.RandomFingerprintKey() && f.evidence != "" {
		noteRandomFingerprintKey(stderr)
	}
	ep := eng.Policy()
	gi, err := f.guards.scanInput(&ep, "", slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: %v\n", err)
		return exitUsage
	}
	releaseGC()

	in := stdin
	if f.in != "" {
		file, err := os.Open(f.in)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker scan: cannot open --in: %v\n", errors.Unwrap(err))
			return exitFailure
		}
		defer file.Close()
		in = file
	}
	out := stdout
	var outFile *os.File
	if f.out != "" {
		outFile, err = os.Create(f.out)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker scan: cannot create --out: %v\n", errors.Unwrap(err))
			return exitFailure
		}
		out = outFile
	}
	var evw io.Writer = io.Discard
	var evFile *os.File
	if f.evidence != "" {
		evFile, err = os.Create(f.evidence)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker scan: cannot create --evidence: %v\n", errors.Unwrap(err))
			return exitFailure
		}
		evw = evFile
	}
	var code int
	if f.jsonl {
		code = scanJSONL(ctx, eng, kind, framing, gi, f, in, out, evw, stderr)
	} else {
		code = scanOne(ctx, eng, pipeline.MessageInfo{Kind: kind, Tool: f.tool, Framing: framing, OutputSchema: outSchema, Method: f.method, Guard: gi}, f.timeout, in, out, evw, stderr)
	}
	for _, c := range []*os.File{outFile, evFile} {
		if c != nil {
			if err := c.Close(); err != nil && code == exitOK {
				fmt.Fprintf(stderr, "sanitize-worker scan: closing output: %v\n", errors.Unwrap(err))
				code = exitFailure
			}
		}
	}
	return code
}

// loadSchemaFile reads and compiles an outputSchema file. References
// outside the schema are refused (only the bundled official meta-schemas
// resolve), and the size and depth limits of package schema apply.
func loadSchemaFile(path string) (*schema.Schema, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", errors.Unwrap(err))
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, schema.DefaultMaxSchemaBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", errors.Unwrap(err))
	}
	s, err := schema.Compile(b, schema.Limits{})
	if err != nil {
		return nil, fmt.Errorf("not a usable JSON Schema: %v (code %s)", err, schema.CodeOf(err))
	}
	return s, nil
}

// scanOne sanitizes one message through a spool, so a rejected message is
// never partly written.
func scanOne(ctx context.Context, eng *pipeline.Engine, info pipeline.MessageInfo, timeout time.Duration, in io.Reader, out, evw, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
			// A pipe that stays open must not outlive the deadline, and
			// standard input supports no read deadline.
			in = newCtxReader(ctx, f)
		}
	}
	spool := &pipeline.Spool{}
	defer spool.Close()
	ev, err := eng.Sanitize(ctx, bufio.NewReaderSize(in, 64<<10), spool, info)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: %v\n", err)
		return exitFailure
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	if err := spool.Commit(bw); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: writing output: %v\n", errors.Unwrap(err))
		return exitFailure
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: writing output: %v\n", errors.Unwrap(err))
		return exitFailure
	}
	if err := writeEvidence(evw, ev); err != nil {
		fmt.Fprintf(stderr, "sanitize-worker scan: writing evidence: %v\n", err)
		return exitFailure
	}
	if ev.Outcome == pipeline.OutcomeRejected {
		fmt.Fprintf(stderr, "sanitize-worker scan: rejected: %s (%s); a sanitized error result was written\n", ev.Code, ev.Reason)
		return exitRejected
	}
	return exitOK
}

func writeEvidence(w io.Writer, ev *pipeline.Evidence) error {
	// AppendJSON writes what json.Marshal writes (TestEvidenceAppendJSON),
	// without building encoding/json's reflection caches for the Evidence
	// types: a million instructions of a one-message scan.
	b := append(ev.AppendJSON(nil), '\n')
	_, err := w.Write(b)
	return err
}

// ctxReader reads from a reader that may block for ever (a pipe) on a
// goroutine of its own, so that Read returns the context's error once the
// deadline passes. The goroutine ends with the reader's first error or the
// context; a read still blocked then ends with the process.
type ctxReader struct {
	ctx context.Context
	ch  chan ctxChunk
	cur []byte
	err error
}

type ctxChunk struct {
	b   []byte
	err error
}

func newCtxReader(ctx context.Context, r io.Reader) *ctxReader {
	c := &ctxReader{ctx: ctx, ch: make(chan ctxChunk)}
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			select {
			case c.ch <- ctxChunk{buf[:n], err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *ctxReader) Read(p []byte) (int, error) {
	for len(c.cur) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		select {
		case ck := <-c.ch:
			c.cur, c.err = ck.b, ck.err
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		}
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

// scanJSONL runs the record engine (package records) with the flags.
func scanJSONL(ctx context.Context, eng *pipeline.Engine, kind pipeline.Kind, framing pipeline.Framing, gi *pipeline.GuardInput, f scanFlags, in io.Reader, out, evw, stderr io.Writer) int {
	o := records.Options{
		Kind:           kind,
		Guard:          gi,
		Framing:        framing,
		Workers:        f.workers,
		MaxRecordBytes: f.maxRecord,
		Timeout:        f.timeout,
		Report: func(err error) {
			fmt.Fprintf(stderr, "sanitize-worker scan: %v\n", err)
		},
	}
	if evw != io.Discard {
		o.Evidence = evw
	}
	// A live filter: every line is flushed as soon as it is ready, unless
	// the output is a regular file (then large writes are cheaper and no
	// one reads it line by line meanwhile).
	o.Flush = !isRegularFile(out)
	if err := records.Run(ctx, eng, in, out, o); err != nil {
		if errors.Is(err, records.ErrOptions) {
			fmt.Fprintln(stderr, "sanitize-worker scan: invalid --jsonl options")
		}
		return exitFailure
	}
	return exitOK
}

// isRegularFile reports whether w is an *os.File on a regular file.
func isRegularFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
