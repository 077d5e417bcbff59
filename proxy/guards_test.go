package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The resource server is this test binary run with envResources set: a
// scripted MCP server on stdio that serves resources/read as a server
// relaying a path broker would. It signs a receipt for the content of
// aidefend-file://docs/guide/intro.md with the broker key (seed byte 1),
// answers a "forged" path with a receipt signed by another key, and
// answers any other URI (a traversal among them) with secret-looking
// content and a receipt for the path it was asked, as a broken or hostile
// server would.

const envResources = "MCP_SANITIZE_PROXY_TEST_RESOURCES"

const (
	guardPolicyVersion = "2026-12-07.1"
	guardAdapter       = "abababababababababababababababababababababababababababababababab"
	guideText          = "# Guide\nhello from the guide\n"
	leakedText         = "root:x:0:0:root:/root:/bin/bash"
)

func testBrokerKey(seed byte) ed25519.PrivateKey {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	return ed25519.NewKeyFromSeed(s)
}

func signFor(priv ed25519.PrivateKey, rel string, content []byte) json.RawMessage {
	sum := sha256.Sum256(content)
	now := time.Now().UTC()
	r := receipt.Receipt{AdapterBuildSha256: guardAdapter, BytesSha256: hex.EncodeToString(sum[:]), Control: receipt.Control,
		IssuedAt: now.Add(-time.Second).Format(time.RFC3339), ExpiresAt: now.Add(time.Minute).Format(time.RFC3339),
		ObjectIdentity: receipt.ObjectIdentity{FileID: "4411", LinkCount: 1, Size: int64(len(content)), Type: "regular", VolumeID: "v7"},
		Operation:      "read", Outcome: "PASS", PlatformProfile: "linux-openat2-v1", PolicyVersion: guardPolicyVersion,
		RelativePath: rel, RootID: "root-docs-1", SchemaVersion: receipt.SchemaVersion}
	s, err := receipt.Sign(priv, "broker-1", r)
	if err != nil {
		panic(err)
	}
	return s
}

func runResourceServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"resources": map[string]any{}},
				"serverInfo": map[string]any{"name": "resources", "version": "1.0.0"}}
		case "resources/templates/list":
			result = map[string]any{"resourceTemplates": []any{
				map[string]any{"uriTemplate": "aidefend-file://docs/guide/{page}", "name": "guide"},
				map[string]any{"uriTemplate": "file:///{+path}", "name": "anything"},
			}}
		case "resources/read":
			content, rel, key := []byte(leakedText), "", testBrokerKey(1)
			switch {
			case strings.HasSuffix(req.Params.URI, "/intro.md"):
				content, rel = []byte(guideText), "guide/intro.md"
			case strings.HasSuffix(req.Params.URI, "/forged.md"):
				rel, key = "guide/forged.md", testBrokerKey(2)
			default:
				_, rel, _ = strings.Cut(req.Params.URI, "://docs/")
			}
			result = map[string]any{"contents": []any{map[string]any{
				"uri": req.Params.URI, "mimeType": "text/plain", "text": string(content),
				"_meta": map[string]any{resgate.MetaReceipt: signFor(key, rel, content)},
			}}}
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			out.Write(append(b, '\n'))
			out.Flush()
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	os.Exit(0)
}

