package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// Configuration of `sanitize-worker serve`: flags, environment variables
// and a configuration file (YAML or JSON) whose keys are the flag names.
// A flag on the command line wins over its environment variable, which
// wins over the file, which wins over the default. docs/nats.md lists every
// setting with its default.

// maxConfigBytes caps the configuration file.
const maxConfigBytes = 1 << 20

// serveFlags holds every setting of serve.
type serveFlags struct {
	configFile string

	conn                      natsConnFlags
	natsURL                   string
	embeddedDir               string
	embeddedPort              int
	embeddedLog               bool
	embeddedMaxPayload        int
	policy, policies          string
	inline, durable, manage   bool
	replicas                  int
	rawRetention              string
	rawMaxAge, cleanMaxAge    time.Duration
	evidenceMaxAge, dlqMaxAge time.Duration
	duplicates                time.Duration
	evidencePersist           string
	maxDeliver, maxAckPending int
	backoff                   string
	concurrency               int
	timeout, publishTimeout   time.Duration
	fetchBatch, fetchMaxBytes int
	fetchWait                 time.Duration
	stallAfter                time.Duration
	ackMode                   string
	claims                    bool
	claimTTL                  time.Duration
	maxDecodedBytes           int64
	compressAbove             int
	compress                  string
	spoolDir                  string
	httpAddr                  string
	stateKeys                 string
	catalog, requireKnownTool bool
	framing                   string
	logLevel                  string
	drainTimeout              time.Duration
	level                     slog.Level
	backoffSteps              []time.Duration
	namedPolicies             map[string]string
	policyTrust, policyBucket string            // serve_policy.go
	policyPin                 string            // TENANT=VERSION,...
	tenantPins                map[string]string // parsed policyPins
	evidenceKey               string            // serve_policy.go: chain checkpoints
	evidenceChain             bool
	checkpointEvery           time.Duration
	checkpointRecords         int
	archive                   bool // serve_policy.go: raw inputs kept for re-scans
	archiveMaxAge             time.Duration
	archiveMaxBytes           int64
	given                     map[string]bool // set by flag, environment or file
	guards                    guardFlags      // serve_guards.go
}

