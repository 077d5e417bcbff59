// Package wire is the vocabulary shared by producers, sanitize-worker,
// consumers and the packages of the engine: what crosses a process
// boundary, declared once.
//
//   - wire.go: subjects, headers, stream, consumer and bucket names, and the
//     rule for turning a tenant or server name into a subject token;
//   - kind.go: the MCP message kinds;
//   - code.go: every stable error code and, in one table, the public
//     message a reply carries for it;
//   - outcome.go: the outcomes of a pass;
//   - reason.go: the reasons that detail a code, all in kebab-case;
//   - meta.go: the reserved _meta prefix and key names, the guard and
//     evidence versions.
//
// It is a leaf package (it imports only the standard library) so that a
// producer's client, the worker and tools agree on spelling without
// importing the engine; internal/archtest enforces that. Every name here is
// part of the public contract (docs/nats.md, docs/pipeline.md,
// docs/architecture.md); spellings never change once released.
package wire
