package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// `sanitize-worker tools put|get|list` reads and writes the tool catalog
// (package toolcat, KV bucket mcp-tools) directly through JetStream. This
// file also holds the NATS client flags the `args` command shares; the
// connection itself is stateFlags.connect (state.go).

// defaultClientNATSURL is where tools and args connect without --nats-url:
// the embedded server that `serve` and `state` start on this host.
var defaultClientNATSURL = "nats://" + net.JoinHostPort(natsembed.Host, strconv.Itoa(natsembed.DefaultPort))

// defaultCatalogTimeout bounds a catalog command's NATS work.
const defaultCatalogTimeout = 30 * time.Second

// natsClientFlags are the connection flags of the catalog commands, with
// the same names and environment variables as `state`.
type natsClientFlags struct {
	url, creds, nkey, tlsCA, tlsCert, tlsKey string
	bucket                                   string
	timeout                                  time.Duration
}

var natsClientEnv = []struct{ flag, env string }{
	{"nats-url", "MCP_SANITIZE_NATS_URL"},
	{"creds", "MCP_SANITIZE_NATS_CREDS"},
	{"nkey", "MCP_SANITIZE_NATS_NKEY"},
	{"tls-ca", "MCP_SANITIZE_NATS_TLS_CA"},
	{"tls-cert", "MCP_SANITIZE_NATS_TLS_CERT"},
	{"tls-key", "MCP_SANITIZE_NATS_TLS_KEY"},
}

func (n *natsClientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.url, "nats-url", "", "NATS server `URLs` (comma-separated); default "+defaultClientNATSURL+" (the embedded server of serve or state)")
	fs.StringVar(&n.creds, "creds", "", "NATS user credentials `FILE`")
	fs.StringVar(&n.nkey, "nkey", "", "NATS nkey seed `FILE`")
	fs.StringVar(&n.tlsCA, "tls-ca", "", "CA certificates `FILE` (PEM) to verify the NATS server")
	fs.StringVar(&n.tlsCert, "tls-cert", "", "client certificate `FILE` (PEM); with --tls-key")
	fs.StringVar(&n.tlsKey, "tls-key", "", "client key `FILE` (PEM); with --tls-cert")
	fs.StringVar(&n.bucket, "bucket", wire.BucketTools, "tool catalog KV `BUCKET`")
	fs.DurationVar(&n.timeout, "timeout", defaultCatalogTimeout, "deadline of the NATS work")
}

// check applies the environment to flags not given and validates them. Its
// messages never repeat a value (URLs may hold credentials).
func (n *natsClientFlags) check(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for _, e := range natsClientEnv {
		if given[e.flag] {
			continue
		}
		if v, ok := lookup(e.env); ok && v != "" {
			if err := fs.Set(e.flag, v); err != nil {
				return fmt.Errorf("%s: invalid value for --%s", e.env, e.flag)
			}
		}
	}
	if n.url == "" {
		n.url = defaultClientNATSURL
	}
	if err := checkNATSURLs(n.url); err != nil {
		return fmt.Errorf("--nats-url: %v", err)
	}
	if n.creds != "" && n.nkey != "" {
		return errors.New("--creds and --nkey are alternatives; give one")
	}
	if (n.tlsCert == "") != (n.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if n.bucket == "" {
		return errors.New("--bucket must not be empty")
	}
	if n.timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	return nil
}

// openCatalog connects and opens the catalog (without a watch: a command
// reads the bucket directly).
func (n *natsClientFlags) openCatalog(ctx context.Context, stderr io.Writer) (*toolcat.Catalog, *nats.Conn, error) {
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sf := &stateFlags{creds: n.creds, nkey: n.nkey, tlsCA: n.tlsCA, tlsCert: n.tlsCert, tlsKey: n.tlsKey, drainTimeout: n.timeout}
	nc, _, err := sf.connect(n.url, log)
	if err != nil {
		return nil, nil, errors.New("cannot connect to NATS at " + redactNATSURLs(n.url))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, errors.New("JetStream is not available")
	}
	cat, err := toolcat.Open(ctx, js, toolcat.Options{Bucket: n.bucket, NoWatch: true})
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("cannot open the tool catalog: %v", err)
	}
	return cat, nc, nil
}

// readLimited reads at most max bytes; more is an error.
func readLimited(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("input larger than %d bytes", max)
	}
	return b, nil
}

const toolsUsageHead = `usage: sanitize-worker tools put --server S [flags] [< tools-list.json]
       sanitize-worker tools get --server S --tool T [flags]
       sanitize-worker tools list --server S [flags]
       sanitize-worker tools diff|approve|revoke --server S --tool T [flags]

Reads and writes the tool catalog, the JetStream KV bucket that holds each
tool's definition from tools/list (keys <server>.<tool>; see docs/schema.md).

  put   stores every tool of a tools/list result (bare {"tools":[...]} or the
        JSON-RPC response) read from --in or standard input; all of them or
        none: a tool whose inputSchema or outputSchema does not compile is
        refused with its index and code. Prints {"ok":true,"server":S,"tools":[...]}.
  get   prints {"server","name","inputSchemaDigest","outputSchemaDigest",
        "definition"} for one tool.
  list  prints the tool names of a server, one a line.
  diff     prints the pinned definition's digest, the last changed one seen
           and what changed between them (docs/pinning.md).
  approve  pins the changed definition (--digest names it; without it, the
           last one seen), or pre-approves the definition read from --in.
  revoke   withdraws the pin: every definition is held until approved.

Without --nats-url it connects to ` + "nats://127.0.0.1:4222" + `, the embedded server of
'sanitize-worker serve' or 'state' on this host.

Exit codes: 0 done; 3 refused (put: invalid tools/list or schema; get: no
such tool); 2 usage error; 1 any other failure (NATS, I/O).

flags:
`

