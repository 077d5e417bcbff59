package testcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// EnvServer names a prebuilt nats-server binary to use instead of
// building one (scripts/test.sh may build it once for every package).
const EnvServer = "MCP_SANITIZE_NATS_SERVER"

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
	buildDir  string
)

// Binary returns the nats-server binary: $MCP_SANITIZE_NATS_SERVER, or one
// built from the module cache once per test process. It skips the test when
// neither is possible (no Go toolchain, no module cache).
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvServer); p != "" {
		return p
	}
	return build(t, "github.com/nats-io/nats-server/v2", "nats-server")
}

// BuildCommand builds a main package of this module (or one it requires)
// once per test process and returns the binary, or skips the test.
func BuildCommand(t testing.TB, pkg, name string) string {
	t.Helper()
	return build(t, pkg, name)
}

var (
	cmdMu   sync.Mutex
	cmdBins = map[string]string{}
)

func build(t testing.TB, pkg, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "testcluster-bin-")
	})
	if buildErr != nil {
		t.Skipf("no directory for test binaries: %v", buildErr)
	}
	cmdMu.Lock()
	defer cmdMu.Unlock()
	if bin, ok := cmdBins[pkg]; ok {
		return bin
	}
	bin := filepath.Join(buildDir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Skipf("cannot build %s (%v): %.400s", pkg, err, out)
	}
	cmdBins[pkg] = bin
	return bin
}

// Cleanup removes the binaries built by this process (call from TestMain).
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Node is one server of the cluster.
type Node struct {
	Name        string
	Port        int // client port
	ClusterPort int
	Dir         string // store directory
	conf        string
	bin         string
	log         string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// URL is the node's client URL.
func (n *Node) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(n.Port) }

// Cluster is a set of nats-server processes joined by routes.
type Cluster struct {
	t     testing.TB
	Nodes []*Node
}

// Options configure Start.
type Options struct {
	// Nodes is the number of servers (default 3).
	Nodes int
	// MaxPayload of every server (0: the server default, 1 MiB).
	MaxPayload int
	// LameDuckDuration and LameDuckGrace (defaults 30s, the server's
	// minimum, and 2s): how long a server in lame-duck mode takes to close
	// its clients (at most a second per client after the grace period).
	LameDuckDuration, LameDuckGrace time.Duration
}

// Start starts a cluster and waits until JetStream answers on every node.
// The processes are killed when the test ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.LameDuckDuration == 0 {
		o.LameDuckDuration = 30 * time.Second
	}
	if o.LameDuckGrace == 0 {
		o.LameDuckGrace = 2 * time.Second
	}
	bin := Binary(t)
	root := t.TempDir()
	c := &Cluster{t: t}
	for i := 0; i < o.Nodes; i++ {
		c.Nodes = append(c.Nodes, &Node{
			Name:        fmt.Sprintf("n%d", i+1),
			Port:        FreePort(t),
			ClusterPort: FreePort(t),
			Dir:         filepath.Join(root, fmt.Sprintf("n%d", i+1)),
			bin:         bin,
		})
	}
	var routes []string
	for _, n := range c.Nodes {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", n.ClusterPort))
	}
	for _, n := range c.Nodes {
		var b strings.Builder
		fmt.Fprintf(&b, "server_name: %s\nlisten: 127.0.0.1:%d\n", n.Name, n.Port)
		if o.MaxPayload > 0 {
			fmt.Fprintf(&b, "max_payload: %d\n", o.MaxPayload)
		}
		fmt.Fprintf(&b, "lame_duck_duration: %q\nlame_duck_grace_period: %q\n", o.LameDuckDuration.String(), o.LameDuckGrace.String())
		fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n  max_memory_store: 256MB\n  max_file_store: 8GB\n}\n", n.Dir)
		fmt.Fprintf(&b, "cluster {\n  name: mcp\n  listen: 127.0.0.1:%d\n  routes: [%s]\n}\n", n.ClusterPort, strings.Join(routes, ", "))
		n.conf = filepath.Join(root, n.Name+".conf")
		n.log = filepath.Join(root, n.Name+".log")
		if err := os.WriteFile(n.conf, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range c.Nodes {
			n.Kill()
		}
	})
	for _, n := range c.Nodes {
		n.start(t)
	}
	c.WaitJetStream(60 * time.Second)
	return c
}

// URLs is the comma-separated client URLs of every node, first first.
func (c *Cluster) URLs(first *Node) string {
	urls := []string{}
	if first != nil {
		urls = append(urls, first.URL())
	}
	for _, n := range c.Nodes {
		if n != first {
			urls = append(urls, n.URL())
		}
	}
	return strings.Join(urls, ",")
}

