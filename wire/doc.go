// Package wire names what crosses NATS between producers, sanitize-worker
// and consumers: subjects, headers, stream, consumer and bucket names, and
// the rule for turning a tenant or server name into a subject token.
//
// It is a leaf package (it imports only the standard library) so that a
// producer's client, the worker and tools agree on spelling without
// importing the engine. Every name here is part of the public contract and
// documented in docs/nats.md; spellings never change once released.
package wire
