package main

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/internal/natsembed"
)

// natsConnFlags are the connection options that `state` and `serve` share:
// credentials, TLS and the drain timeout.
type natsConnFlags struct {
	creds, nkey, tlsCA, tlsCert, tlsKey string
	drainTimeout                        time.Duration
	// onLameDuck, when set, is called when the connected server enters
	// lame-duck mode.
	onLameDuck func()
}

// dialNATS connects to url with c, reconnecting forever. closed is closed
// once the connection is closed for good (after Drain, Close, or when
// reconnecting gives up). Logged errors carry the client's error text
// (addresses, protocol states), never credentials or payloads.
func dialNATS(name, url string, c natsConnFlags, log *slog.Logger) (*nats.Conn, <-chan struct{}, error) {
	closed := make(chan struct{})
	var once sync.Once
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.DrainTimeout(c.drainTimeout),
		nats.ClosedHandler(func(*nats.Conn) { once.Do(func() { close(closed) }) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", "error", err.Error())
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("NATS reconnected", "natsUrl", redactNATSURLs(c.ConnectedUrl()))
		}),
		nats.LameDuckModeHandler(func(*nats.Conn) {
			log.Warn("NATS server entering lame-duck mode")
			if c.onLameDuck != nil {
				c.onLameDuck()
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("NATS error", "subject", subject, "error", err.Error())
		}),
	}
	if c.creds != "" {
		opts = append(opts, nats.UserCredentials(c.creds))
	}
	if c.nkey != "" {
		o, err := nats.NkeyOptionFromSeed(c.nkey)
		if err != nil {
			// The error may quote the file; say only what is wrong.
			return nil, nil, fmt.Errorf("--nkey: no usable nkey seed in %s", c.nkey)
		}
		opts = append(opts, o)
	}
	if c.tlsCA != "" {
		opts = append(opts, nats.RootCAs(c.tlsCA))
	}
	if c.tlsCert != "" {
		opts = append(opts, nats.ClientCert(c.tlsCert, c.tlsKey))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, nil, err
	}
	return nc, closed, nil
}

// natsServerURL returns natsURL when it is set. Otherwise it starts the
// embedded server with o and returns its client URL; stop shuts it down
// (a no-op for an external server). ok is false, with the failure logged,
// when the embedded server did not start.
func natsServerURL(natsURL string, o natsembed.Options, log *slog.Logger) (url string, stop func(), ok bool) {
	if natsURL != "" {
		return natsURL, func() {}, true
	}
	o.Logger = log.With("component", "nats-server")
	s, err := natsembed.Start(o)
	if err != nil {
		log.Error("embedded NATS server did not start", "dir", o.Dir, "port", o.Port, "error", err.Error())
		return "", nil, false
	}
	url = s.ClientURL()
	log.Info("embedded NATS server started", "natsUrl", url, "dir", o.Dir)
	return url, func() {
		s.Shutdown()
		s.WaitForShutdown()
	}, true
}