// Node returns the node named name, or nil.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func (n *Node) start(t testing.TB) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		return
	}
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(n.bin, "-c", n.conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		logf.Close()
		close(done)
	}()
	n.cmd, n.done = cmd, done
}

// Start starts the node again (same ports, same store) and waits until it
// accepts connections.
func (n *Node) Start(t testing.TB) {
	t.Helper()
	n.start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		nc, err := nats.Connect(n.URL(), nats.Timeout(time.Second), nats.NoReconnect())
		if err == nil {
			nc.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not accept connections: %v", n.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Running reports whether the node's process runs.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

func (n *Node) signal(sig syscall.Signal) (done chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return nil
	}
	n.cmd.Process.Signal(sig)
	return n.done
}

func (n *Node) reap(done chan struct{}, within time.Duration) error {
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-time.After(within):
		n.signal(syscall.SIGKILL)
		<-done
		n.clear()
		return fmt.Errorf("%s did not exit within %v; killed", n.Name, within)
	}
	n.clear()
	return nil
}

func (n *Node) clear() {
	n.mu.Lock()
	n.cmd = nil
	n.mu.Unlock()
}

// Kill ends the node with SIGKILL: no shutdown, no flush.
func (n *Node) Kill() { _ = n.reap(n.signal(syscall.SIGKILL), time.Minute) }

// Stop ends the node with SIGTERM (the server's immediate but orderly
// shutdown) and waits for it to exit.
func (n *Node) Stop() error { return n.reap(n.signal(syscall.SIGTERM), time.Minute) }

// LameDuck puts the node into lame-duck mode (SIGUSR2) and waits for it to
// exit, which it does once it has closed its clients.
func (n *Node) LameDuck(within time.Duration) error {
	return n.reap(n.signal(syscall.SIGUSR2), within)
}

// Log returns the node's log so far (for failure messages).
func (n *Node) Log() string {
	b, _ := os.ReadFile(n.log)
	return string(b)
}

// WaitJetStream waits until every running node answers a JetStream
// account request.
func (c *Cluster) WaitJetStream(within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		for {
			err := jsReady(n.URL())
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("JetStream not ready on %s: %v\n%s", n.Name, err, tail(n.Log(), 2000))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func jsReady(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// StreamLeader returns the node that leads stream, asked through js.
func (c *Cluster) StreamLeader(ctx context.Context, js jetstream.JetStream, stream string) (*Node, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	return c.leaderNode(info.Cluster)
}

// ConsumerLeader returns the node that leads the consumer.
func (c *Cluster) ConsumerLeader(ctx context.Context, js jetstream.JetStream, stream, consumer string) (*Node, error) {
	cons, err := js.Consumer(ctx, stream, consumer)
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	return c.leaderNode(info.Cluster)
}

// leaderNode is the node a stream's or consumer's cluster info names as
// leader.
func (c *Cluster) leaderNode(ci *jetstream.ClusterInfo) (*Node, error) {
	if ci == nil || ci.Leader == "" {
		return nil, errors.New("testcluster: no leader")
	}
	if n := c.Node(ci.Leader); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("testcluster: leader %q is not a node of the cluster", ci.Leader)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// WaitHealthy waits until every stream and consumer seen through js has a
// leader and every replica is current, so a next fault does not hit a
// cluster that is still catching up from the last one.
func (c *Cluster) WaitHealthy(js jetstream.JetStream, within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	var err error
	for time.Now().Before(deadline) {
		if err = healthy(js); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("cluster not healthy within %v: %v", within, err)
}

func healthy(js jetstream.JetStream) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	check := func(what string, ci *jetstream.ClusterInfo) error {
		if ci == nil {
			return nil
		}
		if ci.Leader == "" {
			return fmt.Errorf("%s: no leader", what)
		}
		for _, r := range ci.Replicas {
			if !r.Current || r.Offline {
				return fmt.Errorf("%s: replica %s not current", what, r.Name)
			}
		}
		return nil
	}
	lister := js.ListStreams(ctx)
	var infos []*jetstream.StreamInfo
	for si := range lister.Info() {
		infos = append(infos, si)
	}
	if err := lister.Err(); err != nil {
		return err
	}
	for _, si := range infos {
		if err := check("stream "+si.Config.Name, si.Cluster); err != nil {
			return err
		}
		st, err := js.Stream(ctx, si.Config.Name)
		if err != nil {
			return err
		}
		cl := st.ListConsumers(ctx)
		for ci := range cl.Info() {
			if err := check("consumer "+si.Config.Name+"/"+ci.Name, ci.Cluster); err != nil {
				return err
			}
		}
		if err := cl.Err(); err != nil {
			return err
		}
	}
	return nil
}
