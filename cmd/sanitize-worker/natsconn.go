package main

import (
	"errors"
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
	var locked *natsembed.StoreLockedError
	if errors.As(err, &locked) {
		log.Error("embedded NATS store directory is in use by another process: not starting a second server on it",
			"dir", o.Dir, "holderPid", locked.PID, "lockFile", locked.LockFile, "hint", embeddedInUseHint)
		return "", nil, false
	}
	if errors.Is(err, natsembed.ErrPortInUse) {
		log.Error("embedded NATS port is in use by another process: not starting a second server on it",
			"port", o.Port, "hint", embeddedInUseHint)
		return "", nil, false
	}
	if err != nil {
		// The usual cause is a serve or state already running on the same
		// defaults (port 4222, the same store).
		log.Error("embedded NATS server did not start", "dir", o.Dir, "port", o.Port, "error", err.Error(),
			"hint", embeddedConflictHint)
		return "", nil, false
	}
	url = s.ClientURL()
	log.Info("embedded NATS server started", "natsUrl", url, "dir", o.Dir)
	return url, func() {
		s.Shutdown()
		s.WaitForShutdown()
	}, true
}

// embeddedInUseHint says what to do when the store or the port is in use.
const embeddedInUseHint = "join the running server with --nats-url nats://127.0.0.1:4222 (or its --embedded-port), " +
	"run the state service inside serve (serve --state-keys FILE), or give this process its own --embedded-dir and --embedded-port"

// embeddedConflictHint says how to run serve and state together.
const embeddedConflictHint = "if another sanitize-worker serve or state holds the port or the store: run the state service inside serve " +
	"(serve --state-keys FILE), or join that server with --nats-url nats://127.0.0.1:4222, or give this one its own --embedded-port and --embedded-dir"

// checkNATSTarget checks the flags that choose the server, for `serve` and
// `state`: with --nats-url none of embeddedOnly may be given, without it
// none of the connection flags, and the embedded server needs a store
// directory and a valid port. given names the flags set on the command
// line, in the environment or in a file.
func checkNATSTarget(natsURL string, given map[string]bool, embeddedOnly []string, embeddedDir string, embeddedPort int) error {
	if natsURL != "" {
		if err := checkNATSURLs(natsURL); err != nil {
			return fmt.Errorf("--nats-url: %v", err)
		}
		for _, name := range embeddedOnly {
			if given[name] {
				return fmt.Errorf("--%s applies to the embedded server only, not with --nats-url", name)
			}
		}
		return nil
	}
	for _, name := range []string{"creds", "nkey", "tls-ca", "tls-cert", "tls-key"} {
		if given[name] {
			return fmt.Errorf("--%s needs --nats-url (the embedded server listens on 127.0.0.1 without authentication or TLS)", name)
		}
	}
	if embeddedDir == "" {
		return errors.New("--embedded-dir must not be empty")
	}
	if embeddedPort != natsembed.RandomPort && (embeddedPort < 1 || embeddedPort > 65535) {
		return errors.New("--embedded-port must be 1..65535, or -1 for a free port")
	}
	return nil
}

// check checks the connection flags: one of --creds and --nkey, the TLS
// certificate with its key, a positive drain timeout.
func (c natsConnFlags) check() error {
	if c.creds != "" && c.nkey != "" {
		return errors.New("--creds and --nkey are alternatives; give one")
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if c.drainTimeout <= 0 {
		return errors.New("--drain-timeout must be positive")
	}
	return nil
}

// drainNATS drains nc at shutdown and waits for closed (see dialNATS) at
// most drainTimeout and a second more, then closes it.
func drainNATS(nc *nats.Conn, closed <-chan struct{}, drainTimeout time.Duration, log *slog.Logger) {
	if nc.IsClosed() {
		return
	}
	if err := nc.Drain(); err != nil {
		log.Warn("NATS drain failed", "error", err.Error())
		nc.Close()
	}
	t := time.NewTimer(drainTimeout + time.Second)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
		log.Warn("NATS drain timed out")
		nc.Close()
	}
}
