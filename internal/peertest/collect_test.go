package peertest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// exchange is one request to a real server, its raw response and the
// response sanitized as a platform would sanitize it.
type exchange struct {
	server string // "everything" or "filesystem"
	method string
	name   string // tool, prompt or resource URI
	label  string // a short name of the call for messages
	kind   pipeline.Kind
	info   pipeline.MessageInfo // what the response was sanitized with
	// invalid: called with invalid arguments; want are the actionable
	// parts of the server's error that should survive sanitizing.
	invalid bool
	want    []string
	raw     []byte
	san     []byte
	ev      *pipeline.Evidence
	// params are the request's params (for the guards, peers_guards_test.go).
	params map[string]any
}

func (x *exchange) String() string { return x.server + " " + x.method + " " + x.label }

// call is one request of the plan.
type call struct {
	method  string
	name    string // the tool, prompt or URI (for messages and MessageInfo.Tool)
	label   string // distinguishes calls of the same name
	params  map[string]any
	invalid bool
	want    []string
}

func toolCall(name, label string, args map[string]any) call {
	return call{method: "tools/call", name: name, label: label, params: map[string]any{"name": name, "arguments": args}}
}

func badToolCall(name, label string, args map[string]any, want ...string) call {
	c := toolCall(name, label, args)
	c.invalid, c.want = true, want
	return c
}

// collection is everything the peers answered, gathered once per process.
type collection struct {
	rev       string // negotiated protocol revision
	versions  map[string]string
	exchanges []*exchange
	planted   planted
	root      string // the filesystem server's directory
	tools     map[string][]string
	eng       *pipeline.Engine
	took      time.Duration
}

var (
	collectMu   sync.Mutex
	collected   *collection
	collectDirs []string // removed by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range collectDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// collect installs the servers, runs the plan against both and sanitizes
// every response; later calls in the same process reuse the result.
func collect(t *testing.T) *collection {
	t.Helper()
	collectMu.Lock()
	defer collectMu.Unlock()
	if collected != nil {
		return collected
	}
	start := time.Now()
	srv := peertest.Install(t)
	eng, err := pipeline.NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &collection{versions: srv.Versions, planted: newPlanted(), tools: map[string][]string{}, eng: eng}
	// The collection outlives the test that gathers it (later tests read
	// the filesystem server's files back), so its directory is the
	// process's, removed by TestMain, not the first test's t.TempDir.
	dir, err := os.MkdirTemp("", "peertest-fs-")
	if err != nil {
		t.Fatal(err)
	}
	collectDirs = append(collectDirs, dir)
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.root = root
	fixtures(t, root, c.planted)
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + root,
		"GITHUB_TOKEN=" + c.planted.secrets["env-github-pat"],
		"AWS_ACCESS_KEY_ID=" + c.planted.secrets["env-aws"],
		"GZIP_ALLOWED_DOMAINS=example.invalid", // nothing is fetched over the network
	}
	for _, s := range []struct {
		name, script string
		args         []string
		plan         func(*testing.T, *collection, *peertest.Peer) []call
	}{
		{"everything", srv.Everything, []string{"stdio"}, everythingPlan},
		{"filesystem", srv.Filesystem, []string{root}, filesystemPlan},
	} {
		p := peertest.Start(t, srv.Node, s.script, env, s.args...)
		var init struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if err := json.Unmarshal(p.Initialize, &init); err != nil {
			t.Fatal(err)
		}
		if c.rev != "" && c.rev != init.Result.ProtocolVersion {
			t.Fatalf("the servers negotiated %s and %s", c.rev, init.Result.ProtocolVersion)
		}
		c.rev = init.Result.ProtocolVersion
		tools := listTools(t, p)
		for _, ti := range tools {
			c.tools[s.name] = append(c.tools[s.name], ti.Name)
		}
		schemas := map[string]*schema.Schema{}
		for _, ti := range tools {
			if len(ti.OutputSchema) > 0 {
				sch, err := schema.Compile(ti.OutputSchema, schema.Limits{})
				if err != nil {
					t.Fatalf("%s %s: outputSchema: %v", s.name, ti.Name, err)
				}
				schemas[ti.Name] = sch
			}
		}
		plan := s.plan(t, c, p)
		requireCovered(t, s.name, tools, plan)
		for _, cl := range plan {
			line, err := p.Call(cl.method, cl.params)
			if err != nil {
				t.Fatalf("%s %s %s: %v (stderr: %.500s)", s.name, cl.method, cl.name, err, p.Stderr())
			}
			x := &exchange{server: s.name, method: cl.method, name: cl.name, label: cl.name + cl.label, invalid: cl.invalid, want: cl.want, raw: line, params: cl.params}
			info := pipeline.MessageInfo{Tool: cl.name, Server: s.name}
			switch cl.method {
			case "tools/call":
				info.Kind = pipeline.KindToolResult
				info.OutputSchema = schemas[cl.name]
			case "resources/read":
				info.Kind = pipeline.KindResourceResult
				info.Tool = ""
			case "prompts/get":
				info.Kind = pipeline.KindPromptResult
				info.Tool = ""
			case "completion/complete":
				info.Kind = pipeline.KindCompletionResult
				info.Tool = ""
			default:
				t.Fatalf("no kind for %s", cl.method)
			}
			x.kind, x.info = info.Kind, info
			x.san, x.ev = sanitize(t, eng, line, info)
			c.exchanges = append(c.exchanges, x)
		}
	}
	c.took = time.Since(start)
	t.Logf("%d exchanges with %v, protocol %s, in %v", len(c.exchanges), c.versions, c.rev, c.took.Round(time.Millisecond))
	collected = c
	return c
}