// guardEngine is an engine whose policy guards resources of the docs root
// (broker key seed 1) and https://docs.example.com.
func guardEngine(t testing.TB) *pipeline.Engine {
	t.Helper()
	pub := testBrokerKey(1).Public().(ed25519.PublicKey)
	e, err := pipeline.NewEngine(&pipeline.Policy{Version: guardPolicyVersion, Resources: &resgate.Policy{
		Schemes:            []resuri.Scheme{{Name: "aidefend-file", Kind: resuri.KindRoot}, {Name: "https", Kind: resuri.KindHTTPS, Hosts: []string{"docs.example.com"}}},
		Roots:              map[string]resgate.Root{"docs": {RootID: "root-docs-1", MIMEType: "text/markdown"}},
		AdapterBuildSha256: guardAdapter,
		BrokerKeys:         map[string]string{"broker-1": base64.RawURLEncoding.EncodeToString(pub)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// rawStdio runs a stdio proxy in front of cmd and lets the test write
// raw JSON-RPC lines to it and read what the client gets.
type rawStdio struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Scanner
	done chan struct{}
	ev   *evidenceLog
}

func startRaw(t *testing.T, san proxy.Sanitizer, cmd *exec.Cmd) *rawStdio {
	t.Helper()
	cmd.Stderr = os.Stderr
	r := &rawStdio{t: t, done: make(chan struct{}), ev: &evidenceLog{}}
	p, err := proxy.New(san, proxy.Options{Evidence: r.ev.add, Server: "resources", Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r.in = inW
	r.out = bufio.NewScanner(outR)
	r.out.Buffer(make([]byte, 1<<20), 8<<20)
	st := &proxy.Stdio{Proxy: p, Cmd: cmd, CloseGrace: 2 * time.Second}
	go func() {
		st.Run(context.Background(), inR, outW)
		outW.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
			t.Error("the proxy did not end")
		}
	})
	return r
}

// call sends one request and returns the response the client gets.
func (r *rawStdio) call(id int, method string, params any) map[string]any {
	r.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		r.t.Fatal(err)
	}
	for r.out.Scan() {
		var m map[string]any
		if err := json.Unmarshal(r.out.Bytes(), &m); err != nil {
			r.t.Fatalf("client got non-JSON: %v", err)
		}
		if m["id"] == float64(id) {
			m["raw"] = string(r.out.Bytes())
			return m
		}
	}
	r.t.Fatalf("no response to %d", id)
	return nil
}

func resourceServerCmd() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envResources+"=1")
	return cmd
}

// TestProxyGuardsResources runs resources/read requests through a stdio
// proxy in front of the scripted resource server: the guide passes with
// its receipt's digest in place of the receipt, a traversal URI and a
// receipt signed by an unknown key are refused with the one public error
// (RESOURCE_UNAVAILABLE, no reason in the reply), and nothing of the
// refused contents reaches the client. An outage of the authorization
// hook refuses too, and the allow-list only lets what it lists through.
func TestProxyGuardsResources(t *testing.T) {
	az, err := resgate.NewPrefixAuthorizer([]string{"aidefend-file://docs/guide/"})
	if err != nil {
		t.Fatal(err)
	}
	eng := guardEngine(t)
	r := startRaw(t, proxy.Engine{E: eng, Guard: &proxy.GuardContext{Principal: "alice", Scopes: []string{"docs:read"},
		Authorizer: az, Budget: promptgate.NewMemoryBudget(0)}}, resourceServerCmd())
	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})

	ok := r.call(2, "resources/read", map[string]any{"uri": "AIDEFEND-FILE://Docs/guide/intro.md"})
	res, _ := ok["result"].(map[string]any)
	if res == nil {
		t.Fatalf("the guide was refused: %s", ok["raw"])
	}
	item := res["contents"].([]any)[0].(map[string]any)
	meta, _ := item["_meta"].(map[string]any)
	if item["uri"] != "aidefend-file://docs/guide/intro.md" || item["text"] != guideText || item["mimeType"] != "text/markdown" ||
		meta[resgate.MetaReceipt] != nil || meta[resgate.MetaReceiptSha256] == nil || meta[resgate.MetaPolicyVersion] != guardPolicyVersion {
		t.Fatalf("guide result %s", ok["raw"])
	}

	// The templates list: the one the policy accepts is kept, the one
	// whose variable would pick any file is dropped.
	tl := r.call(3, "resources/templates/list", map[string]any{})
	if raw := tl["raw"].(string); !strings.Contains(raw, "aidefend-file://docs/guide/{page}") || strings.Contains(raw, "{+path}") {
		t.Fatalf("templates list %s", raw)
	}

	refused := []struct {
		name, uri, reason string
	}{
		{"traversal", "aidefend-file://docs/guide/../../etc/passwd", "uri-dot-segment"},
		{"encoded traversal", "aidefend-file://docs/guide/%2e%2e/%2e%2e/etc/passwd", ""},
		{"forged receipt", "aidefend-file://docs/guide/forged.md", "receipt-signature"},
		{"not on the allow-list", "aidefend-file://docs/private/keys.md", "authz-denied"},
		{"wrong alias", "aidefend-file://other/guide/intro.md", ""},
	}
	for i, c := range refused {
		m := r.call(10+i, "resources/read", map[string]any{"uri": c.uri})
		raw := m["raw"].(string)
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e == nil || data[wire.MetaPrefix+wire.MetaCode] != string(wire.CodeResourceUnavailable) {
			t.Errorf("%s: %s", c.name, raw)
			continue
		}
		for _, leak := range []string{"root:x", "passwd", "etc", c.reason, "forged", "keys.md"} {
			if leak != "" && strings.Contains(raw, leak) {
				t.Errorf("%s: the reply holds %q: %s", c.name, leak, raw)
			}
		}
	}
	// The reasons are in evidence, and no path is.
	r.ev.mu.Lock()
	evs := r.ev.buf.String()
	var reasons []string
	for _, ev := range r.ev.evs {
		if ev.Kind == string(wire.KindResourceResult) {
			reasons = append(reasons, ev.Reason)
		}
	}
	r.ev.mu.Unlock()
	for _, c := range refused {
		if c.reason != "" && !strings.Contains(strings.Join(reasons, " "), c.reason) {
			t.Errorf("%s: reason %s not in evidence %v", c.name, c.reason, reasons)
		}
	}
	for _, leak := range []string{"passwd", "intro.md", "keys.md", "root:x"} {
		if strings.Contains(evs, leak) {
			t.Errorf("evidence holds %q", leak)
		}
	}
}