// serveEnv maps each flag to its environment variable. The connection
// variables are those of `state`.
var serveEnv = []struct{ flag, env string }{
	{"config", "MCP_SANITIZE_CONFIG"},
	{"nats-url", "MCP_SANITIZE_NATS_URL"},
	{"creds", "MCP_SANITIZE_NATS_CREDS"},
	{"nkey", "MCP_SANITIZE_NATS_NKEY"},
	{"tls-ca", "MCP_SANITIZE_NATS_TLS_CA"},
	{"tls-cert", "MCP_SANITIZE_NATS_TLS_CERT"},
	{"tls-key", "MCP_SANITIZE_NATS_TLS_KEY"},
	{"embedded-dir", "MCP_SANITIZE_NATS_EMBEDDED_DIR"},
	{"embedded-port", "MCP_SANITIZE_NATS_EMBEDDED_PORT"},
	{"embedded-log", "MCP_SANITIZE_NATS_EMBEDDED_LOG"},
	{"embedded-max-payload", "MCP_SANITIZE_NATS_EMBEDDED_MAX_PAYLOAD"},
	{"drain-timeout", "MCP_SANITIZE_NATS_DRAIN_TIMEOUT"},
	{"policy", "MCP_SANITIZE_POLICY"},
	{"authz-subject", "MCP_SANITIZE_AUTHZ_SUBJECT"},
	{"authz-timeout", "MCP_SANITIZE_AUTHZ_TIMEOUT"},
	{"policies", "MCP_SANITIZE_POLICIES"},
	{"policy-trust", "MCP_SANITIZE_POLICY_TRUST"},
	{"policy-bucket", "MCP_SANITIZE_POLICY_BUCKET"},
	{"policy-pin", "MCP_SANITIZE_POLICY_PIN"},
	{"evidence-chain", "MCP_SANITIZE_EVIDENCE_CHAIN"},
	{"evidence-key", "MCP_SANITIZE_EVIDENCE_KEY"},
	{"checkpoint-every", "MCP_SANITIZE_CHECKPOINT_EVERY"},
	{"checkpoint-records", "MCP_SANITIZE_CHECKPOINT_RECORDS"},
	{"archive", "MCP_SANITIZE_ARCHIVE"},
	{"archive-max-age", "MCP_SANITIZE_ARCHIVE_MAX_AGE"},
	{"archive-max-bytes", "MCP_SANITIZE_ARCHIVE_MAX_BYTES"},
	{"inline", "MCP_SANITIZE_INLINE"},
	{"durable", "MCP_SANITIZE_DURABLE"},
	{"manage-streams", "MCP_SANITIZE_MANAGE_STREAMS"},
	{"replicas", "MCP_SANITIZE_REPLICAS"},
	{"raw-retention", "MCP_SANITIZE_RAW_RETENTION"},
	{"raw-max-age", "MCP_SANITIZE_RAW_MAX_AGE"},
	{"clean-max-age", "MCP_SANITIZE_CLEAN_MAX_AGE"},
	{"evidence-max-age", "MCP_SANITIZE_EVIDENCE_MAX_AGE"},
	{"dlq-max-age", "MCP_SANITIZE_DLQ_MAX_AGE"},
	{"duplicates", "MCP_SANITIZE_DUPLICATES"},
	{"evidence-persist", "MCP_SANITIZE_EVIDENCE_PERSIST"},
	{"max-deliver", "MCP_SANITIZE_MAX_DELIVER"},
	{"backoff", "MCP_SANITIZE_BACKOFF"},
	{"max-ack-pending", "MCP_SANITIZE_MAX_ACK_PENDING"},
	{"concurrency", "MCP_SANITIZE_CONCURRENCY"},
	{"timeout", "MCP_SANITIZE_TIMEOUT"},
	{"publish-timeout", "MCP_SANITIZE_PUBLISH_TIMEOUT"},
	{"fetch-batch", "MCP_SANITIZE_FETCH_BATCH"},
	{"fetch-max-bytes", "MCP_SANITIZE_FETCH_MAX_BYTES"},
	{"fetch-wait", "MCP_SANITIZE_FETCH_WAIT"},
	{"stall-after", "MCP_SANITIZE_STALL_AFTER"},
	{"ack-mode", "MCP_SANITIZE_ACK_MODE"},
	{"claims", "MCP_SANITIZE_CLAIMS"},
	{"claim-ttl", "MCP_SANITIZE_CLAIM_TTL"},
	{"max-decoded-bytes", "MCP_SANITIZE_MAX_DECODED_BYTES"},
	{"compress-above", "MCP_SANITIZE_COMPRESS_ABOVE"},
	{"compress", "MCP_SANITIZE_COMPRESS"},
	{"spool-dir", "MCP_SANITIZE_SPOOL_DIR"},
	{"http-addr", "MCP_SANITIZE_HTTP_ADDR"},
	{"catalog", "MCP_SANITIZE_CATALOG"},
	{"require-known-tool", "MCP_SANITIZE_REQUIRE_KNOWN_TOOL"},
	{"framing", "MCP_SANITIZE_FRAMING"},
	{"state-keys", "MCP_SANITIZE_STATE_KEYS"},
	{"log-level", "MCP_SANITIZE_LOG_LEVEL"},
}

// defaultServeDataDir is where the embedded server of serve and of state
// keeps its streams:
// $XDG_STATE_HOME/mcp-sanitize/nats when XDG_STATE_HOME is set, else
// ./.sanitize-data.
func defaultServeDataDir(lookup func(string) (string, bool)) string {
	if v, ok := lookup("XDG_STATE_HOME"); ok && v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "mcp-sanitize", "nats")
	}
	return ".sanitize-data"
}

const serveUsageHead = `usage: sanitize-worker serve [flags]

Sanitizes MCP messages on NATS: request/reply on mcp.sanitize.<kind> (queue
group mcp-sanitize) and the durable stream MCP_RAW (mcp.raw.<tenant>.<server>.<kind>,
results on mcp.clean.<tenant>.<server>.<kind>, evidence on mcp.evidence.<tenant>,
dead letters on mcp.dlq.<tenant>). Without --nats-url it starts an embedded
NATS server with JetStream on 127.0.0.1. Streams, consumer and claim bucket
are created or updated at start. Metrics, /healthz and /readyz on --http-addr.
Logs are JSON on standard error. SIGTERM or SIGINT drains it (exit 0).

Settings come from flags, environment variables and --config FILE (YAML or
JSON, keys are the flag names: "concurrency: 8", "backoff: 45s,1m,2m"); a
flag wins over its variable, which wins over the file. See docs/nats.md.

Exit codes: 0 stopped by a signal; 2 usage error; 1 any other failure.

flags:
`

