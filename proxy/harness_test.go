package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

func TestMain(m *testing.M) {
	if os.Getenv(envPoisoned) != "" {
		runPoisoned()
	}
	if os.Getenv(envResources) != "" {
		runResourceServer() // guards_test.go
	}
	os.Exit(m.Run())
}

var (
	engineOnce sync.Once
	engine     *pipeline.Engine
	engineErr  error
)

// sharedEngine is one engine with the default policy for the package.
func sharedEngine(t testing.TB) *pipeline.Engine {
	t.Helper()
	engineOnce.Do(func() { engine, engineErr = pipeline.NewEngine(nil) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engine
}

// poisonedCmd runs this test binary as the poisoned server.
func poisonedCmd(t testing.TB, exitCode int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envPoisoned+"=1", fmt.Sprintf("%s=%d", envExitCode, exitCode))
	cmd.Stderr = os.Stderr
	return cmd
}

// traffic records the lines the client sent and received.
type traffic struct {
	mu         sync.Mutex
	sent, recv [][]byte
}

// lineTap copies each line that passes through it into a list.
type lineTap struct {
	mu   *sync.Mutex
	list *[][]byte
	part []byte
}

func (l *lineTap) add(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return
		}
		*l.list = append(*l.list, bytes.Clone(l.part[:i]))
		l.part = l.part[i+1:]
	}
}

type tapReader struct {
	r io.ReadCloser
	t *lineTap
}

func (r tapReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.t.add(b[:n])
	return n, err
}
func (r tapReader) Close() error { return r.r.Close() }

type tapWriter struct {
	w io.WriteCloser
	t *lineTap
}

func (w tapWriter) Write(b []byte) (int, error) {
	w.t.add(b)
	return w.w.Write(b)
}
func (w tapWriter) Close() error { return w.w.Close() }

// evidenceLog keeps every evidence record the proxy reports.
type evidenceLog struct {
	mu  sync.Mutex
	evs []pipeline.Evidence
	buf bytes.Buffer
}

func (e *evidenceLog) add(ev *pipeline.Evidence) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, *ev)
	e.buf.Write(ev.AppendJSON(nil))
	e.buf.WriteByte('\n')
}

// run is the end of a proxy's Run.
type run struct {
	code int
	err  error
}

// harness is a stdio proxy, run in this process in front of cmd, with a Go
// SDK client on its client side.
type harness struct {
	t       *testing.T
	tr      *traffic
	ev      *evidenceLog
	done    chan run
	session *mcp.ClientSession
	stdin   io.WriteCloser
}

func startStdio(t *testing.T, cmd *exec.Cmd, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *harness {
	t.Helper()
	return startStdioClient(t, cmd, mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, copts), sopts)
}

func startStdioClient(t *testing.T, cmd *exec.Cmd, client *mcp.Client, sopts *mcp.ClientSessionOptions) *harness {
	t.Helper()
	return startStdioWith(t, proxy.Engine{E: sharedEngine(t)}, cmd, client, sopts)
}

