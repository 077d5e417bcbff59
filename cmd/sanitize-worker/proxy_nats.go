package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
)

// proxyNATSFlags send each message through the fleet (--nats-url) instead
// of the engine in this process. The names and environment variables of
// the connection flags are those of `state`, `tools` and `args`.
type proxyNATSFlags struct {
	url, creds, nkey, tlsCA, tlsCert, tlsKey string
	callTimeout                              time.Duration
}

func (n *proxyNATSFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.url, "nats-url", "", "NATS server `URLs` (comma-separated): sanitize through the fleet's inline path (sanitize-worker serve) instead of in this process")
	fs.StringVar(&n.creds, "creds", "", "NATS user credentials `FILE` (with --nats-url)")
	fs.StringVar(&n.nkey, "nkey", "", "NATS nkey seed `FILE` (with --nats-url)")
	fs.StringVar(&n.tlsCA, "tls-ca", "", "CA certificates `FILE` (PEM) to verify the NATS server")
	fs.StringVar(&n.tlsCert, "tls-cert", "", "client certificate `FILE` (PEM); with --tls-key")
	fs.StringVar(&n.tlsKey, "tls-key", "", "client key `FILE` (PEM); with --tls-cert")
	fs.DurationVar(&n.callTimeout, "nats-timeout", client.DefaultTimeout, "deadline of one request to the fleet; on expiry or without workers the message fails closed")
}

// checkNATS applies the environment (as `tools` does) and validates.
func (n *proxyNATSFlags) check(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for _, e := range natsClientEnv {
		if given[e.flag] {
			continue
		}
		if v, ok := lookup(e.env); ok && v != "" && e.flag != "nats-url" {
			if err := fs.Set(e.flag, v); err != nil {
				return fmt.Errorf("%s: invalid value for --%s", e.env, e.flag)
			}
		}
	}
	if n.url == "" {
		for _, f := range []string{"creds", "nkey", "tls-ca", "tls-cert", "tls-key", "nats-timeout"} {
			if given[f] {
				return fmt.Errorf("--%s goes with --nats-url", f)
			}
		}
		return nil
	}
	if err := checkNATSURLs(n.url); err != nil {
		return fmt.Errorf("--nats-url: %v", err)
	}
	switch {
	case n.creds != "" && n.nkey != "":
		return errors.New("--creds and --nkey are alternatives; give one")
	case (n.tlsCert == "") != (n.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case n.callTimeout <= 0:
		return errors.New("--nats-timeout must be positive")
	}
	return nil
}

// sanitizer connects and returns the fleet's Sanitizer.
func (n *proxyNATSFlags) sanitizer(log *slog.Logger) (proxy.Sanitizer, func(), error) {
	nc, _, err := dialNATS("mcp-sanitize proxy", n.url, natsConnFlags{
		creds: n.creds, nkey: n.nkey, tlsCA: n.tlsCA, tlsCert: n.tlsCert, tlsKey: n.tlsKey, drainTimeout: 5 * time.Second,
	}, log)
	if err != nil {
		return nil, nil, errors.New("cannot connect to NATS at " + redactNATSURLs(n.url))
	}
	c, err := client.New(nc, client.WithTimeout(n.callTimeout))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return proxy.Fleet{C: c}, func() { nc.Drain() }, nil
}