func newServeFlagSet(f *serveFlags, lookup func(string) (string, bool), stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.configFile, "config", "", "configuration `FILE` (YAML or JSON; keys are flag names)")
	fs.StringVar(&f.natsURL, "nats-url", "", "NATS server `URLs` (comma-separated); empty starts an embedded server on 127.0.0.1")
	fs.StringVar(&f.conn.creds, "creds", "", "NATS user credentials `FILE`; needs --nats-url")
	fs.StringVar(&f.conn.nkey, "nkey", "", "NATS nkey seed `FILE`; needs --nats-url")
	fs.StringVar(&f.conn.tlsCA, "tls-ca", "", "CA certificates `FILE` (PEM) to verify the NATS server")
	fs.StringVar(&f.conn.tlsCert, "tls-cert", "", "client certificate `FILE` (PEM); with --tls-key")
	fs.StringVar(&f.conn.tlsKey, "tls-key", "", "client key `FILE` (PEM); with --tls-cert")
	fs.StringVar(&f.embeddedDir, "embedded-dir", defaultServeDataDir(lookup), "JetStream store `DIR` of the embedded server (created 0700)")
	fs.IntVar(&f.embeddedPort, "embedded-port", natsembed.DefaultPort, "client `PORT` of the embedded server on 127.0.0.1 (-1: a free port, logged on ready)")
	fs.BoolVar(&f.embeddedLog, "embedded-log", false, "also log the embedded server's notices")
	fs.IntVar(&f.embeddedMaxPayload, "embedded-max-payload", 1<<20, "max_payload `BYTES` of the embedded server (larger bodies travel by claim)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", 30*time.Second, "how long draining may take at shutdown (in-flight messages, then the connection)")
	fs.StringVar(&f.policy, "policy", "", "default policy `FILE` (JSON or YAML, docs/policy.md); empty: built-in defaults")
	fs.StringVar(&f.policies, "policies", "", "named policies `NAME=FILE,...` chosen by the Mcp-Policy header")
	registerPolicyServeFlags(fs, f)
	fs.BoolVar(&f.inline, "inline", true, "serve the inline path (mcp.sanitize.<kind>)")
	fs.BoolVar(&f.durable, "durable", true, "serve the durable path (consumer on MCP_RAW)")
	fs.BoolVar(&f.manage, "manage-streams", true, "create or update streams, consumer and claim bucket at start (off: they must exist)")
	fs.IntVar(&f.replicas, "replicas", 1, "replicas of every stream (1..5; 3 in a cluster)")
	fs.StringVar(&f.rawRetention, "raw-retention", "workqueue", "retention of MCP_RAW: workqueue, or limits to keep raw outputs for re-scanning (--raw-max-age)")
	fs.DurationVar(&f.rawMaxAge, "raw-max-age", worker.DefaultRawMaxAge, "max age of MCP_RAW messages")
	fs.DurationVar(&f.cleanMaxAge, "clean-max-age", worker.DefaultCleanMaxAge, "max age of MCP_CLEAN messages")
	fs.DurationVar(&f.evidenceMaxAge, "evidence-max-age", worker.DefaultEvidenceMaxAge, "max age of MCP_EVIDENCE records")
	fs.DurationVar(&f.dlqMaxAge, "dlq-max-age", worker.DefaultDLQMaxAge, "max age of MCP_DLQ entries")
	fs.DurationVar(&f.duplicates, "duplicates", worker.DefaultDuplicates, "deduplication window of the output streams (must exceed the longest back-off step plus --timeout)")
	fs.StringVar(&f.evidencePersist, "evidence-persist", "default", "persist mode of MCP_EVIDENCE: default (each record written before it is acknowledged), or async (written in batches; records acknowledged just before a server crash are lost; one replica only, a new stream only)")
	fs.IntVar(&f.maxDeliver, "max-deliver", worker.DefaultMaxDeliver, "attempts before a message goes to the DLQ (2..100)")
	fs.StringVar(&f.backoff, "backoff", joinDurations(worker.DefaultBackOff), "AckWait of each delivery, comma-separated (fewer values than --max-deliver; the first must exceed --timeout)")
	fs.IntVar(&f.maxAckPending, "max-ack-pending", worker.DefaultMaxAckPending, "messages delivered and not acknowledged, fleet-wide (workers x (fetch batch + concurrency), with room)")
	fs.IntVar(&f.concurrency, "concurrency", worker.DefaultConcurrencyPerCPU*runtime.GOMAXPROCS(0), "messages sanitized at once per path (1..4096)")
	fs.DurationVar(&f.timeout, "timeout", worker.DefaultMessageTimeout, "deadline of one message (code TIMEOUT)")
	fs.DurationVar(&f.publishTimeout, "publish-timeout", worker.DefaultPublishTimeout, "wait for a JetStream publish acknowledgement")
	fs.IntVar(&f.fetchBatch, "fetch-batch", worker.DefaultFetchBatch, "most messages one pull asks for (1..4096)")
	fs.IntVar(&f.fetchMaxBytes, "fetch-max-bytes", worker.DefaultFetchMaxBytes, "byte budget of fetched messages waiting in the worker: a pull asks for at most this divided by the largest message (at least 1)")
	fs.DurationVar(&f.fetchWait, "fetch-wait", worker.DefaultFetchWait, "how long one pull waits for messages")
	fs.DurationVar(&f.stallAfter, "stall-after", worker.DefaultStallAfter, "report stalled (/readyz 503, mcp_sanitize_stalled 1) when the consumer has input and nothing progressed for this long")
	fs.StringVar(&f.ackMode, "ack-mode", string(worker.AckPlain), "input acknowledgement: ack (plain) or double (waits for the server)")
	fs.BoolVar(&f.claims, "claims", true, "read claimed bodies and write large outputs through the Object Store bucket mcp-payloads")
	fs.DurationVar(&f.claimTTL, "claim-ttl", payload.DefaultClaimTTL, "how long the claim bucket keeps an object nobody released")
	fs.Int64Var(&f.maxDecodedBytes, "max-decoded-bytes", payload.DefaultMaxDecodedBytes, "cap on a decoded body (BOUND_EXCEEDED beyond)")
	fs.IntVar(&f.compressAbove, "compress-above", payload.DefaultCompressAbove, "outputs larger than this are compressed (-1: never)")
	fs.StringVar(&f.compress, "compress", payload.DefaultEncoding, "output compression: zstd, s2 or identity")
	fs.StringVar(&f.spoolDir, "spool-dir", "", "directory of output spool files (default: the system temporary directory)")
	fs.StringVar(&f.httpAddr, "http-addr", "127.0.0.1:9090", "`ADDR` of /metrics, /healthz and /readyz (empty: off; :9090 for all interfaces)")
	fs.BoolVar(&f.catalog, "catalog", true, "use the tool catalog (KV bucket mcp-tools): outputSchema of tool results, and serve mcp.tools.put.<server> and mcp.args.validate")
	fs.BoolVar(&f.requireKnownTool, "require-known-tool", false, "with --catalog: reject tool results of tools the catalog does not hold (SCHEMA_MISMATCH unknown-tool) instead of sanitizing them without a schema")
	fs.StringVar(&f.stateKeys, "state-keys", "", "key ring `FILE`: also serve mcp.state.seal/verify (as `sanitize-worker state`) on the same connection")
	fs.StringVar(&f.framing, "framing", string(pipeline.FramingAuto), "`FRAMING` of messages without an Mcp-Framing header: bare (the body is the result), jsonrpc (a JSON-RPC message carrying it) or auto (decided from the body; docs/pipeline.md, \"Framing\"); set it to what the producers send")
	fs.StringVar(&f.logLevel, "log-level", "info", "`LEVEL` of the JSON log: debug, info, warn, error")
	f.guards.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsageHead)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nenvironment (a flag on the command line wins):\n")
		for _, e := range serveEnv {
			fmt.Fprintf(fs.Output(), "  %-42s --%s\n", e.env, e.flag)
		}
	}
	return fs
}