// memOut is a pipeline.Output in memory.
type memOut struct{ bytes.Buffer }

func (m *memOut) Discard() error { m.Reset(); return nil }

func sanitize(t *testing.T, eng *pipeline.Engine, in []byte, info pipeline.MessageInfo) ([]byte, *pipeline.Evidence) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out memOut
	ev, err := eng.Sanitize(ctx, bytes.NewReader(in), &out, info)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), ev
}

type toolInfo struct {
	Name         string          `json:"name"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func listTools(t *testing.T, p *peertest.Peer) []toolInfo {
	t.Helper()
	line, err := p.Call("tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Tools []toolInfo `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	sort.Slice(r.Result.Tools, func(i, j int) bool { return r.Result.Tools[i].Name < r.Result.Tools[j].Name })
	return r.Result.Tools
}

// requireCovered fails when the server lists a tool the plan does not
// call with valid arguments, so that a new version's tool is noticed.
func requireCovered(t *testing.T, server string, tools []toolInfo, plan []call) {
	t.Helper()
	valid := map[string]bool{}
	for _, c := range plan {
		if c.method == "tools/call" && !c.invalid {
			valid[c.name] = true
		}
	}
	for _, ti := range tools {
		if !valid[ti.Name] {
			t.Errorf("%s lists the tool %s, which the plan does not call: add a call with valid arguments", server, ti.Name)
		}
	}
}

func (c *collection) path(name string) string { return filepath.Join(c.root, filepath.FromSlash(name)) }

