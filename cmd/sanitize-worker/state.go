package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// `sanitize-worker state` runs worker.StateService: the request/reply
// subjects mcp.state.seal and mcp.state.verify (docs/statekeys.md), on an
// existing NATS server or cluster (--nats-url) or on an embedded loopback
// server (internal/natsembed). This file is wiring only: flags, environment,
// key source, connection, logging and shutdown.

// Defaults of the state command that are not defaults of the packages it
// wires.
const (
	defaultStateDrainTimeout = 30 * time.Second
	defaultStateStartTimeout = 30 * time.Second
	// maxStateRequestBytes is the NATS hard limit on a message payload.
	maxStateRequestBytes = 64 << 20
)

type stateFlags struct {
	natsURL, creds, nkey, tlsCA, tlsCert, tlsKey string
	embeddedDir                                  string
	embeddedPort                                 int
	embeddedLog                                  bool

	keysFile, keysEnv, keysKV, keysKVKey string
	keysReload                           time.Duration

	policyKeys, formPolicies string // form elicitation (state_forms.go)

	queue           string
	concurrency     int
	maxRequestBytes int
	evidencePrefix  string
	replayBucket    string
	replayReplicas  int
	ttl, maxTTL     time.Duration
	replayMargin    time.Duration
	clockSkew       time.Duration
	drainTimeout    time.Duration
	logLevel        string

	level slog.Level
	given map[string]bool // flags set on the command line or from the environment
}

// stateEnv maps every flag of `state` to its environment variable. A flag
// on the command line wins over the variable.
var stateEnv = []struct{ flag, env string }{
	{"nats-url", "MCP_SANITIZE_NATS_URL"},
	{"creds", "MCP_SANITIZE_NATS_CREDS"},
	{"nkey", "MCP_SANITIZE_NATS_NKEY"},
	{"tls-ca", "MCP_SANITIZE_NATS_TLS_CA"},
	{"tls-cert", "MCP_SANITIZE_NATS_TLS_CERT"},
	{"tls-key", "MCP_SANITIZE_NATS_TLS_KEY"},
	{"embedded-dir", "MCP_SANITIZE_NATS_EMBEDDED_DIR"},
	{"embedded-port", "MCP_SANITIZE_NATS_EMBEDDED_PORT"},
	{"embedded-log", "MCP_SANITIZE_NATS_EMBEDDED_LOG"},
	{"drain-timeout", "MCP_SANITIZE_NATS_DRAIN_TIMEOUT"},
	{"keys", "MCP_SANITIZE_STATE_KEYS"},
	{"keys-env", "MCP_SANITIZE_STATE_KEYS_ENV"},
	{"keys-kv", "MCP_SANITIZE_STATE_KEYS_KV"},
	{"keys-kv-key", "MCP_SANITIZE_STATE_KEYS_KV_KEY"},
	{"keys-reload", "MCP_SANITIZE_STATE_KEYS_RELOAD"},
	{"policy-keys", "MCP_SANITIZE_STATE_POLICY_KEYS"},
	{"form-policies", "MCP_SANITIZE_STATE_FORM_POLICIES"},
	{"queue", "MCP_SANITIZE_STATE_QUEUE"},
	{"concurrency", "MCP_SANITIZE_STATE_CONCURRENCY"},
	{"max-request-bytes", "MCP_SANITIZE_STATE_MAX_REQUEST_BYTES"},
	{"evidence-prefix", "MCP_SANITIZE_STATE_EVIDENCE_PREFIX"},
	{"replay-bucket", "MCP_SANITIZE_STATE_REPLAY_BUCKET"},
	{"replay-replicas", "MCP_SANITIZE_STATE_REPLAY_REPLICAS"},
	{"ttl", "MCP_SANITIZE_STATE_TTL"},
	{"max-ttl", "MCP_SANITIZE_STATE_MAX_TTL"},
	{"replay-margin", "MCP_SANITIZE_STATE_REPLAY_MARGIN"},
	{"clock-skew", "MCP_SANITIZE_STATE_CLOCK_SKEW"},
	{"log-level", "MCP_SANITIZE_LOG_LEVEL"},
}

