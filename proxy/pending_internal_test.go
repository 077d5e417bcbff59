package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// fakeClock is the proxy's clock in these tests: it moves only when the
// test says, or by step at each reading.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func request(id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
}

func result(id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"answer ` + strings.Trim(id, `"`) + `"}]}}`)
}

// rpcError reads the JSON-RPC error of a response: its id, message and
// the project's code and reason.
func rpcError(t *testing.T, b []byte) (id, message string, code wire.Code, reason wire.Reason) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Message string            `json:"message"`
			Data    map[string]string `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return string(m.ID), m.Error.Message, wire.Code(m.Error.Data[wire.MetaPrefix+wire.MetaCode]), wire.Reason(m.Error.Data[wire.MetaPrefix+wire.MetaReason])
}

func evidenceReasons(evs []pipeline.Evidence) []string {
	var r []string
	for _, ev := range evs {
		r = append(r, string(ev.Code)+"/"+ev.Reason)
	}
	return r
}

// TestPendingFullNamesLimit: with the map full of requests younger than
// the pending timeout, a new request is answered with an error that names
// the limit, and is not forwarded.
func TestPendingFullNamesLimit(t *testing.T) {
	p, evs := newTestProxy(t, nil, Options{MaxPending: 2, PendingTimeout: time.Minute})
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	p.now = clock.now
	s := p.NewSession()
	s.FromClient(request("1"))
	clock.add(59 * time.Second)
	s.FromClient(request("2"))
	r := s.FromClient(request("3"))
	if r.Server != nil || r.Expired != nil {
		t.Fatalf("the request beyond the bound went on: %+v", r)
	}
	id, msg, code, reason := rpcError(t, r.Client)
	if id != "3" || code != wire.CodeBoundExceeded || reason != wire.ReasonPendingFull ||
		!strings.Contains(msg, "at most 2 unanswered requests") || !strings.Contains(msg, "max-pending") || !strings.Contains(msg, "1m0s") {
		t.Fatalf("refusal: %s", r.Client)
	}
	if got := evidenceReasons(*evs); len(got) != 1 || got[0] != "BOUND_EXCEEDED/pending-full" {
		t.Fatalf("evidence %v", got)
	}
	if s.Pending() != 2 {
		t.Fatalf("%d pending", s.Pending())
	}
}

// TestPendingEviction: each step is a client or server message and what
// it must give; the clock moves between steps. Requests that waited past
// the pending timeout make room for new ones (the client answered for
// them, the server told they are cancelled), responses to cancelled or
// evicted requests are dropped with evidence, others are delivered.
func TestPendingEviction(t *testing.T) {
	type step struct {
		after   time.Duration // the clock moves this much first
		client  []byte
		server  []byte
		forward bool   // the client message goes to the server
		expired string // the id answered as expired ("" none)
		deliver string // a substring of what the client gets ("" nothing)
		reason  wire.Reason
	}
	for _, tc := range []struct {
		name  string
		http  bool
		steps []step
	}{
		{name: "the oldest expired request makes room", steps: []step{
			{client: request("1"), forward: true},
			{after: time.Second, client: request(`"b"`), forward: true},
			{after: time.Minute, client: request("3"), forward: true, expired: "1"},
			// "b" waited 60 s: not past the timeout, which is "more than".
			{client: request("4"), reason: wire.ReasonPendingFull, deliver: "at most 2"},
			{after: time.Second, client: request("4"), forward: true, expired: `"b"`},
			{server: result("1"), reason: wire.ReasonRequestGone},
			{server: result(`"b"`), reason: wire.ReasonRequestGone},
			{server: result("3"), deliver: "answer 3"},
			{server: result("4"), deliver: "answer 4"},
		}},
		{name: "a cancelled request's late response is dropped", steps: []step{
			{client: request("1"), forward: true},
			{client: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`), forward: true},
			{server: result("1"), reason: wire.ReasonRequestGone},
			{server: result("9"), deliver: "answer 9"}, // never asked: sanitized as generic, as before
		}},
		{name: "an id used again after a cancel is awaited again", steps: []step{
			{client: request("1"), forward: true},
			{client: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"x"}}`), forward: true},
			{client: request("1"), forward: true},
			{server: result("1"), deliver: "answer 1"},
		}},
		{name: "over HTTP the POST answers an evicted request", http: true, steps: []step{
			{client: request("1"), forward: true},
			{client: request("2"), forward: true},
			{after: 2 * time.Minute, client: request("3"), forward: true, expired: "1"},
			{server: result("2"), deliver: "answer 2"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, evs := newTestProxy(t, nil, Options{MaxPending: 2, PendingTimeout: time.Minute})
			clock := &fakeClock{t: time.Unix(1e9, 0)}
			p.now = clock.now
			s := p.NewSession()
			s.postScoped = tc.http
			for i, st := range tc.steps {
				clock.add(st.after)
				n := len(*evs)
				var r Routed
				if st.client != nil {
					r = s.FromClient(st.client)
					if (r.Server != nil) != st.forward {
						t.Fatalf("step %d: forwarded %v, want %v", i, r.Server != nil, st.forward)
					}
				} else {
					r = s.FromServer(context.Background(), st.server, nil)
					if r.Server != nil {
						t.Fatalf("step %d: to the server %s", i, r.Server)
					}
				}
				switch {
				case st.expired == "" && r.Expired != nil:
					t.Fatalf("step %d: expired %+v", i, r.Expired)
				case st.expired != "" && tc.http && r.Expired != nil:
					t.Fatalf("step %d: an HTTP session answered the evicted request: %+v", i, r.Expired)
				case st.expired != "" && !tc.http:
					if r.Expired == nil {
						t.Fatalf("step %d: no request expired", i)
					}
					id, msg, code, reason := rpcError(t, r.Expired.Client)
					if id != st.expired || code != wire.CodeTimeout || reason != wire.ReasonPendingExpired || !strings.Contains(msg, "1m0s") {
						t.Fatalf("step %d: expired answer %s", i, r.Expired.Client)
					}
					want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + st.expired + `,"reason":"request expired in the proxy"}}`
					if string(r.Expired.Server) != want {
						t.Fatalf("step %d: cancellation %s", i, r.Expired.Server)
					}
				}
				if st.deliver == "" && r.Client != nil && st.client == nil {
					t.Fatalf("step %d: delivered %s", i, r.Client)
				}
				if st.deliver != "" && !strings.Contains(string(r.Client), st.deliver) {
					t.Fatalf("step %d: delivered %s, want %q in it", i, r.Client, st.deliver)
				}
				var got []wire.Reason
				for _, ev := range (*evs)[n:] {
					if ev.Outcome == wire.OutcomeRejected {
						got = append(got, wire.Reason(ev.Reason))
					}
				}
				if st.expired != "" {
					if len(got) == 0 || got[0] != wire.ReasonPendingExpired {
						t.Fatalf("step %d: evidence %v, want the eviction's", i, got)
					}
					got = got[1:]
				}
				if st.reason != "" && (len(got) != 1 || got[0] != st.reason) || st.reason == "" && len(got) != 0 {
					t.Fatalf("step %d: refusals %v, want %q", i, got, st.reason)
				}
			}
			if s.Pending() > 2 {
				t.Fatalf("%d pending", s.Pending())
			}
		})
	}
}

// TestGoneBounded: the ids of gone requests are remembered MaxPending at
// most, oldest forgotten first; long ids by a digest.
func TestGoneBounded(t *testing.T) {
	p, _ := newTestProxy(t, nil, Options{MaxPending: 3})
	s := p.NewSession()
	long := `"` + strings.Repeat("x", 10<<10) + `"`
	ids := []string{long, "1", "2", "3", "4"}
	for _, id := range ids {
		s.FromClient(request(id))
		s.FromClient([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`))
	}
	if len(s.gone) != 3 || len(s.goneOrder) != 3 {
		t.Fatalf("%d gone kept (%d in order)", len(s.gone), len(s.goneOrder))
	}
	for k := range s.gone {
		if len(k) > maxGoneKey+1 {
			t.Fatalf("a gone key of %d bytes", len(k))
		}
	}
	// The oldest are forgotten: their late responses are sanitized as
	// generic; the newer ones are dropped.
	if r := s.FromServer(context.Background(), result("1"), nil); r.Client == nil {
		t.Error("a response to a forgotten gone id was dropped")
	}
	if r := s.FromServer(context.Background(), result("4"), nil); r.Client != nil {
		t.Errorf("a response to a cancelled request was delivered: %s", r.Client)
	}
}