// startStdioWith is startStdioClient with the given Sanitizer.
func startStdioWith(t *testing.T, san proxy.Sanitizer, cmd *exec.Cmd, client *mcp.Client, sopts *mcp.ClientSessionOptions) *harness {
	t.Helper()
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	h := &harness{t: t, tr: &traffic{}, ev: &evidenceLog{}, done: make(chan run, 1)}
	p, err := proxy.New(san, proxy.Options{Evidence: h.ev.add, Server: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()   // client → proxy
	outR, outW := io.Pipe() // proxy → client
	h.stdin = inW
	st := &proxy.Stdio{Proxy: p, Cmd: cmd, CloseGrace: 2 * time.Second}
	go func() {
		code, err := st.Run(context.Background(), inR, outW)
		outW.Close()
		inR.Close()
		h.done <- run{code, err}
	}()
	tr := &mcp.IOTransport{
		Reader: tapReader{outR, &lineTap{mu: &h.tr.mu, list: &h.tr.recv}},
		Writer: tapWriter{inW, &lineTap{mu: &h.tr.mu, list: &h.tr.sent}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, tr, sopts)
	if err != nil {
		t.Fatalf("connecting through the proxy: %v", err)
	}
	h.session = s
	return h
}

// close closes the client session (its stdin) and waits for the proxy.
func (h *harness) close() run {
	h.t.Helper()
	h.session.Close()
	h.stdin.Close()
	select {
	case r := <-h.done:
		return r
	case <-time.After(30 * time.Second):
		h.t.Fatal("the proxy did not end after its stdin closed")
		return run{}
	}
}

// received returns the lines the client received.
func (h *harness) received() [][]byte {
	h.tr.mu.Lock()
	defer h.tr.mu.Unlock()
	return append([][]byte(nil), h.tr.recv...)
}

// revision is the protocol version the server answered initialize with.
func (h *harness) revision() string {
	return h.session.InitializeResult().ProtocolVersion
}

// checkTraffic checks every message the client received: it validates
// against the official schema of rev (skipped without ../shared), carries
// none of absent, and answers, when it is a response, an id the client
// sent.
func checkTraffic(t *testing.T, tr *traffic, rev string, absent []string) {
	t.Helper()
	sc := loadMCPSchemas(t, rev)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	methods := map[string]string{}
	for _, line := range tr.sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method != "" {
			methods[string(m.ID)] = m.Method
		}
	}
	if len(tr.recv) == 0 {
		t.Fatal("the client received nothing")
	}
	for i, line := range tr.recv {
		for _, a := range absent {
			if strings.Contains(string(line), a) {
				t.Errorf("message %d holds planted %q: %.300s", i, a, line)
			}
		}
		v, err := schema.Decode(line, 128)
		if err != nil {
			t.Errorf("message %d is not strict JSON: %v", i, err)
			continue
		}
		m, _ := v.(map[string]any)
		var raw struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(line, &raw)
		var defs []string
		var part any = v
		switch {
		case raw.Method != "" && raw.ID != nil:
			defs = []string{"JSONRPCRequest", requestDefs[raw.Method]}
		case raw.Method != "":
			defs = []string{"JSONRPCNotification", notificationDefs[raw.Method]}
		case m["error"] != nil:
			defs = []string{"JSONRPCErrorResponse"}
		default:
			defs = []string{"JSONRPCResultResponse"}
		}
		if raw.Method == "" {
			method, ok := methods[string(raw.ID)]
			if !ok {
				t.Errorf("message %d answers id %s, which the client never sent", i, raw.ID)
			}
			if m["error"] == nil {
				for _, d := range defs {
					sc.check(t, i, d, v)
				}
				defs = nil
				part = m["result"]
				if d := resultDefs[method]; d != "" {
					defs = []string{d}
				}
			}
		}
		for _, d := range defs {
			sc.check(t, i, d, part)
		}
	}
}

// The schema definitions of what a server sends, by method.
var (
	resultDefs = map[string]string{
		"initialize":               "InitializeResult",
		"server/discover":          "DiscoverResult",
		"tools/list":               "ListToolsResult",
		"tools/call":               "CallToolResult",
		"resources/list":           "ListResourcesResult",
		"resources/templates/list": "ListResourceTemplatesResult",
		"resources/read":           "ReadResourceResult",
		"prompts/list":             "ListPromptsResult",
		"prompts/get":              "GetPromptResult",
		"completion/complete":      "CompleteResult",
	}
	requestDefs = map[string]string{
		"sampling/createMessage": "CreateMessageRequest",
		"elicitation/create":     "ElicitRequest",
		"roots/list":             "ListRootsRequest",
		"ping":                   "PingRequest",
	}
	notificationDefs = map[string]string{
		"notifications/message":                "LoggingMessageNotification",
		"notifications/progress":               "ProgressNotification",
		"notifications/resources/updated":      "ResourceUpdatedNotification",
		"notifications/resources/list_changed": "ResourceListChangedNotification",
		"notifications/tools/list_changed":     "ToolListChangedNotification",
		"notifications/prompts/list_changed":   "PromptListChangedNotification",
	}
)

// mcpSchemas compiles definitions of the official schema of a revision.
type mcpSchemas struct {
	defs map[string]json.RawMessage
	raw  json.RawMessage
	memo map[string]*schema.Schema
}

func loadMCPSchemas(t *testing.T, rev string) *mcpSchemas {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "corpora", "mcp-schema", rev, "schema.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s is absent: the official MCP schema of revision %q is not available here", path, rev)
	}
	var doc struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Defs) == 0 {
		t.Fatalf("%s: no $defs (%v)", path, err)
	}
	sc := &mcpSchemas{raw: doc.Defs, memo: map[string]*schema.Schema{}}
	if err := json.Unmarshal(doc.Defs, &sc.defs); err != nil {
		t.Fatal(err)
	}
	return sc
}

// check validates v against the definition name, when the revision has it.
func (m *mcpSchemas) check(t *testing.T, i int, name string, v any) {
	t.Helper()
	if name == "" || m.defs[name] == nil {
		return
	}
	s := m.memo[name]
	if s == nil {
		doc := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/` + name + `","$defs":`)
		doc = append(append(doc, m.raw...), '}')
		var err error
		if s, err = schema.Compile(doc, schema.Limits{}); err != nil {
			t.Fatalf("compiling %s: %v", name, err)
		}
		m.memo[name] = s
	}
	if viol := s.Validate(v); viol != nil {
		b, _ := json.Marshal(v)
		t.Errorf("message %d is not a valid %s: %s at %q (%s): %.400s", i, name, viol.Keyword, viol.InstancePointer, viol.SchemaPointer, b)
	}
}

// jsonText is v as JSON text.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// textOf joins the text blocks of a tool result.
func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