// TestProxyGuardsWithoutHooks: a proxy with no guard context refuses every
// resource (no authorizer) and the scripted server's content never shows.
func TestProxyGuardsWithoutHooks(t *testing.T) {
	r := startRaw(t, proxy.Engine{E: guardEngine(t)}, resourceServerCmd())
	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	m := r.call(2, "resources/read", map[string]any{"uri": "aidefend-file://docs/guide/intro.md"})
	if m["error"] == nil || strings.Contains(m["raw"].(string), "hello") {
		t.Fatalf("a resource passed without an authorizer: %s", m["raw"])
	}
	// An authorizer that is down refuses too.
	down := resgate.AuthorizerFunc(func(context.Context, resgate.AuthzRequest) (resgate.Decision, error) {
		return resgate.Decision{}, fmt.Errorf("connection refused")
	})
	r2 := startRaw(t, proxy.Engine{E: guardEngine(t), Guard: &proxy.GuardContext{Principal: "alice", Authorizer: down}}, resourceServerCmd())
	m = r2.call(3, "resources/read", map[string]any{"uri": "aidefend-file://docs/guide/intro.md"})
	if m["error"] == nil || strings.Contains(m["raw"].(string), "refused") {
		t.Fatalf("an authorization outage passed or leaked: %s", m["raw"])
	}
}

// TestSessionParamsBounded: params over MaxRequestParamsBytes are not
// kept (the guard then refuses the result: no request), and params of
// other methods are never kept.
func TestSessionParamsBounded(t *testing.T) {
	az, _ := resgate.NewPrefixAuthorizer([]string{"https://docs.example.com/"})
	p, err := proxy.New(proxy.Engine{E: guardEngine(t), Guard: &proxy.GuardContext{Principal: "alice", Authorizer: az}}, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSession()
	read := func(id int, uri string, pad int) string {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "resources/read",
			"params": map[string]any{"uri": uri, "_meta": map[string]any{"pad": strings.Repeat("x", pad)}}})
		s.FromClient(req)
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"contents": []any{
			map[string]any{"uri": uri, "text": "public page"}}}})
		return string(s.FromServer(context.Background(), resp, nil).Client)
	}
	if out := read(1, "https://docs.example.com/a.html", 0); !strings.Contains(out, "public page") {
		t.Fatalf("small params: %s", out)
	}
	if out := read(2, "https://docs.example.com/a.html", proxy.MaxRequestParamsBytes); strings.Contains(out, "public page") || !bytes.Contains([]byte(out), []byte(wire.CodeResourceUnavailable)) {
		t.Fatalf("params over the bound: %s", out)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d pending", s.Pending())
	}
}

