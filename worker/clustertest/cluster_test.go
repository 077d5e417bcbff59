package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testcluster"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// EnvLong runs the longer version of the cluster test; EnvLogDir keeps the
// workers' logs in a directory of one's choice.
const (
	EnvLong   = "MCP_SANITIZE_CLUSTER_LONG"
	EnvLogDir = "MCP_SANITIZE_CLUSTER_LOGDIR"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testcluster.Cleanup()
	os.Exit(code)
}

// Planted secrets: the catalog redacts both; neither may reach any stream
// the worker writes.
const (
	plantedGitHub = "ghp_R8nQ2vXk7LmP4sT9wYz1aBcD3eFgH5iJ6kLm"
	plantedAWS    = "AKIA2E3MOIWRYYKVZR6Q"
)

func inputMsg(i int) *nats.Msg {
	m := nats.NewMsg(wire.Subject(wire.RawPrefix, "acme", "files", "tool-result"))
	m.Header.Set(wire.HeaderRequestID, "req-"+strconv.Itoa(i))
	m.Header.Set(wire.HeaderTool, "read_file")
	m.Header.Set(wire.HeaderMsgID, "in-"+strconv.Itoa(i))
	m.Data = fmt.Appendf(nil, `{"content":[{"type":"text","text":"file %d\nGITHUB_TOKEN=%s\nAWS_ACCESS_KEY_ID=%s\n%s"}]}`,
		i, plantedGitHub, plantedAWS, strings.Repeat("lorem ipsum dolor sit amet ", 20))
	return m
}

// workerProc is a sanitize-worker serve process.
// clusterAckWait is the workers' AckWait (their first back-off step).
const clusterAckWait = 30 * time.Second

// lameDuckGrace is the servers' lame-duck grace period in
// TestClusterDurable.
const lameDuckGrace = 2 * time.Second

type workerProc struct {
	t        *testing.T
	bin      string
	name     string
	urls     string
	httpAddr string
	logPath  string
	extra    []string // flags after the common ones (a later flag wins)
	cmd      *exec.Cmd
	done     chan struct{}
}