const stateUsageHead = `usage: sanitize-worker state [flags]

Serves mcp.state.seal and mcp.state.verify (sealed MRTR requestState, see
docs/statekeys.md) in queue group --queue, on the NATS server at --nats-url or,
without it, on an embedded server listening on 127.0.0.1 only (serve's
defaults: port 4222, the same store; with a serve running, use serve
--state-keys FILE instead, or --nats-url to join its server). Exactly one key
source is required: --keys, --keys-env or --keys-kv. Logs are JSON on standard
error. SIGTERM or SIGINT stops it cleanly (exit 0).

Form-mode elicitations are sealed only when a form policy signed by a trusted
reviewer covers them: --policy-keys names the reviewers' Ed25519 public keys
(without it every form elicitation is refused), --form-policies installs signed
policies that cover every seal request (a request may also bring its own
formPolicy). Both files are read at start (restart to change them) and must not
be writable by group or others. URL-mode elicitations need neither.

Exit codes: 0 stopped by a signal; 2 usage error; 1 any other failure.

flags:
`

func stateUsage(fs *flag.FlagSet) func() {
	return func() {
		w := fs.Output()
		fmt.Fprint(w, stateUsageHead)
		fs.PrintDefaults()
		fmt.Fprint(w, "\nenvironment (a flag on the command line wins):\n")
		for _, e := range stateEnv {
			fmt.Fprintf(w, "  %-38s --%s\n", e.env, e.flag)
		}
	}
}

// runState implements `sanitize-worker state`.
func runState(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
	return runStateEnv(ctx, args, os.LookupEnv, stderr)
}

// runStateEnv is runState with the environment behind lookup, which also
// serves --keys-env.
func runStateEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stderr io.Writer) int {
	f, code := parseStateFlags(args, lookup, stderr)
	if f == nil {
		return code
	}
	return f.run(ctx, lookup, stderr)
}

