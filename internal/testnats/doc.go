// Package testnats is the one home of the tests' embedded NATS server and
// polling: RunServer starts a server (package natsembed: loopback, a random
// port, JetStream on, its store in a temporary directory) that the test's
// cleanup shuts down, Connect opens a connection and a JetStream context
// that the cleanup closes, and CheckFor waits for an asynchronous condition
// by polling with a deadline (the shape of nats-server's checkFor), never
// by a fixed sleep.
//
// Only tests import it; it imports package testing and is linked into no
// binary.
package testnats