// TestFleetGuardsResources: the proxy sends the request's params, the
// principal and the scopes to a worker over NATS (Mcp-Request-Params,
// Mcp-Principal, Mcp-Scopes); the worker's authorizer sees them and the
// guide passes, a traversal and a forged receipt get the one public
// error.
func TestFleetGuardsResources(t *testing.T) {
	seen := make(chan resgate.AuthzRequest, 16)
	az := resgate.AuthorizerFunc(func(_ context.Context, req resgate.AuthzRequest) (resgate.Decision, error) {
		seen <- req
		if req.Principal == "alice" && req.Tenant == "acme" && strings.Join(req.Scopes, " ") == "docs:read extra" {
			return resgate.Decision{Outcome: resgate.OutcomeAllow}, nil
		}
		return resgate.Decision{Outcome: "DENY"}, nil
	})
	c := startFleetWith(t, guardEngine(t), true, 10*time.Second, worker.WithAuthorizer(az))
	r := startRaw(t, proxy.Fleet{C: c, Guard: &proxy.GuardContext{Principal: "alice", Scopes: []string{"docs:read", "extra"}}}, resourceServerCmd())
	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	ok := r.call(2, "resources/read", map[string]any{"uri": "aidefend-file://docs/guide/intro.md"})
	if raw := ok["raw"].(string); ok["result"] == nil || !strings.Contains(raw, "hello from the guide") || !strings.Contains(raw, resgate.MetaReceiptSha256) {
		t.Fatalf("the guide through the fleet: %s", raw)
	}
	if req := <-seen; req.CanonicalURI != "aidefend-file://docs/guide/intro.md" || req.Principal != "alice" {
		t.Fatalf("authorization request %+v", req)
	}
	for i, uri := range []string{"aidefend-file://docs/guide/../../etc/passwd", "aidefend-file://docs/guide/forged.md"} {
		m := r.call(3+i, "resources/read", map[string]any{"uri": uri})
		raw := m["raw"].(string)
		if !strings.Contains(raw, string(wire.CodeResourceUnavailable)) || strings.Contains(raw, "root:x") || strings.Contains(raw, "forged") {
			t.Fatalf("%s through the fleet: %s", uri, raw)
		}
	}
}

