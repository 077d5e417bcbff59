package worker

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// natsServerProcess is a nats-server binary run as a separate process.
type natsServerProcess struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
}

// buildNATSServer builds nats-server from the module cache (the version in
// go.mod), or skips the test when that is not possible.
func buildNATSServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nats-server")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
	if err != nil {
		t.Skipf("cannot build nats-server from the module cache (%v): %.300s", err, out)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (p *natsServerProcess) url() string { return "nats://127.0.0.1:" + strconv.Itoa(p.port) }

func (p *natsServerProcess) start() {
	p.t.Helper()
	p.cmd = exec.Command(p.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(p.port), "-js", "-sd", p.dir)
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	checkFor(p.t, 20*time.Second, func() error {
		nc, err := nats.Connect(p.url(), nats.Timeout(time.Second))
		if err != nil {
			return err
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = js.AccountInfo(ctx)
		return err
	})
}

// kill ends the server with SIGKILL: no shutdown, no flush.
func (p *natsServerProcess) kill() {
	p.t.Helper()
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Kill()
	p.cmd.Wait()
	p.cmd = nil
}

// TestExternalServerKilledMidStream runs the worker against a nats-server
// process that is killed (SIGKILL) and restarted while a producer publishes
// and the worker consumes: the worker reconnects, and every input has
// exactly one clean output and one evidence record.
func TestExternalServerKilledMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a nats-server process")
	}
	p := &natsServerProcess{t: t, bin: buildNATSServer(t), dir: t.TempDir(), port: freePort(t)}
	p.start()
	t.Cleanup(p.kill)

	reconnect := []nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond), nats.ReconnectJitter(0, 0)}
	nc, err := nats.Connect(p.url(), reconnect...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	svc := startService(t, nc, WithInline(false), WithPublishTimeout(2*time.Second), WithConcurrency(4))

	pc, err := nats.Connect(p.url(), reconnect...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	pjs, _ := jetstream.New(pc)

	// The producer retries each message until it is stored; its Nats-Msg-Id
	// makes a retry of a message that was stored but not acknowledged a
	// duplicate that MCP_RAW drops.
	const n = 240
	var published atomic.Int64
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(60 * time.Second)
		for i := 0; i < n; i++ {
			for {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_, err := pjs.PublishMsg(ctx, rawMsg(i))
				cancel()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					done <- fmt.Errorf("message %d not stored: %v", i, err)
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			published.Add(1)
		}
		done <- nil
	}()

	checkFor(t, 30*time.Second, func() error {
		if published.Load() < n/3 || svc.Processed() < 20 {
			return fmt.Errorf("published %d, processed %d", published.Load(), svc.Processed())
		}
		return nil
	})
	p.kill()
	p.start()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cc, err := nats.Connect(p.url())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cc.Close)
	js, _ := jetstream.New(cc)
	waitCount(t, js, wire.StreamRaw, 0, 60*time.Second)
	waitCount(t, js, wire.StreamClean, n, 10*time.Second)
	waitCount(t, js, wire.StreamEvidence, n, 10*time.Second)
	checkExactlyOnce(t, js, n)
}
