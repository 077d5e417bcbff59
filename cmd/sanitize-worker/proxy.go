package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// `sanitize-worker proxy` puts the pipeline in front of an MCP server
// (package proxy): stdio with a child process, or Streamable HTTP in front
// of an upstream URL. This file only wires flags.

const proxyUsageHead = `usage: sanitize-worker proxy [flags] -- <server command> [args...]
       sanitize-worker proxy [flags] --upstream URL [--listen ADDR] [--upstream-header "Name: value"]...

Runs in front of an MCP server. Every message the server sends towards the
client is sanitized before the client sees it: responses by the method of
the request they answer, server requests and notifications by their own
method, anything without a dedicated kind as the generic kind. tools/call
arguments go through the argument gate when the tool's inputSchema is known
from a tools/list result. See docs/proxy.md.

stdio: the server runs as a child; the proxy's standard input and output
are the client side, the child's standard error is the proxy's. The proxy
ends when the server does, with its exit status; closing standard input
ends the server.

HTTP: the proxy serves MCP's Streamable HTTP transport on --listen
(loopback by default; a loopback proxy refuses foreign Origin headers) and
relays to --upstream, SSE event by event.

The engine runs in this process unless --nats-url is given: then each
message goes through the fleet's inline path (sanitize-worker serve), and
evidence is where serve puts it (--evidence then records the proxy's own
refusals).

flags:
`

// runProxy implements `sanitize-worker proxy`.
func runProxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), proxyUsageHead)
		fs.PrintDefaults()
	}
	var f proxyFlags
	f.register(fs)
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker proxy: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run 'sanitize-worker proxy -h' for the flags.")
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	command := fs.Args()
	switch {
	case f.upstream == "" && len(command) == 0:
		return usageErr("give the server command after -- (stdio), or --upstream URL (HTTP)")
	case f.upstream != "" && len(command) > 0:
		return usageErr("--upstream and a server command are alternatives")
	case f.upstream == "" && f.listen != "":
		return usageErr("--listen goes with --upstream")
	}
	if err := f.check(); err != nil {
		return usageErr("%v", err)
	}
	if err := f.nats.check(fs, os.LookupEnv); err != nil {
		return usageErr("%v", err)
	}
	if f.nats.url != "" && f.policy != "" {
		return usageErr("--policy goes with the engine in this process; with --nats-url the workers' policy applies")
	}
	if err := f.guards.check(f.nats.url != ""); err != nil {
		return usageErr("%v", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: f.logLevel()}))

	var evw *proxy.EvidenceWriter
	if f.evidence != "" {
		file, err := os.OpenFile(f.evidence, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "sanitize-worker proxy: cannot open the --evidence file")
			return exitFailure
		}
		defer file.Close()
		evw = proxy.NewEvidenceWriter(file)
	}
	san, closeSan, err := f.sanitizer(ctx, log)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker proxy: %v\n", err)
		return exitFailure
	}
	defer closeSan()
	o := proxy.Options{
		MaxMessageBytes: f.maxMessage,
		MaxPending:      f.maxPending,
		MaxInFlight:     f.maxInFlight,
		PendingTimeout:  f.pendingTimeout,
		Timeout:         f.timeout,
		Server:          f.server,
		Tenant:          f.tenant,
		NoArgsGate:      f.noArgsGate,
		Log:             log,
	}
	if evw != nil {
		o.Evidence = evw.Write
	}
	if pe, ok := san.(proxy.Engine); ok {
		o.Notifications = pe.E.Policy().Notifications // the policy's rate of notifications
	}
	p, err := proxy.New(san, o)
	if err != nil {
		return usageErr("%v", err)
	}
	if f.upstream != "" {
		return runProxyHTTP(ctx, p, &f, log, stderr)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = stderr
	st := &proxy.Stdio{Proxy: p, Cmd: cmd, CloseGrace: f.closeGrace}
	code, err := st.Run(ctx, stdin, stdout)
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			fmt.Fprintln(stderr, "sanitize-worker proxy: the server command cannot be run (not found or not executable)")
		} else {
			fmt.Fprintln(stderr, "sanitize-worker proxy: relaying failed")
		}
		return exitFailure
	}
	if evw != nil && evw.Err() != nil {
		fmt.Fprintln(stderr, "sanitize-worker proxy: writing the --evidence file failed")
	}
	return code
}