// runTools implements `sanitize-worker tools`.
func runTools(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runToolsEnv(ctx, args, os.LookupEnv, stdin, stdout, stderr)
}

func runToolsEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), toolsUsageHead)
		fs.PrintDefaults()
	}
	var nf natsClientFlags
	nf.register(fs)
	var server, tool, in, digest string
	fs.StringVar(&digest, "digest", "", "`DIGEST` of the definition to approve (approve)")
	var maxBytes int
	fs.StringVar(&server, "server", "", "`SERVER` name (1 to 64 of [A-Za-z0-9_-])")
	fs.StringVar(&tool, "tool", "", "`TOOL` name (get)")
	fs.StringVar(&in, "in", "", "read the tools/list result from `FILE` (put; default standard input)")
	fs.IntVar(&maxBytes, "max-bytes", toolcat.DefaultMaxListBytes, "largest tools/list result read (put)")
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker tools: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run 'sanitize-worker tools -h' for the flags.")
		return exitUsage
	}
	if len(args) == 0 {
		return usageErr("a subcommand is required: put, get or list")
	}
	sub := args[0]
	if sub == "-h" || sub == "-help" || sub == "--help" {
		fs.SetOutput(stdout)
		fs.Usage()
		return exitOK
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	switch sub {
	case "put", "get", "list", "diff", "approve", "revoke":
	default:
		return usageErr("unknown subcommand %q: put, get or list", sub)
	}
	if wire.CheckToken(server) != nil {
		return usageErr("--server must be 1 to 64 of [A-Za-z0-9_-]")
	}
	if sub != "put" && sub != "list" {
		if _, err := toolcat.ToolToken(tool); err != nil {
			return usageErr("--tool must be a tool name of 1 to 128 bytes of UTF-8")
		}
	} else if tool != "" {
		return usageErr("--tool applies to get, diff, approve and revoke only")
	}
	if sub != "put" && sub != "approve" && in != "" {
		return usageErr("--in applies to put and approve only")
	}
	if maxBytes < 2 || maxBytes > 64<<20 {
		return usageErr("--max-bytes must be 2..%d", 64<<20)
	}
	if err := nf.check(fs, lookup); err != nil {
		return usageErr("%v", err)
	}

	var body []byte
	if sub == "put" || sub == "approve" && in != "" {
		r := stdin
		if in != "" {
			f, err := os.Open(in)
			if err != nil {
				fmt.Fprintf(stderr, "sanitize-worker tools: cannot open --in %s\n", in)
				return exitFailure
			}
			defer f.Close()
			r = f
		}
		var err error
		if body, err = readLimited(r, maxBytes); err != nil {
			fmt.Fprintf(stderr, "sanitize-worker tools: %v\n", err)
			return exitFailure
		}
	}

	ctx, cancel := context.WithTimeout(ctx, nf.timeout)
	defer cancel()
	cat, nc, err := nf.openCatalog(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker tools: %v\n", err)
		return exitFailure
	}
	defer nc.Close()
	defer cat.Close()

	switch sub {
	case "diff", "approve", "revoke":
		return runPins(ctx, cat.Pins(), sub, server, tool, digest, body, stdout, stderr)
	case "put":
		res, err := cat.Put(ctx, server, body)
		if err != nil {
			return catalogFailure(stderr, err)
		}
		return writeJSON(stdout, stderr, map[string]any{"ok": true, "server": res.Server, "tools": res.Tools})
	case "get":
		e, err := cat.Get(ctx, server, tool)
		if err != nil {
			return catalogFailure(stderr, err)
		}
		out := map[string]any{"server": e.Server, "name": e.Name, "inputSchemaDigest": e.Input.Digest(), "definition": e.Definition}
		if e.Output != nil {
			out["outputSchemaDigest"] = e.Output.Digest()
		}
		return writeJSON(stdout, stderr, out)
	default:
		names, err := cat.List(ctx, server)
		if err != nil {
			return catalogFailure(stderr, err)
		}
		for _, n := range names {
			if _, err := fmt.Fprintln(stdout, n); err != nil {
				return exitFailure
			}
		}
		return exitOK
	}
}

// catalogFailure reports a toolcat error: refusals exit 3, an unavailable
// catalog exits 1.
func catalogFailure(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "sanitize-worker tools: %v\n", err)
	if toolcat.CodeOf(err) == toolcat.CodeUnavailable {
		return exitFailure
	}
	return exitRejected
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker: cannot encode the output")
		return exitFailure
	}
	if _, err := stdout.Write(append(b, '\n')); err != nil {
		return exitFailure
	}
	return exitOK
}
