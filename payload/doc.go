// Package payload turns the body of a NATS message into a stream and back:
// it decodes Content-Encoding (zstd, s2, identity) and claim checks (a body
// held in a JetStream Object Store bucket and named by the Mcp-Claim
// header) on the way in, and on the way out it keeps a sanitized output in
// bounded memory, compresses it when it is large and moves it to the Object
// Store when it would not fit in one message.
//
// It owns the wire form of a body, nothing else: subjects, streams and
// consumers belong to the worker and the client, header names, codes and
// reasons to package wire, and the sanitizing pass to package pipeline,
// which payload does not import (a Sink is a pipeline.Output by its
// methods), so a producer linking it links no part of the engine. Both
// sides of the
// transport use it: the worker (Open on requests, Sink for replies and clean
// outputs) and producers through package client (Sink or Claim for
// requests, Open on replies).
//
// # Bounds
//
// Decoding is bounded while it streams, never after inflating everything:
// Limits.MaxDecodedBytes (default 64 MiB) caps the decoded body, so a zstd
// bomb (gigabytes of zeros in a few kilobytes) ends with BOUND_EXCEEDED,
// reason "decoded-bytes", after at most the cap plus one decoder block has
// been produced; Limits.MaxWindowBytes (default 8 MiB) caps the zstd window
// and so the decoder's memory (reason "zstd-window"); the encoded bytes read
// are capped too (reason "encoded-bytes"), so a stream of skippable frames
// that decodes to nothing cannot be read forever. An Object Store body is
// read chunk by chunk and never held whole.
//
// # Errors
//
// Every failure is an *Error with a stable wire.Code and a stable
// lower-case Reason; neither carries payload text or a library's error text,
// so it may be logged, counted and returned to the producer. The codes are
// INVALID_ENCODING (unknown encoding, corrupt or truncated data, a claim
// that names another bucket or a missing object), BOUND_EXCEEDED (a cap
// crossed), TIMEOUT (the context ended while reading a claim) and INTERNAL
// (the Object Store failed or is not configured; Temporary reports true, so
// a durable consumer may retry).
//
// The reader that Open returns reports its failure from Read. A pass that
// reads it (pipeline.Engine.Sanitize) sees only a read error; the caller
// then asks Failure(r) for the *Error and writes the rejection with its own
// code and reason (pipeline.Engine.Reject).
package payload