// proxyFlags are the flags of `sanitize-worker proxy`.
type proxyFlags struct {
	policy, evidence, server, tenant string
	timeout, closeGrace              time.Duration
	pendingTimeout                   time.Duration
	maxMessage                       int64
	maxPending, maxInFlight          int
	noArgsGate                       bool
	verbose                          bool

	// HTTP (proxy_http.go)
	upstream, listen string
	headers          headerFlags

	// NATS (proxy_nats.go)
	nats proxyNATSFlags

	// The guards' request context (guards_local.go)
	guards localGuardFlags
}

func (f *proxyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.policy, "policy", "", "policy `FILE` (JSON or YAML); the built-in defaults without it")
	fs.StringVar(&f.evidence, "evidence", "", "append the evidence of each message to `FILE` (JSON lines)")
	fs.StringVar(&f.server, "server", "", "server `NAME` for evidence (and the fleet's Mcp-Server)")
	fs.StringVar(&f.tenant, "tenant", "", "tenant `NAME` for evidence (and the fleet's Mcp-Tenant)")
	fs.DurationVar(&f.timeout, "timeout", proxy.DefaultTimeout, "deadline of one message's pass (the message fails closed with TIMEOUT when it runs out)")
	fs.DurationVar(&f.closeGrace, "close-grace", proxy.DefaultCloseGrace, "stdio: how long the server has to exit after its standard input closes, and again after SIGTERM")
	fs.Int64Var(&f.maxMessage, "max-message-bytes", proxy.DefaultMaxMessageBytes, "largest message relayed in either direction; longer ones are refused")
	fs.IntVar(&f.maxPending, "max-pending", proxy.DefaultMaxPending, "client requests in flight the proxy remembers; when full, one unanswered past --pending-timeout is evicted (the client gets an error for it), else the new one is answered with an error")
	fs.DurationVar(&f.pendingTimeout, "pending-timeout", proxy.DefaultPendingTimeout, "how long a request may wait for its answer before a full --max-pending map may evict it")
	fs.IntVar(&f.maxInFlight, "max-in-flight", proxy.DefaultMaxInFlight, "stdio: server messages sanitized at once (results may overtake each other; notifications keep their order); 1: one at a time")
	fs.BoolVar(&f.noArgsGate, "no-args-gate", false, "let tools/call arguments through unchecked")
	fs.BoolVar(&f.verbose, "v", false, "log each refused or rejected message (codes and reasons only) to standard error")
	f.registerHTTP(fs)
	f.nats.register(fs)
	f.guards.register(fs, false)
}

func (f *proxyFlags) check() error {
	switch {
	case f.timeout <= 0:
		return errors.New("--timeout must be positive")
	case f.closeGrace <= 0:
		return errors.New("--close-grace must be positive")
	case f.maxMessage < 1024:
		return errors.New("--max-message-bytes must be at least 1024")
	case f.maxPending < 1:
		return errors.New("--max-pending must be positive")
	case f.pendingTimeout <= 0:
		return errors.New("--pending-timeout must be positive")
	case f.maxInFlight < 1:
		return errors.New("--max-in-flight must be positive")
	}
	return f.checkHTTP()
}

func (f *proxyFlags) logLevel() slog.Level {
	if f.verbose {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// sanitizer is the engine in this process, or the fleet with --nats-url.
func (f *proxyFlags) sanitizer(ctx context.Context, log *slog.Logger) (proxy.Sanitizer, func(), error) {
	if f.nats.url != "" {
		gc, err := f.guards.fleetContext()
		if err != nil {
			return nil, nil, err
		}
		san, done, err := f.nats.sanitizer(log)
		if fl, ok := san.(proxy.Fleet); ok {
			fl.Guard = gc
			san = fl
		}
		return san, done, err
	}
	var pol *pipeline.Policy
	if f.policy != "" {
		p, err := pipeline.LoadPolicy(f.policy)
		if err != nil {
			return nil, nil, fmt.Errorf("--policy: %v", err)
		}
		pol = p
	}
	e, err := pipeline.NewEngine(pol)
	if err != nil {
		return nil, nil, fmt.Errorf("--policy: %v", err)
	}
	// Tool definitions pinned for the life of the process (policy
	// pinning): a definition changed after the first list is flagged or
	// held.
	ep := e.Policy()
	gc, err := f.guards.context(&ep, log)
	if err != nil {
		return nil, nil, err
	}
	return proxy.Engine{E: e, Pins: pipeline.NewMemoryPins(0), Guard: gc}, func() {}, nil
}