func joinDurations(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ",")
}

// errServeUsage marks a usage error (exit 2); its text says what is wrong
// and never repeats a value that could hold a credential.
type errServeUsage struct{ msg string }

func (e errServeUsage) Error() string { return e.msg }

func usagef(format string, a ...any) error { return errServeUsage{fmt.Sprintf(format, a...)} }

// parseServeFlags reads flags, then environment, then the configuration
// file, each filling only what the previous ones left unset.
func parseServeFlags(args []string, lookup func(string) (string, bool), stderr io.Writer) (*serveFlags, error) {
	f := &serveFlags{}
	fs := newServeFlagSet(f, lookup, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q", fs.Arg(0))
	}
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	for _, e := range serveEnv {
		if f.given[e.flag] {
			continue
		}
		v, ok := lookup(e.env)
		if !ok || v == "" {
			continue
		}
		if err := fs.Set(e.flag, v); err != nil {
			return nil, usagef("%s: invalid value for --%s", e.env, e.flag)
		}
		f.given[e.flag] = true
	}
	if f.configFile != "" {
		if err := f.loadFile(fs); err != nil {
			return nil, err
		}
	}
	return f, f.validate()
}

// loadFile applies the configuration file: every key must be a flag name
// (other than config); values are scalars, lists (joined with commas) or,
// for policies, a map of name to file.
func (f *serveFlags) loadFile(fs *flag.FlagSet) error {
	st, err := os.Stat(f.configFile)
	if err != nil {
		return usagef("--config: cannot read %s", filepath.Base(f.configFile))
	}
	if st.Size() > maxConfigBytes {
		return usagef("--config: %s is larger than 1 MiB", filepath.Base(f.configFile))
	}
	b, err := os.ReadFile(f.configFile)
	if err != nil {
		return usagef("--config: cannot read %s", filepath.Base(f.configFile))
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return usagef("--config: %s is not YAML or JSON", filepath.Base(f.configFile))
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return usagef("--config: %s is not a mapping of settings", filepath.Base(f.configFile))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "config" || fs.Lookup(k) == nil {
			return usagef("--config: unknown setting %q", k)
		}
		if f.given[k] {
			continue
		}
		v, err := configValue(m[k])
		if err != nil {
			return usagef("--config: setting %q: %v", k, err)
		}
		if err := fs.Set(k, v); err != nil {
			return usagef("--config: invalid value for %q", k)
		}
		f.given[k] = true
	}
	return nil
}