func filesystemPlan(t *testing.T, c *collection, p *peertest.Peer) []call {
	f := c.path
	plan := []call{
		toolCall("read_file", "", map[string]any{"path": f("notes.txt")}),
		toolCall("read_text_file", " notes", map[string]any{"path": f("notes.txt")}),
		toolCall("read_text_file", " secrets.env", map[string]any{"path": f("secrets.env")}),
		toolCall("read_text_file", " inject.md", map[string]any{"path": f("inject.md")}),
		toolCall("read_text_file", " unicode.txt", map[string]any{"path": f("unicode.txt")}),
		toolCall("read_text_file", " x²-résumé.txt", map[string]any{"path": f("x²-résumé.txt")}),
		toolCall("read_text_file", " 日本語.txt", map[string]any{"path": f("日本語.txt")}),
		toolCall("read_text_file", " head", map[string]any{"path": f("notes.txt"), "head": 2}),
		toolCall("read_text_file", " tail", map[string]any{"path": f("notes.txt"), "tail": 1}),
		toolCall("read_media_file", " image.png", map[string]any{"path": f("image.png")}),
		toolCall("read_media_file", " big.png", map[string]any{"path": f("big.png")}),
		toolCall("read_media_file", " doc.pdf", map[string]any{"path": f("doc.pdf")}),
		toolCall("read_media_file", " sound.wav", map[string]any{"path": f("sound.wav")}),
		toolCall("read_multiple_files", "", map[string]any{"paths": []string{f("notes.txt"), f("secrets.env"), f("unicode.txt")}}),
		toolCall("write_file", "", map[string]any{"path": f("written.txt"), "content": "written by the test\n"}),
		toolCall("edit_file", " dry run", map[string]any{"path": f("edit.txt"), "dryRun": true,
			"edits": []map[string]any{{"oldText": "beta", "newText": "beta " + c.planted.secrets["argument-pat"]}}}),
		toolCall("edit_file", "", map[string]any{"path": f("edit.txt"),
			"edits": []map[string]any{{"oldText": "gamma", "newText": "gamma，delta。"}}}),
		toolCall("create_directory", "", map[string]any{"path": f("made/here")}),
		toolCall("list_directory", "", map[string]any{"path": c.root}),
		toolCall("list_directory_with_sizes", "", map[string]any{"path": c.root, "sortBy": "size"}),
		toolCall("directory_tree", "", map[string]any{"path": c.root}),
		toolCall("move_file", "", map[string]any{"source": f("written.txt"), "destination": f("made/written.txt")}),
		toolCall("search_files", "", map[string]any{"path": c.root, "pattern": "**/*.txt"}),
		toolCall("get_file_info", "", map[string]any{"path": f("notes.txt")}),
		toolCall("list_allowed_directories", "", map[string]any{}),

		badToolCall("read_text_file", " head and tail", map[string]any{"path": f("notes.txt"), "head": 1, "tail": 1}, "Cannot specify both head and tail parameters"),
		badToolCall("read_text_file", " outside", map[string]any{"path": "/etc/hostname"}, "Access denied"),
		badToolCall("read_text_file", " missing", map[string]any{"path": f("missing.txt")}, "no such file or directory"),
		badToolCall("read_text_file", " no path", map[string]any{}, "expected string, received undefined at path"),
		badToolCall("edit_file", " no match", map[string]any{"path": f("edit.txt"),
			"edits": []map[string]any{{"oldText": "no such text", "newText": "x"}}}, "Could not find exact match"),
		badToolCall("no-such-tool", "", map[string]any{}, "Tool no-such-tool not found"),
	}
	return plan
}

