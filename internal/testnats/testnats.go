package testnats

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
)

// Options configures RunServer. The zero value is what most tests want.
type Options struct {
	// MaxPayload caps one message; 0 keeps the server default (1 MiB).
	MaxPayload int32
}

// RunServer starts an embedded server with JetStream on a random loopback
// port and a store directory under t.TempDir(), and shuts it down (waiting
// for the shutdown) when the test ends.
func RunServer(t testing.TB, o Options) *server.Server {
	t.Helper()
	s, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), Port: natsembed.RandomPort, MaxPayload: o.MaxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// Connect connects to url and returns the connection and a JetStream
// context on it; the connection is closed when the test ends.
func Connect(t testing.TB, url string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// CheckFor calls f every interval until it returns nil, and fails the test
// with f's last error if that has not happened within total. f runs at
// least once.
func CheckFor(t testing.TB, total, interval time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(total)
	for {
		err := f()
		if err == nil {
			return
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("condition not met within %v: %v", total, err)
			return
		}
		<-time.After(interval)
	}
}
