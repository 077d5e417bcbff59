// Package testcluster runs a JetStream cluster of nats-server processes on
// loopback for tests: the server binary is built once per test process from
// the nats-server module this module requires (or taken from
// MCP_SANITIZE_NATS_SERVER), each node gets free client and route ports and
// a temporary store, and a node can be killed (SIGKILL), stopped
// (SIGTERM), put into lame-duck mode (SIGUSR2) and started again on the
// same ports and store.
//
// It owns the processes and their configuration files, nothing else: what
// runs against the cluster (streams, workers) is the test's. It is not
// used outside tests.
package testcluster
