package main

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// natsConnFlags are the connection options that `state` and `serve` share:
// credentials, TLS and the drain timeout.
type natsConnFlags struct {
	creds, nkey, tlsCA, tlsCert, tlsKey string
	drainTimeout                        time.Duration
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