func everythingPlan(t *testing.T, c *collection, p *peertest.Peer) []call {
	gzData := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("compressed notes\n"))
	plan := []call{
		toolCall("echo", "", map[string]any{"message": c.planted.injection() + "token " + c.planted.secrets["argument-pat"]}),
		toolCall("echo", " plain", map[string]any{"message": "Hello, 世界 — café ½"}),
		toolCall("get-annotated-message", " error", map[string]any{"messageType": "error"}),
		toolCall("get-annotated-message", " success image", map[string]any{"messageType": "success", "includeImage": true}),
		toolCall("get-annotated-message", " debug", map[string]any{"messageType": "debug"}),
		toolCall("get-env", "", map[string]any{}),
		toolCall("get-resource-links", "", map[string]any{"count": 3}),
		toolCall("get-resource-reference", " text", map[string]any{"resourceType": "Text", "resourceId": 1}),
		toolCall("get-resource-reference", " blob", map[string]any{"resourceType": "Blob", "resourceId": 2}),
		toolCall("get-structured-content", "", map[string]any{"location": "Chicago"}),
		toolCall("get-sum", "", map[string]any{"a": 1.5, "b": 2000}),
		toolCall("get-tiny-image", "", map[string]any{}),
		toolCall("gzip-file-as-resource", " resource", map[string]any{"name": "notes.txt.gz", "data": gzData, "outputType": "resource"}),
		toolCall("gzip-file-as-resource", " link", map[string]any{"name": "link.txt.gz", "data": gzData, "outputType": "resourceLink"}),
		toolCall("toggle-simulated-logging", " on", map[string]any{}),
		toolCall("toggle-simulated-logging", " off", map[string]any{}),
		toolCall("toggle-subscriber-updates", " on", map[string]any{}),
		toolCall("toggle-subscriber-updates", " off", map[string]any{}),
		toolCall("trigger-long-running-operation", "", map[string]any{"duration": 1, "steps": 2}),
		// Valid arguments, but this client declares no tasks capability:
		// the server's refusal is a real tool error that must keep its
		// meaning.
		{method: "tools/call", name: "simulate-research-query", params: map[string]any{"name": "simulate-research-query",
			"arguments": map[string]any{"topic": "sanitizing MCP output"}}, want: []string{"requires task augmentation"}},

		badToolCall("get-sum", " string", map[string]any{"a": "x", "b": 1}, "expected number, received string"),
		badToolCall("echo", " no message", map[string]any{}, "expected string, received undefined at message"),
		badToolCall("get-structured-content", " bad city", map[string]any{"location": "Paris"}, "expected one of", "at location"),
		badToolCall("no-such-tool", "", map[string]any{}, "Tool no-such-tool not found"),
	}
	// Every resource the server lists, the two templates, the session
	// resource the gzip tool makes.
	var uris []string
	line, err := p.Call("resources/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var rl struct {
		Result struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &rl); err != nil || len(rl.Result.Resources) == 0 {
		t.Fatalf("resources/list: %v, %d resources", err, len(rl.Result.Resources))
	}
	for _, r := range rl.Result.Resources {
		uris = append(uris, r.URI)
	}
	uris = append(uris, "demo://resource/dynamic/text/1", "demo://resource/dynamic/blob/1")
	for _, u := range uris {
		plan = append(plan, call{method: "resources/read", name: u, params: map[string]any{"uri": u}})
	}
	plan = append(plan,
		call{method: "resources/read", name: "demo://resource/session/notes.txt.gz", params: map[string]any{"uri": "demo://resource/session/notes.txt.gz"}},
		call{method: "resources/read", name: "demo://no/such/resource", params: map[string]any{"uri": "demo://no/such/resource"}, invalid: true, want: []string{"not found"}},
	)
	// Every prompt the server lists, with arguments.
	args := map[string]map[string]any{
		"simple-prompt":      {},
		"args-prompt":        {"city": "Zürich", "state": "ZH"},
		"completable-prompt": {"department": "Engineering", "name": "Alice"},
		"resource-prompt":    {"resourceType": "Text", "resourceId": "1"},
	}
	line, err = p.Call("prompts/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pl struct {
		Result struct {
			Prompts []struct {
				Name string `json:"name"`
			} `json:"prompts"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &pl); err != nil || len(pl.Result.Prompts) == 0 {
		t.Fatalf("prompts/list: %v, %d prompts", err, len(pl.Result.Prompts))
	}
	for _, pr := range pl.Result.Prompts {
		a, ok := args[pr.Name]
		if !ok {
			t.Errorf("everything lists the prompt %s, which the plan does not get: add its arguments", pr.Name)
			continue
		}
		plan = append(plan, call{method: "prompts/get", name: pr.Name, params: map[string]any{"name": pr.Name, "arguments": a}})
	}
	plan = append(plan,
		call{method: "prompts/get", name: "resource-prompt", label: " blob", params: map[string]any{"name": "resource-prompt", "arguments": map[string]any{"resourceType": "Blob", "resourceId": "2"}}},
		call{method: "prompts/get", name: "no-such-prompt", params: map[string]any{"name": "no-such-prompt"}, invalid: true, want: []string{"no-such-prompt", "not found"}},
		call{method: "prompts/get", name: "args-prompt", label: " no city", params: map[string]any{"name": "args-prompt", "arguments": map[string]any{}}, invalid: true, want: []string{"city"}},
		call{method: "completion/complete", name: "completable-prompt", params: map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": "completable-prompt"}, "argument": map[string]any{"name": "department", "value": "E"}}},
	)
	return plan
}
