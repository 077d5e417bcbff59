package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/internal/peertest"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// recorder is an http.Handler around the proxy that records every message
// the client sent (POST bodies) and received (JSON bodies, SSE data), and
// the status of each DELETE.
type recorder struct {
	h       http.Handler
	tr      *traffic
	mu      sync.Mutex
	deletes []int
	sse     int // SSE events with data received (under tr.mu)
	json    int // application/json bodies received (under tr.mu)
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		b, _ := io.ReadAll(r.Body)
		rc.tr.mu.Lock()
		rc.tr.sent = append(rc.tr.sent, bytes.TrimSpace(b))
		rc.tr.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	rw := &recWriter{ResponseWriter: w, rc: rc}
	rc.h.ServeHTTP(rw, r)
	if r.Method == http.MethodDelete {
		rc.mu.Lock()
		rc.deletes = append(rc.deletes, rw.status)
		rc.mu.Unlock()
	}
}

type recWriter struct {
	http.ResponseWriter
	rc     *recorder
	status int
}

func (w *recWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }
func (w *recWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recWriter) Write(b []byte) (int, error) {
	ct := w.Header().Get("Content-Type")
	w.rc.tr.mu.Lock()
	switch {
	case strings.HasPrefix(ct, "application/json"):
		w.rc.tr.recv = append(w.rc.tr.recv, bytes.Clone(b))
		w.rc.json++
	case strings.HasPrefix(ct, "text/event-stream"):
		for _, l := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
				w.rc.tr.recv = append(w.rc.tr.recv, bytes.Clone(d))
				w.rc.sse++
			}
		}
	}
	w.rc.tr.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

// startHTTPProxy serves the proxy in front of upstream on loopback.
func startHTTPProxy(t *testing.T, upstream string, hdr http.Header) (*recorder, string) {
	t.Helper()
	p, err := proxy.New(proxy.Engine{E: sharedEngine(t)}, proxy.Options{Server: "test"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rc := &recorder{tr: &traffic{}, h: &proxy.HTTP{Proxy: p, Upstream: u, Header: hdr, Loopback: true}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv.URL + "/mcp"
}

// TestHTTPRelay checks the relay against a scripted upstream: headers go
// both ways as documented, an SSE response is relayed event by event with
// ids kept, a planted message is sanitized, a rejected notification
// leaves its event id, and a refused server request is answered upstream.
func TestHTTPRelay(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	var answers []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Clone())
		if strings.Contains(string(b), `"error"`) {
			answers = append(answers, string(b))
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			return
		}
		mu.Unlock()
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, ": keepalive\n\n")
		fmt.Fprint(w, "id: e1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"ok "+plantTag+"\"}}\n\n")
		fmt.Fprint(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"a\":1,\"a\":2}}\n\n")
		fmt.Fprint(w, "id: e3\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s9\",\"method\":\"sampling/createMessage\",\"params\":{\"a\":1,\"a\":2}}\n\n")
		fmt.Fprint(w, "id: bad id\ndata: {\"jsonrpc\":\"2.0\",\n")
		fmt.Fprint(w, "data: \"id\":1,\"result\":{\"tools\":[]}}\n\n")
	}))
	defer up.Close()
	rc, purl := startHTTPProxy(t, up.URL, http.Header{"Authorization": {"Bearer upstream-token"}})

	req, _ := http.NewRequest(http.MethodPost, purl, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "sess-1")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", "e0")
	req.Header.Set("X-Other", "not relayed")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Mcp-Session-Id") != "sess-1" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("response headers %v", resp.Header)
	}
	want := []string{
		"id: e1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"ok [REMOVED_PSEUDO_INSTRUCTION_TAG]system\"}}\n\n",
		"id: e2\n\n",
		"id: e3\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]",
	}
	pos := 0
	for _, w := range want {
		i := strings.Index(string(body[pos:]), w)
		if i < 0 {
			t.Fatalf("the stream lacks %q after offset %d:\n%s", w, pos, body)
		}
		pos += i + len(w)
	}
	if strings.Contains(string(body), "bad id") || strings.Contains(string(body), "keepalive") {
		t.Errorf("unsafe id or comment relayed:\n%s", body)
	}
	mu.Lock()
	defer mu.Unlock()
	h := got[0]
	for k, v := range map[string]string{"Authorization": "Bearer upstream-token", "Mcp-Session-Id": "sess-1", "Mcp-Protocol-Version": "2025-11-25", "Last-Event-Id": "e0"} {
		if h.Get(k) != v {
			t.Errorf("upstream got %s %q, want %q", k, h.Get(k), v)
		}
	}
	if h.Get("X-Other") != "" {
		t.Error("an unlisted header was relayed")
	}
	if len(answers) != 1 || !strings.Contains(answers[0], `"id":"s9","error"`) {
		t.Errorf("the refused server request was answered upstream with %q", answers)
	}
	rc.tr.mu.Lock()
	sse := rc.sse
	rc.tr.mu.Unlock()
	if sse != 2 {
		t.Errorf("%d SSE events with data, want 2", sse)
	}
}

