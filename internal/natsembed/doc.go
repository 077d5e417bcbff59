// Package natsembed starts the NATS server that sanitize-worker embeds when
// it is given no --nats-url: one process, JetStream on, listening on the
// loopback interface only, for a single host, development and tests.
//
// It owns the server's options (loopback host, port, JetStream store
// directory, payload cap, logging into a *slog.Logger) and the lock that
// keeps a second process off a store directory in use, and nothing else. It
// does not connect clients, create streams or buckets, or handle signals:
// the caller connects with nats.go to the server's ClientURL, and shuts the
// server down with Shutdown and WaitForShutdown. A fleet of several workers
// uses a real NATS cluster instead.
package natsembed