func (w *workerProc) start() {
	w.t.Helper()
	logf, err := os.OpenFile(w.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	cmd := exec.Command(w.bin, "serve",
		"--nats-url", w.urls,
		"--replicas", "3",
		"--http-addr", w.httpAddr,
		"--backoff", clusterAckWait.String()+","+clusterAckWait.String()+","+clusterAckWait.String()+","+clusterAckWait.String(),
		"--max-deliver", "5",
		"--timeout", "10s",
		"--publish-timeout", "5s",
		"--drain-timeout", "10s",
		"--concurrency", "16",
		"--log-level", "info",
		"--inline=false",
	)
	cmd.Args = append(cmd.Args, w.extra...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "MCP_SANITIZE_CONFIG=")
	testcluster.DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		w.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	w.cmd, w.done = cmd, done
	deadline := time.Now().Add(90 * time.Second)
	for {
		if code, _, err := w.get("/readyz"); err == nil && code == 200 {
			return
		}
		select {
		case <-done:
			w.t.Fatalf("%s exited at start:\n%s", w.name, w.logTail())
		default:
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s not ready:\n%s", w.name, w.logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *workerProc) kill() {
	if w.cmd == nil {
		return
	}
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.done
	w.cmd = nil
}

func (w *workerProc) stop() {
	if w.cmd == nil {
		return
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		w.kill()
	}
	w.cmd = nil
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

func (w *workerProc) get(path string) (int, []byte, error) {
	resp, err := httpClient.Get("http://" + w.httpAddr + path)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, b, err
}

// metric returns the sum of the samples of a metric whose line starts with
// prefix (name and optionally labels).
func (w *workerProc) metric(prefix string) float64 {
	_, b, err := w.get("/metrics")
	if err != nil {
		return -1
	}
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, prefix) {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				v, _ := strconv.ParseFloat(line[i+1:], 64)
				sum += v
			}
		}
	}
	return sum
}

// server returns the node the worker is connected to, from the last
// natsUrl its log names (the ready and reconnected lines).
func (w *workerProc) server(cl *testcluster.Cluster) *testcluster.Node {
	w.t.Helper()
	b, _ := os.ReadFile(w.logPath)
	const key = `"natsUrl":"`
	i := bytes.LastIndex(b, []byte(key))
	if i < 0 {
		w.t.Fatalf("%s: no server in its log", w.name)
	}
	rest := b[i+len(key):]
	url := string(rest[:bytes.IndexByte(rest, '"')])
	for _, n := range cl.Nodes {
		if n.URL() == url {
			return n
		}
	}
	w.t.Fatalf("%s: connected to %s, not a node", w.name, url)
	return nil
}

func (w *workerProc) logTail() string {
	b, _ := os.ReadFile(w.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// producer publishes inputs and retries each until it is stored; the
// producer's Nats-Msg-Id makes a retried input that was stored a
// duplicate MCP_RAW drops.
type producer struct {
	busy atomic.Int32 // batches being published
	js   jetstream.JetStream
	mk   func(i int) *nats.Msg // the input i (default inputMsg)
	wg   sync.WaitGroup
	mu   sync.Mutex
	er   error
}

func (p *producer) publish(from, to int) {
	mk := p.mk
	if mk == nil {
		mk = inputMsg
	}
	p.busy.Add(1)
	p.wg.Go(func() {
		defer p.busy.Add(-1)
		deadline := time.Now().Add(5 * time.Minute)
		pending := []int{}
		for i := from; i < to; i++ {
			pending = append(pending, i)
		}
		for len(pending) > 0 {
			if time.Now().After(deadline) {
				p.fail(fmt.Errorf("%d inputs not stored, first req-%d", len(pending), pending[0]))
				return
			}
			var retry []int
			for start := 0; start < len(pending); start += 256 {
				end := min(start+256, len(pending))
				futs := make([]jetstream.PubAckFuture, 0, end-start)
				for _, i := range pending[start:end] {
					f, err := p.js.PublishMsgAsync(mk(i))
					if err != nil {
						retry = append(retry, i)
						futs = append(futs, nil)
						continue
					}
					futs = append(futs, f)
				}
				// The context's async timeout fails a future whose
				// acknowledgement is lost; the window's deadline bounds
				// the wait even so.
				window := time.NewTimer(15 * time.Second)
				for k, f := range futs {
					if f == nil {
						continue
					}
					select {
					case <-f.Ok():
					case <-f.Err():
						retry = append(retry, pending[start+k])
					case <-window.C:
						retry = append(retry, pending[start+k:end]...)
						goto next
					}
				}
			next:
				window.Stop()
			}
			pending = retry
			if len(pending) > 0 {
				time.Sleep(200 * time.Millisecond)
			}
		}
	})
}

func (p *producer) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.er == nil {
		p.er = err
	}
}

func (p *producer) wait(t *testing.T) {
	t.Helper()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.er != nil {
		t.Fatal(p.er)
	}
}

type checker struct {
	// cleanAt is when each input's clean output was stored, and rawAt
	// when MCP_RAW stored the input (the timestamp in the output's
	// Nats-Msg-Id, worker.MsgID); both set by verify.
	cleanAt, rawAt map[int]time.Time

	t  *testing.T
	js jetstream.JetStream
}

func (c *checker) ctx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// count returns the messages of a stream (-1 when it cannot be read now).
func (c *checker) count(stream string) int64 {
	ctx, cancel := c.ctx(3 * time.Second)
	defer cancel()
	st, err := c.js.Stream(ctx, stream)
	if err != nil {
		return -1
	}
	info, err := st.Info(ctx)
	if err != nil {
		return -1
	}
	return int64(info.State.Msgs)
}

func (c *checker) waitFor(what string, within time.Duration, f func() error) time.Duration {
	c.t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	var err error
	for time.Now().Before(deadline) {
		if err = f(); err == nil {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("%s: not within %v: %v", what, within, err)
	return 0
}

// waitProgress waits until MCP_CLEAN holds more than from + n messages
// and returns how long that took.
func (c *checker) waitProgress(what string, from int64, n int64, within time.Duration) time.Duration {
	c.t.Helper()
	return c.waitFor(what, within, func() error {
		if got := c.count(wire.StreamClean); got < from+n {
			return fmt.Errorf("MCP_CLEAN holds %d, want %d", got, from+n)
		}
		return nil
	})
}

// waitBacklog waits until MCP_RAW holds at least n inputs. When the
// producer has stored all it was given and the workers took it faster than
// it came (a loaded machine slows the producer more than the workers),
// more publishes another batch, at most maxTopUps times.
func (c *checker) waitBacklog(what string, n int64, p *producer, more func()) {
	c.t.Helper()
	const maxTopUps = 4
	topUps := 0
	c.waitFor(what+": a backlog", 2*time.Minute, func() error {
		got := c.count(wire.StreamRaw)
		if got >= n {
			return nil
		}
		if p.busy.Load() == 0 && topUps < maxTopUps {
			topUps++
			c.t.Logf("%s: MCP_RAW holds %d once the producer is done; another batch", what, got)
			more()
		}
		return fmt.Errorf("MCP_RAW holds %d, want %d (the producer is slower than the workers)", got, n)
	})
}

func (c *checker) cleanNow() int64 {
	c.t.Helper()
	var n int64
	c.waitFor("read MCP_CLEAN", 30*time.Second, func() error {
		if n = c.count(wire.StreamClean); n < 0 {
			return errors.New("unreadable")
		}
		return nil
	})
	return n
}

// readAll returns every message of a stream, read with an ordered
// consumer.
func (c *checker) readAll(stream string) []jetstream.Msg {
	c.t.Helper()
	var out []jetstream.Msg
	c.waitFor("read "+stream, 2*time.Minute, func() error {
		out = out[:0]
		ctx, cancel := c.ctx(time.Minute)
		defer cancel()
		st, err := c.js.Stream(ctx, stream)
		if err != nil {
			return err
		}
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		want := int(info.State.Msgs)
		if want == 0 {
			return nil
		}
		oc, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			return err
		}
		for len(out) < want {
			b, err := oc.Fetch(500, jetstream.FetchMaxWait(5*time.Second))
			if err != nil {
				return err
			}
			got := 0
			for m := range b.Messages() {
				out = append(out, m)
				got++
			}
			if got == 0 {
				return fmt.Errorf("%s: read %d of %d", stream, len(out), want)
			}
		}
		return nil
	})
	return out
}

type evidence struct {
	Path        string `json:"path"`
	RawSequence uint64 `json:"rawSequence"`
	Deliveries  uint64 `json:"deliveries"`
	DLQ         bool   `json:"dlq"`
}

// verify demands exactly one clean output and one evidence record for
// each of req-0..req-(n-1), nothing else, no DLQ entry, no planted secret
// in any stream; it returns each input's evidence.
func (c *checker) verify(n int) map[int]evidence {
	c.t.Helper()
	evs := map[int]evidence{}
	for _, stream := range []string{wire.StreamClean, wire.StreamEvidence, wire.StreamDLQ} {
		seen := map[int]int{}
		for _, m := range c.readAll(stream) {
			for _, s := range []string{plantedGitHub, plantedAWS} {
				if bytes.Contains(m.Data(), []byte(s)) {
					c.t.Errorf("%s: a planted secret in %s", stream, m.Subject())
				}
			}
			rid := m.Headers().Get(wire.HeaderRequestID)
			i, err := strconv.Atoi(strings.TrimPrefix(rid, "req-"))
			if err != nil || i < 0 || i >= n {
				c.t.Errorf("%s: unexpected request id %q", stream, rid)
				continue
			}
			seen[i]++
			if stream == wire.StreamClean {
				if md, err := m.Metadata(); err == nil {
					if c.cleanAt == nil {
						c.cleanAt, c.rawAt = map[int]time.Time{}, map[int]time.Time{}
					}
					c.cleanAt[i] = md.Timestamp
				}
				id := m.Headers().Get(jetstream.MsgIDHeader)
				if ns, err := strconv.ParseInt(id[strings.LastIndexByte(id, ':')+1:], 36, 64); err == nil {
					c.rawAt[i] = time.Unix(0, ns)
				} else {
					c.t.Errorf("%s: %s Nats-Msg-Id %q", stream, rid, id)
				}
			}
			if stream == wire.StreamEvidence {
				var e evidence
				if err := json.Unmarshal(m.Data(), &e); err != nil {
					c.t.Errorf("evidence of %s: %v", rid, err)
				}
				evs[i] = e
			}
			if stream == wire.StreamClean && m.Headers().Get(wire.HeaderOutcome) != "sanitized" {
				c.t.Errorf("%s: %s outcome %q", stream, rid, m.Headers().Get(wire.HeaderOutcome))
			}
		}
		if stream == wire.StreamDLQ {
			if len(seen) != 0 {
				c.t.Errorf("MCP_DLQ holds %d inputs, want none", len(seen))
			}
			continue
		}
		missing, dup := 0, 0
		for i := 0; i < n; i++ {
			switch seen[i] {
			case 0:
				missing++
			case 1:
			default:
				dup++
			}
		}
		if missing > 0 || dup > 0 {
			c.t.Errorf("%s: %d of %d inputs missing, %d stored more than once", stream, missing, n, dup)
		}
	}
	return evs
}

// stepDownFrom moves every stream and consumer leader off node, so it
// leads nothing.
func stepDownFrom(t *testing.T, nc *nats.Conn, js jetstream.JetStream, cl *testcluster.Cluster, node *testcluster.Node) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		moved := 0
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		names := js.StreamNames(ctx)
		var streams []string
		for s := range names.Name() {
			streams = append(streams, s)
		}
		for _, s := range streams {
			if l, err := cl.StreamLeader(ctx, js, s); err == nil && l == node {
				nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+s, nil)
				moved++
			}
			st, err := js.Stream(ctx, s)
			if err != nil {
				continue
			}
			for cn := range st.ConsumerNames(ctx).Name() {
				if l, err := cl.ConsumerLeader(ctx, js, s, cn); err == nil && l == node {
					nc.RequestWithContext(ctx, "$JS.API.CONSUMER.LEADER.STEPDOWN."+s+"."+cn, nil)
					moved++
				}
			}
		}
		cancel()
		if moved == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s still leads something", node.Name)
}

// stepDownConsumerFrom moves the leadership of MCP_RAW's consumer off
// node.
func stepDownConsumerFrom(t *testing.T, nc *nats.Conn, js jetstream.JetStream, cl *testcluster.Cluster, node *testcluster.Node) {
	t.Helper()
	durable := worker.DefaultConsumerConfig().Durable
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		l, err := cl.ConsumerLeader(ctx, js, wire.StreamRaw, durable)
		if err == nil && l != node {
			cancel()
			return
		}
		if err == nil {
			nc.RequestWithContext(ctx, "$JS.API.CONSUMER.LEADER.STEPDOWN."+wire.StreamRaw+"."+durable, nil)
		}
		cancel()
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s still leads the consumer", node.Name)
}

// logLeaders logs which nodes lead MCP_RAW and its consumer before a
// graceful fault and returns the consumer's leader (nil if none answered):
// a consumer leader on the stopped server changes what the phase can
// strand (docs/nats.md).
func logLeaders(t *testing.T, js jetstream.JetStream, cl *testcluster.Cluster, phase string) *testcluster.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	name := func(n *testcluster.Node, err error) string {
		if err != nil {
			return "none"
		}
		return n.Name
	}
	cons, err := cl.ConsumerLeader(ctx, js, wire.StreamRaw, worker.DefaultConsumerConfig().Durable)
	t.Logf("%s: MCP_RAW led by %s, its consumer by %s", phase, name(cl.StreamLeader(ctx, js, wire.StreamRaw)), name(cons, err))
	if err != nil {
		return nil
	}
	return cons
}

