// Package archtest holds the test that enforces the import rules of
// docs/architecture.md ("Who may import whom"): which packages may import
// nats.go and nats-server, that scanners and bounds know nothing of ours,
// that statekeys depends only on internal helpers, that the Go client and
// package payload pull no package of the engine, and that wire imports only
// the standard library.
//
// The rules are a table in archtest_test.go; the test reads the real import
// graph with `go list -json ./...` (non-test imports, which is what a binary
// or a library user links). A change that needs a new exception changes the
// table and the section of docs/architecture.md that gives its reason, in
// the same commit. The package has no code of its own.
package archtest