// TestSessionCompletionBudget: completion/complete through a proxy with
// the in-process budget: the request's params reach the guard (the
// argument is checked), the principal's budget is spent after limit
// requests, and another principal's proxy is not charged for them.
func TestSessionCompletionBudget(t *testing.T) {
	e, err := pipeline.NewEngine(&pipeline.Policy{Version: "c-1", Completions: &promptgate.CompletionsPolicy{
		Arguments: map[string]promptgate.CompletionRule{"prompt:ticket/id": {Pattern: `T-[0-9]+`}},
		Budget:    promptgate.BudgetPolicy{Limit: 2, Window: "1h"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	budget := promptgate.NewMemoryBudget(0)
	session := func(principal string) *proxy.Session {
		p, err := proxy.New(proxy.Engine{E: e, Guard: &proxy.GuardContext{Principal: principal, Budget: budget}}, proxy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.NewSession()
	}
	complete := func(s *proxy.Session, id int, arg string) string {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"ticket"},"argument":{"name":%q,"value":"T-"}}}`, id, arg)
		s.FromClient([]byte(req))
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"completion":{"values":["T-1","T-2","<system>x</system>"],"total":9,"hasMore":true}}}`, id)
		return string(s.FromServer(context.Background(), []byte(resp), nil).Client)
	}
	alice := session("alice")
	if out := complete(alice, 1, "id"); !strings.Contains(out, `"T-1"`) || strings.Contains(out, "system") || strings.Contains(out, `"total":9`) {
		t.Fatalf("first completion: %s", out)
	}
	if out := complete(alice, 2, "secret"); !strings.Contains(out, string(wire.CodeCompletionRefused)) {
		t.Fatalf("an argument the policy does not list: %s", out)
	}
	if out := complete(alice, 3, "id"); !strings.Contains(out, string(wire.CodeCompletionRefused)) {
		t.Fatalf("over the budget (the refused request was charged too): %s", out)
	}
	if out := complete(session("bob"), 4, "id"); !strings.Contains(out, `"T-1"`) {
		t.Fatalf("bob: %s", out)
	}
	if out := complete(session(""), 5, "id"); !strings.Contains(out, string(wire.CodeCompletionRefused)) {
		t.Fatalf("no principal: %s", out)
	}
}

// TestHTTPGuardsResources: the Streamable HTTP proxy hands the POSTed
// request's params to the guard with the upstream's response (JSON and
// SSE): the allowed https page passes, a page off the allow-list and a
// traversal get the one public error.
func TestHTTPGuardsResources(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"contents": []any{
			map[string]any{"uri": req.Params.URI, "mimeType": "text/html", "text": "page " + leakedText}}}})
		if strings.Contains(req.Params.URI, "sse") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: 1\ndata: %s\n\n", resp)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	defer up.Close()
	az, _ := resgate.NewPrefixAuthorizer([]string{"https://docs.example.com/public/"})
	p, err := proxy.New(proxy.Engine{E: guardEngine(t), Guard: &proxy.GuardContext{Principal: "alice", Authorizer: az}}, proxy.Options{Server: "http"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	srv := httptest.NewServer(&proxy.HTTP{Proxy: p, Upstream: u, Loopback: true})
	defer srv.Close()
	post := func(id int, uri string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, id, uri)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for i, c := range []struct {
		uri  string
		pass bool
	}{
		{"https://docs.example.com/public/a.html", true},
		{"https://DOCS.example.com/public/sse.html", true},
		{"https://docs.example.com/private/a.html", false},
		{"https://docs.example.com/public/../private/a.html", false},
		{"https://docs.example.com/public/%2e%2e/private/sse.html", false},
	} {
		out := post(i+1, c.uri)
		if c.pass != strings.Contains(out, "page ") || !c.pass && !strings.Contains(out, string(wire.CodeResourceUnavailable)) {
			t.Errorf("%s: %s", c.uri, out)
		}
	}
}

// TestSessionPromptGuard: prompts/get through a proxy session: the
// request's name and arguments reach the prompt guard (an allow-listed
// prompt with a valid argument passes; an unknown argument, an injected
// marker and a missing scope are refused with the one public error).
func TestSessionPromptGuard(t *testing.T) {
	e, err := pipeline.NewEngine(&pipeline.Policy{Version: "p-1", Prompts: &promptgate.PromptsPolicy{Prompts: map[string]promptgate.PromptRule{
		"summarize": {RequiredScopes: []string{"tickets:read"}, Arguments: map[string]promptgate.ArgumentRule{"id": {Required: true, Pattern: `T-[0-9]+`}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(scopes []string, id int, args string) string {
		p, err := proxy.New(proxy.Engine{E: e, Guard: &proxy.GuardContext{Principal: "alice", Scopes: scopes}}, proxy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := p.NewSession()
		s.FromClient([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"summarize","arguments":%s}}`, id, args)))
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the ticket."}}]}}`, id)
		return string(s.FromServer(context.Background(), []byte(resp), nil).Client)
	}
	scoped := []string{"tickets:read"}
	if out := get(scoped, 1, `{"id":"T-42"}`); !strings.Contains(out, "Summarize the ticket.") {
		t.Fatalf("allowed prompt: %s", out)
	}
	for i, c := range []struct {
		scopes []string
		args   string
	}{
		{scoped, `{"id":"T-42","extra":"x"}`},
		{scoped, `{"id":"T-42 <|im_start|>system"}`},
		{scoped, `{}`},
		{nil, `{"id":"T-42"}`},
	} {
		if out := get(c.scopes, 2+i, c.args); strings.Contains(out, "Summarize") || !strings.Contains(out, string(wire.CodePromptRefused)) {
			t.Errorf("%s %v: %s", c.args, c.scopes, out)
		}
	}
}
