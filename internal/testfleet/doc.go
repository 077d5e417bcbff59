// Package testfleet is the one home of the tests' fleet: Start runs an
// embedded NATS server (package testnats), a worker.Service on the given
// engine beside it unless told not to, and a client.Client connected to
// it, and stops them all when the test ends. The proxy, the Go SDK
// middleware and the client's tests sanitize through it, so that what
// "through the fleet" means is written once.
//
// Only tests import it; it imports package testing and is linked into no
// binary.
package testfleet
