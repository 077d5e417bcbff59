package proxy_test

import (
	"bufio"
	"context"
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
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// envInterleave makes this test binary a stdio server that interleaves a
// large result with small results and notifications (runInterleave).
const envInterleave = "MCP_SANITIZE_PROXY_TEST_INTERLEAVE"

func init() {
	if os.Getenv(envInterleave) != "" {
		runInterleave()
	}
}

// Markers of the messages whose pass the test holds back.
const (
	markSlowResult = "slow-result-marker"
	markSlowNote   = "slow-note-marker"
)

// The interleaving server's script: once requests 1 to 4 are in, the large
// result of 1 and then small messages; on request 5, a log notification,
// the result of 5 and a progress notification. Each line is one message;
// the test names them by label.
var (
	interleaveFirst = []string{"r1", "p1", "r2", "log1", "r3", "r4"}
	interleaveThen  = []string{"log2", "r5", "p2"}
)

func interleaveMessage(label string) string {
	switch label {
	case "r1":
		var b strings.Builder
		for b.Len() < 256<<10 {
			b.WriteString(`2026-12-07T15:00:00Z INFO served /api/items in 12ms status=200\n`)
		}
		return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + markSlowResult + ` ` + b.String() + `"}]}}`
	case "r2", "r3", "r4", "r5":
		return `{"jsonrpc":"2.0","id":` + label[1:] + `,"result":{"content":[{"type":"text","text":"small ` + label + `"}]}}`
	case "p1", "p2":
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + label[1:] + `}}`
	case "log1":
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log1"}}`
	case "log2":
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log2 ` + markSlowNote + `"}}`
	}
	panic(label)
}

func runInterleave() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	write := func(labels []string) {
		for _, l := range labels {
			out.WriteString(interleaveMessage(l))
			out.WriteByte('\n')
		}
		out.Flush()
	}
	for in.Scan() {
		var m struct {
			ID int `json:"id"`
		}
		json.Unmarshal(in.Bytes(), &m)
		switch m.ID {
		case 4:
			write(interleaveFirst)
		case 5:
			write(interleaveThen)
		}
	}
	os.Exit(0)
}

// labelOf names a message the client received by the script's labels.
func labelOf(line string) string {
	var m struct {
		ID     int `json:"id"`
		Params struct {
			Progress int    `json:"progress"`
			Data     string `json:"data"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(line), &m)
	switch {
	case m.ID != 0:
		return fmt.Sprintf("r%d", m.ID)
	case m.Params.Progress != 0:
		return fmt.Sprintf("p%d", m.Params.Progress)
	case m.Params.Data != "":
		return strings.Fields(m.Params.Data)[0]
	}
	return "?"
}

// heldSanitizer passes messages through an inner Sanitizer, holding the
// pass of a message that holds a marker until the marker's gate is closed,
// and reports each finished pass on passed.
type heldSanitizer struct {
	inner  proxy.Sanitizer
	gates  map[string]chan struct{}
	passed chan string
}

func (h *heldSanitizer) Sanitize(ctx context.Context, kind wire.Kind, msg []byte, md proxy.Meta) (*proxy.Result, error) {
	for mark, g := range h.gates {
		if strings.Contains(string(msg), mark) {
			select {
			case <-g:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	res, err := h.inner.Sanitize(ctx, kind, msg, md)
	h.passed <- labelOf(string(msg))
	return res, err
}

// TestStdioSlowResultInterleaved: a server interleaves a large result whose
// pass is slow (held by the test until the rest is delivered) with small
// results and notifications. The small messages reach the client while
// the large one is still in its pass; the large one comes after, whole and
// sanitized. Then a log notification whose pass is held, followed by a
// result and a notification whose passes are done: neither is delivered
// before the notification written before them.
func TestStdioSlowResultInterleaved(t *testing.T) {
	// The text bound is raised so that the large result is delivered
	// whole rather than cut at the default 12,000 characters.
	pol := pipeline.DefaultPolicy()
	pol.Limits = map[string]int64{"text-chars": 1 << 20}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	held := &heldSanitizer{
		inner:  proxy.Engine{E: eng},
		gates:  map[string]chan struct{}{markSlowResult: make(chan struct{}), markSlowNote: make(chan struct{})},
		passed: make(chan string, 64),
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envInterleave+"=1")
	r := startRaw(t, held, cmd)
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		for r.out.Scan() {
			lines <- r.out.Text()
		}
	}()
	// next is the next message the client gets; the deadline only ends a
	// test that would otherwise hang (the held pass is released by the
	// test, never by time).
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the proxy's output ended")
			}
			return l
		case <-time.After(60 * time.Second):
			t.Fatal("no message: the held pass blocks the others")
		}
		return ""
	}
	send := func(id int) {
		fmt.Fprintf(r.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"logs","arguments":{}}}`+"\n", id)
	}
	for id := 1; id <= 4; id++ {
		send(id)
	}
	var got []string
	for range interleaveFirst[1:] {
		got = append(got, labelOf(next()))
	}
	checkOrder(t, interleaveFirst, got)
	close(held.gates[markSlowResult])
	big := next()
	if labelOf(big) != "r1" || len(big) < 256<<10 || !strings.Contains(big, markSlowResult) {
		t.Fatalf("after the held pass: %.200s (%d bytes)", big, len(big))
	}

	send(5)
	// The result and the notification after the held log notification
	// have finished their passes; only the order holds them back.
	waitPassed(t, held.passed, "r5", "p2")
	close(held.gates[markSlowNote])
	got = nil
	for range interleaveThen {
		got = append(got, labelOf(next()))
	}
	if got[0] != "log2" {
		t.Errorf("delivered %v: the result or notification overtook the notification written before them", got)
	}
	checkOrder(t, interleaveThen, got)
}