// configValue turns a file value into a flag value.
func configValue(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return fmt.Sprint(x), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			switch e := e.(type) {
			case string:
				parts[i] = e
			case json.Number:
				parts[i] = e.String()
			default:
				return "", errors.New("list items must be strings or numbers")
			}
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			s, ok := x[k].(string)
			if !ok {
				return "", errors.New("map values must be strings")
			}
			parts[i] = k + "=" + s
		}
		return strings.Join(parts, ","), nil
	default:
		return "", errors.New("unsupported value")
	}
}

func (f *serveFlags) validate() error {
	embeddedOnly := []string{"embedded-dir", "embedded-port", "embedded-log", "embedded-max-payload"}
	if err := checkNATSTarget(f.natsURL, f.given, embeddedOnly, f.embeddedDir, f.embeddedPort); err != nil {
		return usagef("%v", err)
	}
	if f.natsURL == "" && (f.embeddedMaxPayload < 64<<10 || f.embeddedMaxPayload > 64<<20) {
		return usagef("--embedded-max-payload must be 64 KiB..64 MiB")
	}
	f.conn.drainTimeout = f.drainTimeout
	if err := f.conn.check(); err != nil {
		return usagef("%v", err)
	}
	if !f.inline && !f.durable {
		return usagef("--inline=false and --durable=false leave nothing to serve")
	}
	switch f.rawRetention {
	case "workqueue", "limits":
	default:
		return usagef("--raw-retention must be workqueue or limits")
	}
	switch f.evidencePersist {
	case "default":
	case "async":
		if f.replicas > 1 {
			return usagef("--evidence-persist async needs --replicas 1")
		}
	default:
		return usagef("--evidence-persist must be default or async")
	}
	switch f.ackMode {
	case string(worker.AckPlain), string(worker.AckDouble):
	default:
		return usagef("--ack-mode must be ack or double")
	}
	if _, ok := pipeline.ParseFraming(f.framing); !ok {
		return usagef("--framing must be bare, jsonrpc or auto")
	}
	switch f.compress {
	case "zstd", "s2", "identity":
	default:
		return usagef("--compress must be zstd, s2 or identity")
	}
	f.backoffSteps = nil
	for _, p := range strings.Split(f.backoff, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return usagef("--backoff: %q is not a duration", strings.TrimSpace(p))
		}
		f.backoffSteps = append(f.backoffSteps, d)
	}
	f.namedPolicies = map[string]string{}
	if f.policies != "" {
		for _, p := range strings.Split(f.policies, ",") {
			name, file, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || name == "" || file == "" {
				return usagef("--policies wants NAME=FILE,...")
			}
			if _, dup := f.namedPolicies[name]; dup {
				return usagef("--policies names %q twice", name)
			}
			f.namedPolicies[name] = file
		}
	}
	if err := f.checkPolicyFlags(); err != nil {
		return err
	}
	if err := f.level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usagef("--log-level must be debug, info, warn or error")
	}
	// Everything else is checked by the worker's options, whose errors
	// name the setting.
	if _, err := f.serviceOptions(); err != nil {
		return usagef("%v", err)
	}
	return nil
}
