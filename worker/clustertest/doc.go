// Package clustertest holds the test of the durable path on a three-node
// JetStream cluster (nats-server processes built from the module, R3
// streams): servers and workers are killed and restarted under a backlog,
// and every input must have exactly one clean output and one evidence
// record. It is a package of its own so that `go test ./...` runs it in a
// process of its own, beside the other packages rather than inside one.
// MCP_SANITIZE_CLUSTER_LONG=1 runs the longer version.
package clustertest