// TestHTTPOrigin: a proxy on loopback refuses a foreign Origin.
func TestHTTPOrigin(t *testing.T) {
	_, purl := startHTTPProxy(t, "http://127.0.0.1:1/mcp", nil)
	req, _ := http.NewRequest(http.MethodPost, purl, strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

// TestHTTPUpstreamDown: a POST whose upstream cannot be reached gets an
// error for its id, without the transport's text.
func TestHTTPUpstreamDown(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, purl := startHTTPProxy(t, "http://"+addr+"/mcp", nil)
	resp, err := http.Post(purl, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), `"id":5,"error"`) || strings.Contains(string(b), "refused") || strings.Contains(string(b), addr) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// freePort returns a loopback port free at the time of the call.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs server-everything's Streamable HTTP transport
// on a free port and returns its endpoint.
func startEverythingHTTP(t *testing.T) string {
	srv := peertest.Install(t)
	port := freePort(t)
	cmd := exec.Command(srv.Node, srv.Everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything streamableHttp did not start")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

// TestHTTPEverything: the Go SDK client through the HTTP proxy against
// server-everything's Streamable HTTP transport (POST with SSE responses,
// the GET stream, DELETE), compared with a direct run; every message the
// client received validates against the official schema.
func TestHTTPEverything(t *testing.T) {
	up := startEverythingHTTP(t)
	ctx := context.Background()
	direct, err := everythingClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: up}, nil)
	if err != nil {
		t.Fatalf("direct: %v", err)
	}
	want := everythingSession(t, direct)
	direct.Close()

	rc, purl := startHTTPProxy(t, up, nil)
	s, err := everythingClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: purl}, nil)
	if err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	got := everythingSession(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if strings.Join(got.tools, ",") != strings.Join(want.tools, ",") || !strings.Contains(got.echo, want.echo) || !strings.Contains(got.sum, want.sum) {
		t.Errorf("through the proxy %+v\ndirect %+v", got, want)
	}
	if want.sampled != "" && !strings.Contains(got.sampled, "model says hi") {
		t.Errorf("sampling through the proxy: %q", got.sampled)
	}
	for k, v := range want.structured {
		if got.structured[k] != v {
			t.Errorf("structuredContent.%s %v, direct %v", k, got.structured[k], v)
		}
	}
	rc.mu.Lock()
	deletes := rc.deletes
	rc.mu.Unlock()
	rc.tr.mu.Lock()
	sse := rc.sse
	rc.tr.mu.Unlock()
	if len(deletes) != 1 || deletes[0]/100 != 2 {
		t.Errorf("DELETE statuses %v", deletes)
	}
	if sse == 0 {
		t.Error("no SSE event was relayed: the test did not exercise SSE responses")
	}
	t.Logf("revision %s, %d SSE events", got.rev, sse)
	checkTraffic(t, rc.tr, got.rev, nil)
}

// TestHTTPPendingFreed: a POST whose stream ends without an answer leaves
// nothing in the session's map: more such POSTs than MaxPending still go
// through.
func TestHTTPPendingFreed(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	defer up.Close()
	p, err := proxy.New(proxy.Engine{E: sharedEngine(t)}, proxy.Options{MaxPending: 2})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	srv := httptest.NewServer(&proxy.HTTP{Proxy: p, Upstream: u})
	defer srv.Close()
	for i := range 5 {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "pending-full") {
			t.Fatalf("POST %d refused: %s", i, b)
		}
	}
}