func parseStateFlags(args []string, lookup func(string) (string, bool), stderr io.Writer) (*stateFlags, int) {
	f := &stateFlags{}
	fs := flag.NewFlagSet("state", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = stateUsage(fs)
	fs.StringVar(&f.natsURL, "nats-url", "", "NATS server `URLs` (comma-separated: nats://, tls://, ws://, wss://); empty starts an embedded server")
	fs.StringVar(&f.creds, "creds", "", "NATS user credentials `FILE` (JWT and seed); needs --nats-url")
	fs.StringVar(&f.nkey, "nkey", "", "NATS nkey seed `FILE`; needs --nats-url")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "CA certificates `FILE` (PEM) to verify the NATS server; needs --nats-url")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate `FILE` (PEM) for NATS TLS; with --tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "client key `FILE` (PEM) for NATS TLS; with --tls-cert")
	fs.StringVar(&f.embeddedDir, "embedded-dir", defaultServeDataDir(lookup), "JetStream store `DIR` of the embedded server (created 0700), the same default as serve's; to run both on one embedded server use serve --state-keys")
	fs.IntVar(&f.embeddedPort, "embedded-port", natsembed.DefaultPort, "client `PORT` of the embedded server on 127.0.0.1 (-1: a free port, logged on ready)")
	fs.BoolVar(&f.embeddedLog, "embedded-log", false, "also log the embedded server's notices (its warnings and errors are always logged)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", defaultStateDrainTimeout, "how long draining the NATS connection may take at shutdown")
	fs.StringVar(&f.keysFile, "keys", "", "key ring `FILE` (sanitize-worker keys); reloaded every --keys-reload, so rotation needs no restart")
	fs.StringVar(&f.keysEnv, "keys-env", "", "environment `VAR` holding the key ring document (or base64: + it); rotation needs a restart")
	fs.StringVar(&f.keysKV, "keys-kv", "", "JetStream KV `BUCKET` holding the key ring (worker.PutKeyRing); every new revision is swapped in")
	fs.StringVar(&f.keysKVKey, "keys-kv-key", worker.DefaultKeyRingKey, "`KEY` of the ring in the --keys-kv bucket")
	fs.DurationVar(&f.keysReload, "keys-reload", statekeys.DefaultReloadInterval, "how often the --keys file is reloaded")
	fs.StringVar(&f.policyKeys, "policy-keys", "", "trusted reviewer keys `FILE`: the Ed25519 public keys that sign form policies (docs/statekeys.md); without it every form elicitation is refused")
	fs.StringVar(&f.formPolicies, "form-policies", "", "signed form policies `FILE` installed for every seal request (docs/statekeys.md); needs --policy-keys")
	fs.StringVar(&f.queue, "queue", worker.DefaultStateQueue, "queue `GROUP` shared by every state worker")
	fs.IntVar(&f.concurrency, "concurrency", runtime.GOMAXPROCS(0), "requests handled at once (1..4096)")
	fs.IntVar(&f.maxRequestBytes, "max-request-bytes", worker.DefaultStateMaxRequestBytes, "largest request accepted (1024..64 MiB; an external server's max_payload also applies)")
	fs.StringVar(&f.evidencePrefix, "evidence-prefix", worker.DefaultStateEvidencePrefix, "evidence subject `PREFIX` (evidence goes to PREFIX.<tenant>)")
	fs.StringVar(&f.replayBucket, "replay-bucket", worker.DefaultReplayBucket, "JetStream KV `BUCKET` that makes each state single use")
	fs.IntVar(&f.replayReplicas, "replay-replicas", 1, "replicas of the --replay-bucket (1..5; use 3 in a cluster)")
	fs.DurationVar(&f.ttl, "ttl", statekeys.DefaultTTL, "lifetime of a state whose seal request names none (at least 1s)")
	fs.DurationVar(&f.maxTTL, "max-ttl", statekeys.DefaultMaxTTL, "longest lifetime a seal request may ask for (at least --ttl)")
	fs.DurationVar(&f.replayMargin, "replay-margin", statekeys.DefaultReplayMargin, "kept beyond a state's lifetime in the replay bucket, for clock differences (0..1h)")
	fs.DurationVar(&f.clockSkew, "clock-skew", statekeys.DefaultClockSkew, "how far in the future an issue time may lie (0..5m)")
	fs.StringVar(&f.logLevel, "log-level", "info", "`LEVEL` of the JSON log: debug, info, warn, error")

	usageErr := func(format string, a ...any) (*stateFlags, int) {
		fmt.Fprintf(stderr, "sanitize-worker state: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run 'sanitize-worker state -h' for the flags.")
		return nil, exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		return nil, exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	for _, e := range stateEnv {
		if f.given[e.flag] {
			continue
		}
		v, ok := lookup(e.env)
		if !ok || v == "" {
			continue
		}
		// The value is not echoed: some variables hold URLs with credentials.
		if err := fs.Set(e.flag, v); err != nil {
			return usageErr("%s: invalid value for --%s", e.env, e.flag)
		}
		f.given[e.flag] = true
	}

	var sources []string
	for _, s := range []struct{ name, v string }{{"--keys", f.keysFile}, {"--keys-env", f.keysEnv}, {"--keys-kv", f.keysKV}} {
		if s.v != "" {
			sources = append(sources, s.name)
		}
	}
	switch {
	case len(sources) == 0:
		return usageErr("a key source is required: --keys FILE, --keys-env VAR or --keys-kv BUCKET (or MCP_SANITIZE_STATE_KEYS, _KEYS_ENV, _KEYS_KV)")
	case len(sources) > 1:
		return usageErr("exactly one key source may be given, not %s", strings.Join(sources, " and "))
	}
	if f.keysKVKey == "" {
		return usageErr("--keys-kv-key must not be empty")
	}
	if f.keysReload < 10*time.Millisecond {
		return usageErr("--keys-reload must be at least 10ms")
	}
	if f.formPolicies != "" && f.policyKeys == "" {
		return usageErr("--form-policies needs --policy-keys (the reviewer keys that verify them)")
	}

	if err := checkNATSTarget(f.natsURL, f.given, []string{"embedded-dir", "embedded-port", "embedded-log"}, f.embeddedDir, f.embeddedPort); err != nil {
		return usageErr("%v", err)
	}
	if err := f.connFlags().check(); err != nil {
		return usageErr("%v", err)
	}

	if f.queue == "" {
		return usageErr("--queue must not be empty")
	}
	if f.concurrency < 1 || f.concurrency > 4096 {
		return usageErr("--concurrency must be 1..4096")
	}
	if f.maxRequestBytes < 1024 || f.maxRequestBytes > maxStateRequestBytes {
		return usageErr("--max-request-bytes must be 1024..%d", maxStateRequestBytes)
	}
	if f.evidencePrefix == "" || strings.HasSuffix(f.evidencePrefix, ".") || strings.ContainsAny(f.evidencePrefix, " \t*>") {
		return usageErr("--evidence-prefix must be a subject without wildcards or a trailing dot")
	}
	if f.replayBucket == "" {
		return usageErr("--replay-bucket must not be empty")
	}
	if f.replayReplicas < 1 || f.replayReplicas > 5 {
		return usageErr("--replay-replicas must be 1..5")
	}
	if f.ttl < time.Second || f.maxTTL < f.ttl {
		return usageErr("--ttl must be at least 1s and --max-ttl at least --ttl")
	}
	if f.replayMargin < 0 || f.replayMargin > time.Hour {
		return usageErr("--replay-margin must be 0..1h")
	}
	if f.clockSkew < 0 || f.clockSkew > 5*time.Minute {
		return usageErr("--clock-skew must be 0..5m")
	}
	if err := f.level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usageErr("--log-level must be debug, info, warn or error")
	}
	return f, exitOK
}

