package testfleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// Options configures Start. The zero value is an embedded server with its
// defaults, one worker, and a client with its defaults.
type Options struct {
	// NATS configures the embedded server.
	NATS testnats.Options
	// NoWorker starts no worker: the client's calls find no responders.
	NoWorker bool
	// Serve are the worker's options, after WithConsumerStatsEvery(0)
	// (no periodic consumer statistics in tests).
	Serve []worker.ServeOption
	// StartTimeout bounds the worker's start (default 30 s).
	StartTimeout time.Duration
	// Client are the client's options.
	Client []client.Option
}

// Fleet is what Start started.
type Fleet struct {
	Server  *server.Server
	Service *worker.Service // nil with NoWorker
	// Conn is the client's connection.
	Conn   *nats.Conn
	Client *client.Client
}

// Start runs an embedded NATS server, a worker on eng (unless
// o.NoWorker) on a connection of its own, and a client, all stopped when
// the test ends, in the reverse order of their start.
func Start(t testing.TB, eng *pipeline.Engine, o Options) *Fleet {
	t.Helper()
	f := &Fleet{Server: testnats.RunServer(t, o.NATS)}
	if !o.NoWorker {
		wnc, err := nats.Connect(f.Server.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wnc.Close)
		svc, err := worker.NewService(wnc, eng, append([]worker.ServeOption{worker.WithConsumerStatsEvery(0)}, o.Serve...)...)
		if err != nil {
			t.Fatal(err)
		}
		d := o.StartTimeout
		if d <= 0 {
			d = 30 * time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		if err := svc.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer scancel()
			svc.Stop(sctx)
		})
		f.Service = svc
	}
	nc, err := nats.Connect(f.Server.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c, err := client.New(nc, o.Client...)
	if err != nil {
		t.Fatal(err)
	}
	f.Conn, f.Client = nc, c
	return f
}