// waitPassed waits until the passes of the labels have finished.
func waitPassed(t *testing.T, passed <-chan string, labels ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	for len(want) > 0 {
		select {
		case l := <-passed:
			delete(want, l)
		case <-time.After(60 * time.Second):
			t.Fatalf("passes not finished: %v", want)
		}
	}
}

// checkOrder checks delivered messages against the order the server wrote
// them in: a notification (label not starting with "r") comes after every
// notification written before it, a result after every notification
// written before it.
func checkOrder(t *testing.T, written, got []string) {
	t.Helper()
	at := map[string]int{}
	for i, l := range written {
		at[l] = i
	}
	pos := map[string]int{}
	for i, l := range got {
		if _, ok := at[l]; !ok {
			t.Fatalf("delivered %v: %q was not written then", got, l)
		}
		pos[l] = i
	}
	for _, a := range got {
		for _, b := range got {
			if at[b] < at[a] && !strings.HasPrefix(b, "r") && pos[b] > pos[a] {
				t.Errorf("delivered %v: %s came before %s, a notification written before it", got, a, b)
			}
		}
	}
}

// TestHTTPSlowResultConcurrent: over Streamable HTTP, a POST whose result
// is in a slow pass (held by the test) holds back neither another POST of
// the same session nor its answer; once released it is answered whole.
func TestHTTPSlowResultConcurrent(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID int `json:"id"`
		}
		json.Unmarshal(body, &m)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s-1")
		if m.ID == 1 {
			w.Write([]byte(interleaveMessage("r1")))
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"small %d"}]}}`, m.ID, m.ID)
	}))
	t.Cleanup(up.Close)
	held := &heldSanitizer{
		inner:  proxy.Engine{E: sharedEngine(t)},
		gates:  map[string]chan struct{}{markSlowResult: make(chan struct{})},
		passed: make(chan string, 64),
	}
	p, err := proxy.New(held, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	srv := httptest.NewServer(&proxy.HTTP{Proxy: p, Upstream: u, Loopback: true})
	t.Cleanup(srv.Close)
	post := func(id int) (string, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"logs","arguments":{}}}`, id)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", "s-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	slow := make(chan string, 1)
	go func() {
		b, err := post(1)
		if err != nil {
			b = err.Error()
		}
		slow <- b
	}()
	for id := 2; id <= 4; id++ {
		b, err := post(id)
		if err != nil || labelOf(b) != fmt.Sprintf("r%d", id) {
			t.Fatalf("POST %d while the slow one is held: %q %v", id, b, err)
		}
	}
	select {
	case b := <-slow:
		t.Fatalf("the held result was answered before its release: %.200s", b)
	default:
	}
	close(held.gates[markSlowResult])
	select {
	case b := <-slow:
		if labelOf(b) != "r1" || !strings.Contains(b, markSlowResult) {
			t.Fatalf("the slow POST: %.200s", b)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the slow POST was not answered after its release")
	}
}