// checkNATSURLs checks a comma-separated list of server URLs the way
// nats.go reads it (a URL without a scheme is nats://). Its errors never
// repeat a URL: they may hold credentials.
func checkNATSURLs(list string) error {
	for i, raw := range strings.Split(list, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			return fmt.Errorf("URL %d is empty", i+1)
		}
		if !strings.Contains(raw, "://") {
			raw = "nats://" + raw
		}
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("URL %d does not parse", i+1)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("URL %d: scheme must be nats, tls, ws or wss", i+1)
		}
		if u.Hostname() == "" {
			return fmt.Errorf("URL %d has no host", i+1)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("URL %d: port must be 1..65535", i+1)
			}
		}
	}
	return nil
}

// redactNATSURLs removes user information (user and password, or a token
// in the user position) from a comma-separated list of server URLs, for
// logging.
func redactNATSURLs(list string) string {
	parts := strings.Split(list, ",")
	for i, raw := range parts {
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if err != nil || !strings.Contains(raw, "://") {
			if strings.Contains(raw, "@") {
				raw = "redacted"
			}
			parts[i] = raw
			continue
		}
		if u.User != nil {
			u.User = url.User("redacted")
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}

func (f *stateFlags) keySourceAttrs() []any {
	switch {
	case f.keysFile != "":
		return []any{"keySource", "file", "keysFile", f.keysFile, "reloadEvery", f.keysReload.String()}
	case f.keysEnv != "":
		return []any{"keySource", "env", "keysEnv", f.keysEnv}
	default:
		return []any{"keySource", "kv", "keysBucket", f.keysKV, "keysKey", f.keysKVKey}
	}
}

// ringAttrs describes a ring for the log: key ids, states and creation
// times (statekeys.KeyInfo), never key material.
func ringAttrs(r *statekeys.Ring) []any {
	return []any{"activeKey", r.Active().ID, "keys", r.Keys()}
}

// run starts everything, serves until ctx ends or the connection closes for
// good, and shuts down in order: service (in-flight requests finish),
// key watches, connection (drained), embedded server.
func (f *stateFlags) run(ctx context.Context, lookup func(string) (string, bool), stderr io.Writer) int {
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: f.level})).With("cmd", "state")
	mode, start := "embedded", []any{"nats", "embedded", "embeddedDir", f.embeddedDir}
	if f.natsURL != "" {
		mode, start = "external", []any{"nats", "external", "natsUrl", redactNATSURLs(f.natsURL)}
	}
	log.Info("start", append(append(start, "queue", f.queue), f.keySourceAttrs()...)...)
	guard, ok := f.formGuard(log)
	if !ok {
		return exitFailure
	}

	var maxPayload int32
	if f.maxRequestBytes > 1<<20 {
		maxPayload = int32(f.maxRequestBytes) + 4096 // headers
	}
	url, stopServer, ok := natsServerURL(f.natsURL, natsembed.Options{
		Dir:        f.embeddedDir,
		Port:       f.embeddedPort,
		MaxPayload: maxPayload,
		Verbose:    f.embeddedLog,
	}, log)
	if !ok {
		return exitFailure
	}

	nc, closed, err := f.connect(url, log)
	if err != nil {
		log.Error("cannot connect to NATS", "natsUrl", redactNATSURLs(url), "error", err.Error())
		stopServer()
		return exitFailure
	}
	// closeAll closes the connection without draining (failure paths).
	closeAll := func() int {
		nc.Close()
		stopServer()
		return exitFailure
	}
	js, err := jetstream.New(nc)
	if err != nil {
		log.Error("cannot use JetStream", "error", err.Error())
		return closeAll()
	}

	startCtx, cancelStart := context.WithTimeout(ctx, defaultStateStartTimeout)
	defer cancelStart()
	var src statekeys.Source
	var kvSrc *worker.KVKeySource
	switch {
	case f.keysFile != "":
		src = statekeys.FileSource{Path: f.keysFile}
	case f.keysEnv != "":
		src = statekeys.EnvSource{Name: f.keysEnv, Lookup: lookup}
	default:
		kv, err := js.KeyValue(startCtx, f.keysKV)
		if err != nil {
			log.Error("key ring bucket not found (create it and put a ring: worker.EnsureKeyBucket, worker.PutKeyRing)", "keysBucket", f.keysKV, "error", err.Error())
			return closeAll()
		}
		kvSrc = &worker.KVKeySource{KV: kv, Key: f.keysKVKey}
		src = *kvSrc
	}
	r, err := src.Load(startCtx)
	if err != nil {
		// statekeys errors carry a code and a reason, never the document.
		log.Error("cannot load the key ring (missing, mode not 0600/0640, or malformed)",
			append([]any{"code", string(statekeys.CodeOf(err)), "reason", string(statekeys.ReasonOf(err))}, f.keySourceAttrs()...)...)
		return closeAll()
	}
	keyring, err := statekeys.NewKeyring(r)
	if err != nil {
		log.Error("cannot use the key ring", "code", string(statekeys.CodeOf(err)))
		return closeAll()
	}
	log.Info("key ring loaded", ringAttrs(r)...)

	opts := []worker.StateOption{
		worker.WithStateQueue(f.queue),
		worker.WithStateConcurrency(f.concurrency),
		worker.WithStateMaxRequestBytes(f.maxRequestBytes),
		worker.WithStateEvidencePrefix(f.evidencePrefix),
		worker.WithReplayBucket(worker.ReplayBucketConfig{
			Bucket:    f.replayBucket,
			Replicas:  f.replayReplicas,
			Storage:   jetstream.FileStorage,
			MaxAge:    worker.DefaultReplayMaxAge,
			MarkerTTL: worker.DefaultReplayMarkerTTL,
		}),
		worker.WithKeeperOptions(
			statekeys.WithTTL(f.ttl, f.maxTTL),
			statekeys.WithReplayMargin(f.replayMargin),
			statekeys.WithClockSkew(f.clockSkew),
		),
		worker.WithStateErrorHandler(func(err error) {
			// Fixed texts from the worker, public messages from statekeys.
			log.Warn("state service error", "error", err.Error(), "code", string(statekeys.CodeOf(err)), "reason", string(statekeys.ReasonOf(err)))
		}),
	}
	if kvSrc != nil {
		opts = append(opts, worker.WithKVKeySource(*kvSrc))
	}
	if guard != nil {
		opts = append(opts, worker.WithKeeperOptions(statekeys.WithGuard(guard)))
	}
	svc, err := worker.NewStateService(nc, js, keyring, opts...)
	if err != nil {
		log.Error("invalid state service options", "error", err.Error())
		return closeAll()
	}
	if err := svc.Start(startCtx); err != nil {
		if ctx.Err() != nil {
			log.Info("stopped before ready")
			nc.Close()
			stopServer()
			return exitOK
		}
		log.Error("state service did not start (JetStream available? replay bucket allowed?)", "replayBucket", f.replayBucket, "error", err.Error())
		return closeAll()
	}
	cancelStart()

	watchCtx, cancelWatch := context.WithCancel(context.Background())
	var watches sync.WaitGroup
	if f.keysFile != "" {
		watches.Go(func() {
			keyring.Watch(watchCtx, src, f.keysReload, func(err error) {
				log.Warn("key ring reload failed; the previous ring stays", "code", string(statekeys.CodeOf(err)), "reason", string(statekeys.ReasonOf(err)), "keysFile", f.keysFile)
			})
		})
	}
	if f.keysFile != "" || kvSrc != nil {
		every := time.Second
		if f.keysFile != "" && f.keysReload < every {
			every = f.keysReload
		}
		watches.Go(func() { logRingSwaps(watchCtx, keyring, every, log) })
	}

	log.Info("ready",
		"subjects", []string{worker.SubjectStateSeal, worker.SubjectStateVerify},
		"queue", f.queue, "natsUrl", redactNATSURLs(nc.ConnectedUrl()), "nats", mode,
		"activeKey", r.Active().ID, "concurrency", f.concurrency)

	code := exitOK
	select {
	case <-ctx.Done():
		log.Info("stopping", "cause", "signal")
	case <-closed:
		log.Error("NATS connection closed; stopping")
		code = exitFailure
	}
	if err := svc.Stop(); err != nil {
		log.Warn("unsubscribe failed", "error", err.Error())
	}
	cancelWatch()
	watches.Wait()
	drainNATS(nc, closed, f.drainTimeout, log)
	stopServer()
	log.Info("stopped", "exitCode", code)
	return code
}

// connFlags returns the connection flags (natsconn.go).
func (f *stateFlags) connFlags() natsConnFlags {
	return natsConnFlags{
		creds: f.creds, nkey: f.nkey, tlsCA: f.tlsCA, tlsCert: f.tlsCert, tlsKey: f.tlsKey,
		drainTimeout: f.drainTimeout,
	}
}

// connect dials NATS with the connection flags.
func (f *stateFlags) connect(url string, log *slog.Logger) (*nats.Conn, <-chan struct{}, error) {
	return dialNATS("mcp-sanitize state", url, f.connFlags(), log)
}

// logRingSwaps logs each ring the Keyring swaps in (by the file watch or
// the KV watch): key ids and states only.
func logRingSwaps(ctx context.Context, k *statekeys.Keyring, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := k.Ring()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if cur := k.Ring(); cur != last {
				last = cur
				log.Info("key ring reloaded", ringAttrs(cur)...)
			}
		}
	}
}