// pollReady reads /readyz every 50 ms until stop is closed and returns the
// slowest answer.
func pollReady(w *workerProc, stop <-chan struct{}) <-chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		for {
			select {
			case <-stop:
				out <- worst
				return
			case <-time.After(50 * time.Millisecond):
			}
			start := time.Now()
			w.get("/readyz")
			worst = max(worst, time.Since(start))
		}
	}()
	return out
}

// TestClusterDurable runs the durable path on three nats-server processes
// with R3 streams under a backlog while servers and workers are killed and
// restarted (see the package doc).
func TestClusterDurable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node nats-server cluster")
	}
	per := 1500 // inputs per phase; 6 phases
	if os.Getenv(EnvLong) != "" {
		per = 5000
	}
	cl := testcluster.Start(t, testcluster.Options{LameDuckDuration: 30 * time.Second, LameDuckGrace: lameDuckGrace})
	wbin := testcluster.BuildCommand(t, "github.com/mcp-sanitize/mcp-sanitize/cmd/sanitize-worker", "sanitize-worker")
	dir := t.TempDir()
	if d := os.Getenv(EnvLogDir); d != "" {
		dir = d
	}
	n1, n2, n3 := cl.Nodes[0], cl.Nodes[1], cl.Nodes[2]
	// Each worker is given one server: it learns the others from the
	// cluster and fails over to them, and the test knows which server it
	// starts on.
	wa := &workerProc{t: t, bin: wbin, name: "worker-a", urls: n1.URL(), httpAddr: "127.0.0.1:" + strconv.Itoa(testcluster.FreePort(t)), logPath: dir + "/worker-a.log"}
	wb := &workerProc{t: t, bin: wbin, name: "worker-b", urls: n2.URL(), httpAddr: "127.0.0.1:" + strconv.Itoa(testcluster.FreePort(t)), logPath: dir + "/worker-b.log"}
	t.Cleanup(func() {
		wa.kill()
		wb.kill()
		if t.Failed() {
			t.Logf("worker-a log:\n%s", wa.logTail())
			t.Logf("worker-b log:\n%s", wb.logTail())
		}
	})
	wa.start()

	pc, err := nats.Connect(cl.URLs(n3), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	pjs, err := jetstream.New(pc, jetstream.WithPublishAsyncMaxPending(512), jetstream.WithPublishAsyncTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{t: t, js: pjs}
	p := &producer{js: pjs}
	total := 0
	next := func() (int, int) { from := total; total += per; return from, total }
	more := func() { p.publish(next()) }

	// Each input is at most a few KiB: the whole phase is a backlog at
	// once, far more than the worker holds.
	const resumeWithin = 15 * time.Second
	const progress = 128 // more than a worker holds (16 in flight, 31 fetched)
	const backlog = 300  // inputs waiting in MCP_RAW when a fault comes

	// 1. A server that leads nothing and serves no worker.
	idle := n2
	if wa.server(cl) == n2 {
		idle = n3
	}
	stepDownFrom(t, pc, pjs, cl, idle)
	from, to := next()
	p.publish(from, to)
	c.waitBacklog("phase 1", backlog, p, more)
	at := c.cleanNow()
	idle.Kill()
	d := c.waitProgress("after killing a server that leads nothing", at, progress, resumeWithin)
	t.Logf("killed %s (leading nothing): progress after %v", idle.Name, d.Round(time.Millisecond))
	idle.Start(t)
	p.wait(t)
	cl.WaitHealthy(pjs, 2*time.Minute)

	// 2. The MCP_RAW leader (not the worker's server), while /readyz is
	// polled.
	from, to = next()
	p.publish(from, to)
	c.waitProgress("phase 2 start", c.cleanNow(), 100, 2*time.Minute)
	var leader *testcluster.Node
	c.waitFor("an MCP_RAW leader other than the worker's server", time.Minute, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		l, err := cl.StreamLeader(ctx, pjs, wire.StreamRaw)
		if err != nil {
			return err
		}
		if l == wa.server(cl) {
			pc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+wire.StreamRaw, nil)
			return fmt.Errorf("%s leads MCP_RAW and serves worker-a", l.Name)
		}
		leader = l
		return nil
	})
	c.waitBacklog("phase 2", backlog, p, more)
	stopPoll := make(chan struct{})
	worst := pollReady(wa, stopPoll)
	at = c.cleanNow()
	leader.Kill()
	d = c.waitProgress("after killing the MCP_RAW leader", at, progress, resumeWithin)
	t.Logf("killed %s (MCP_RAW leader): progress after %v", leader.Name, d.Round(time.Millisecond))
	leader.Start(t)
	close(stopPoll)
	cl.WaitHealthy(pjs, 2*time.Minute)
	if w := <-worst; w > time.Second {
		t.Errorf("/readyz took %v during a leader kill", w)
	} else {
		t.Logf("slowest /readyz during the leader kill: %v", w)
	}
	p.wait(t)

	// 3. The worker's own server.
	from, to = next()
	p.publish(from, to)
	c.waitProgress("phase 3 start", c.cleanNow(), 100, 2*time.Minute)
	own := wa.server(cl)
	c.waitBacklog("phase 3", backlog, p, more)
	at = c.cleanNow()
	own.Kill()
	d = c.waitProgress("after killing the worker's server", at, progress, resumeWithin)
	t.Logf("killed %s (worker-a's server): progress after %v", own.Name, d.Round(time.Millisecond))
	own.Start(t)
	p.wait(t)
	cl.WaitHealthy(pjs, 2*time.Minute)

	// 4. Two workers; worker-a is SIGKILLed and restarted.
	wb.start()
	from, to = next()
	p.publish(from, to)
	c.waitBacklog("phase 4", backlog, p, more)
	wa.kill()
	at = c.cleanNow()
	c.waitProgress("after killing worker-a", at, progress, resumeWithin)
	wa.start()
	p.wait(t)

	// Everything so far is done (inputs held by the killed worker come
	// back after their AckWait) before the graceful phases start.
	c.waitFor("MCP_RAW empty before the graceful phases", 3*time.Minute, func() error {
		if n := c.count(wire.StreamRaw); n != 0 {
			return fmt.Errorf("MCP_RAW holds %d", n)
		}
		return nil
	})
	// Both workers start again (graceful stop) on their own servers, so
	// that the test knows where each is connected.
	wa.stop()
	wb.stop()
	wa.start()
	wb.start()
	cl.WaitHealthy(pjs, 2*time.Minute)
	redeliveredBefore := wa.metric("mcp_sanitize_redeliveries_total") + wb.metric("mcp_sanitize_redeliveries_total")
	gracefulFrom := total

	// 5. Graceful stop (SIGTERM) of worker-b's server, then restart.
	from, to = next()
	p.publish(from, to)
	c.waitBacklog("phase 5", backlog, p, more)
	sigtermTo := total
	stopped := wb.server(cl)
	consLeader := logLeaders(t, pjs, cl, "phase 5")
	if err := stopped.Stop(); err != nil {
		t.Error(err)
	}
	stoppedAt := time.Now() // the server has exited: no delivery is in transit to it after this
	t.Logf("stopped %s (worker-b's server) with SIGTERM", stopped.Name)
	stopped.Start(t)
	p.wait(t)
	cl.WaitHealthy(pjs, 2*time.Minute)

	// 6. Lame-duck mode of worker-a's server, then restart. The server
	// hands its Raft leaderships over before it tells its clients, and a
	// consumer leader that hands over drops the deliveries it had
	// committed for a pull request but not yet sent (they wait out their
	// AckWait: server behaviour, docs/nats.md, "The lame-duck contract").
	// So the consumer's leadership leaves that server before the phase's
	// inputs come (no pull has a delivery to drop then), and the phase
	// checks what the worker does: nothing of it waits an AckWait.
	ldm := wa.server(cl)
	stepDownConsumerFrom(t, pc, pjs, cl, ldm)
	from, to = next()
	p.publish(from, to)
	c.waitBacklog("phase 6", backlog, p, more)
	// An election on a loaded cluster can bring the leadership back; then
	// the handover's drops are allowed as at a SIGTERM (below).
	ldmLedConsumer := logLeaders(t, pjs, cl, "phase 6") == ldm
	ldmAt := time.Now()
	if err := ldm.LameDuck(time.Minute); err != nil {
		t.Error(err)
	}
	t.Logf("%s (worker-a's server) went through lame-duck mode", ldm.Name)
	ldm.Start(t)
	p.wait(t)

	// No input of the lame-duck phase waited out an AckWait, and no input
	// a worker held in either phase did: each one's clean output was
	// stored less than one AckWait after the input was. A SIGTERM closes
	// the connections without notice, and deliveries the consumer leader
	// had sent to worker-b's inbox through the stopping server are lost
	// with it: the worker never saw them, and nothing a client can do
	// names them (docs/nats.md, "A SIGTERM of nats-server"). When the
	// stopped server leads the consumer, the deliveries it had committed
	// for either worker's pull request but not yet sent are lost the same
	// way (the server drops them when its consumer stops). Those, and only
	// those, come back after one AckWait: at most the one pull request
	// each worker whose pull the stopped server carried or held had
	// outstanding (perPull each), each delivered exactly twice, its clean
	// output stored within one AckWait (plus time to process it) of the
	// server's exit. The lame-duck phase has no exception unless an
	// election gave the consumer's leadership back to the lame-duck server
	// (logged): then what its handover dropped is allowed the same way, at
	// most a pull request of each worker. A redelivery that did not wait (a new consumer leader
	// delivering what its predecessor had not seen acknowledged) is not a
	// fault: it is deduplicated and logged.
	const perPull = 31 // the workers' pull batch (log line "pull batch bounded")
	inTransit := perPull
	if consLeader == stopped {
		inTransit = 2 * perPull
	}
	const redeliveredWithin = 15 * time.Second
	drainBy := 25 * time.Second
	if d := time.Until(stoppedAt.Add(clusterAckWait + redeliveredWithin)); d > drainBy {
		drainBy = d
	}
	if d := time.Until(ldmAt.Add(clusterAckWait + redeliveredWithin + lameDuckGrace)); ldmLedConsumer && d > drainBy {
		drainBy = d
	}
	c.waitFor("MCP_RAW empty", drainBy, func() error {
		if n := c.count(wire.StreamRaw); n != 0 {
			return fmt.Errorf("MCP_RAW holds %d", n)
		}
		return nil
	})
	evs := c.verify(total)
	twice, waited, lost, handedOver := 0, 0, 0, 0
	var slowest, slowestLDM time.Duration
	for i := gracefulFrom; i < total; i++ {
		if evs[i].Deliveries != 1 {
			twice++
		}
		storedAt, ok1 := c.rawAt[i]
		cleanAt, ok2 := c.cleanAt[i]
		if !ok1 || !ok2 {
			t.Errorf("req-%d: no stored or clean time", i)
			continue
		}
		d := cleanAt.Sub(storedAt)
		slowest = max(slowest, d)
		if i >= sigtermTo {
			slowestLDM = max(slowestLDM, d)
		}
		if d < clusterAckWait {
			continue
		}
		if i < sigtermTo && evs[i].Deliveries == 2 && cleanAt.Before(stoppedAt.Add(clusterAckWait+redeliveredWithin)) {
			lost++ // in transit to the stopped server
			continue
		}
		if i >= sigtermTo && ldmLedConsumer && evs[i].Deliveries == 2 && cleanAt.Before(ldmAt.Add(clusterAckWait+redeliveredWithin+lameDuckGrace)) {
			handedOver++ // dropped by the consumer leader's handover
			continue
		}
		waited++
		t.Errorf("req-%d (phase %d): clean output %v after the input, delivered %d times", i, map[bool]int{true: 5, false: 6}[i < sigtermTo], d.Round(time.Millisecond), evs[i].Deliveries)
	}
	if waited > 0 {
		t.Errorf("%d inputs of the graceful phases waited out the AckWait (%v) before their clean output", waited, clusterAckWait)
	}
	if handedOver > 2*perPull {
		t.Errorf("%d inputs dropped by the consumer leader's lame-duck handover, more than a pull request of each worker (%d)", handedOver, 2*perPull)
	}
	if lost > inTransit {
		t.Errorf("%d inputs lost in transit to the SIGTERMed server, more than a pull request of each worker it served or led (%d)", lost, inTransit)
	}
	if n := wa.metric("mcp_sanitize_naks_total") + wb.metric("mcp_sanitize_naks_total"); n != 0 {
		t.Errorf("%v attempts failed and were naked in the graceful phases", n)
	}
	t.Logf("graceful phases: slowest input to clean output %v (lame duck %v); %d inputs in transit to the SIGTERMed server and %d dropped by a lame-duck consumer handover came back after the AckWait; %d inputs delivered more than once (worker redeliveries %v)",
		slowest, slowestLDM, lost, handedOver, twice, wa.metric("mcp_sanitize_redeliveries_total")+wb.metric("mcp_sanitize_redeliveries_total")-redeliveredBefore)
	for _, w := range []*workerProc{wa, wb} {
		if v := w.metric("mcp_sanitize_fetch_errors_total"); v != 0 {
			t.Errorf("%s: fetch_errors_total %v", w.name, v)
		}
		if v := w.metric(`mcp_sanitize_pull_requests_total{status="batch-completed"}`); v != 0 {
			t.Errorf("%s: %v pulls ended by batch-completed", w.name, v)
		}
		t.Logf("%s: pulls complete %v expired %v leadership-change %v no-responders %v connection %v; publish retries %v; reacks %v",
			w.name, w.metric(`mcp_sanitize_pull_requests_total{status="complete"}`), w.metric(`mcp_sanitize_pull_requests_total{status="expired"}`),
			w.metric(`mcp_sanitize_pull_requests_total{status="leadership-change"}`), w.metric(`mcp_sanitize_pull_requests_total{status="no-responders"}`),
			w.metric(`mcp_sanitize_pull_requests_total{status="connection"}`), w.metric("mcp_sanitize_publish_retries_total"), w.metric("mcp_sanitize_reacks_total"))
	}
	t.Logf("%d inputs, each with one clean output and one evidence record", total)
}