// TestStdioPendingEviction runs the eviction through a stdio proxy in
// front of a server (this test binary as the interleaving server of
// order_test.go) that answers requests 1 to 4 only once request 4 is in:
// with two requests in flight at most, 3 and 4 evict 1 and 2 once they
// are past the timeout; the client gets an error for each, the server a
// cancellation, and the late answers to 1 and 2 never reach the client.
func TestStdioPendingEviction(t *testing.T) {
	var mu sync.Mutex
	var evs []pipeline.Evidence
	p0, _ := newTestProxy(t, nil, Options{})
	p, err := New(p0.san, Options{MaxPending: 2, PendingTimeout: time.Minute,
		Evidence: func(ev *pipeline.Evidence) { mu.Lock(); evs = append(evs, *ev); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	// Each request is read 61 s after the one before: when 3 comes, 1 has
	// waited past the timeout, and when 4 comes, 2 has.
	clock := &fakeClock{t: time.Unix(1e9, 0), step: 61 * time.Second}
	p.now = clock.now
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCP_SANITIZE_PROXY_TEST_INTERLEAVE=1")
	cmd.Stderr = os.Stderr
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code, _ := (&Stdio{Proxy: p, Cmd: cmd, CloseGrace: 2 * time.Second}).Run(context.Background(), inR, outW)
		outW.Close()
		done <- code
	}()
	send := func(id int) {
		fmt.Fprintf(inW, "%s\n", request(fmt.Sprint(id)))
	}
	// The client reads while it writes: the proxy's answers for the
	// evicted requests come on the client's pipe at once.
	lines := make(chan []byte, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	for id := 1; id <= 4; id++ {
		send(id)
	}
	got := map[string]string{}
	for len(got) < 6 {
		var line []byte
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the proxy's output ended; the client got %v", got)
			}
			line = l
		case <-time.After(60 * time.Second):
			t.Fatalf("the client got %v and then nothing", got)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Data map[string]string `json:"data"`
			} `json:"error"`
			Params struct {
				Progress int    `json:"progress"`
				Data     string `json:"data"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Error != nil:
			got["error "+string(m.ID)] = m.Error.Data[wire.MetaPrefix+wire.MetaReason]
		case m.ID != nil:
			got["result "+string(m.ID)] = ""
		default:
			got[m.Method] = ""
		}
	}
	inW.Close()
	for range lines {
	}
	<-done
	want := map[string]string{"error 1": "pending-expired", "error 2": "pending-expired", "result 3": "", "result 4": "",
		"notifications/progress": "", "notifications/message": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the client got %v, want %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	gone := 0
	for _, ev := range evs {
		if ev.Reason == string(wire.ReasonRequestGone) {
			gone++
		}
	}
	if gone != 2 {
		t.Fatalf("%d late answers dropped with evidence, want 2: %v", gone, evidenceReasons(evs))
	}
}
