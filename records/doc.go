// Package records is the record engine of `sanitize-worker scan --jsonl`: a
// stream of records, one JSON object {"tool","outputSchema","result"} a
// line, sanitized on parallel passes of a pipeline.Engine and written back
// one record a line in input order, with one evidence record a line.
//
// What it owns: splitting the input into records under a size cap (a longer
// line is skipped, not held, and answered with BOUND_EXCEEDED), reading
// each record's envelope (one scan of the line that builds no tree; the
// result goes to the engine as the slice of the line it is, and a record
// the scan does not take, such as one that is not JSON or holds a name
// twice, goes through a valyala/fastjson parse as a whole), compiling each outputSchema
// once per run (schema.Cache), the order of the output under parallelism
// with the records in flight bounded (2*Workers of any size, and up to
// MaxInFlightExtra more within Options.InFlightBytes, so a slow record does
// not idle the other workers), echoing each outputSchema
// normalized and redacted by the engine's catalog, and the typed errors of
// a run (RecordError, WriteError, ReadError).
//
// Output line N always answers input line N. A bad record (not JSON, not
// an object, no result, a schema that does not compile, a blank line) gets
// a sanitized error result on its own line and does not stop the run; so
// does a record with a member name twice (INVALID_JSON, duplicate-key, as
// inside a message), a "framing" member that is not a framing
// (INVALID_CONTENT, unknown-framing), or an outputSchema whose echo would
// hold one name twice once normalized (SCHEMA_INVALID,
// schema-key-collision). A record that could not be answered (its file or
// its output spool failed) gets an INTERNAL error result (internal-fault)
// on its line and a RecordError for the run. Each line is written as soon
// as it and every line before it are answered (Options.Flush for a pipe:
// flushed, with its evidence, once no complete record waits in the input
// or no other answer waits). With one worker a record is read, sanitized
// and written on one goroutine, with no hand-off between goroutines.
// A record's "framing" ("bare", "jsonrpc", "auto") says how its result is
// framed; without one, Options.Framing does.
//
// A line longer than Options.MemRecordBytes (4 MiB) is not held in memory:
// it goes to an unlinked temporary file, its envelope is found by a scan of
// the file and its result streamed from there, its output through a spool,
// so one record's memory is bounded like a single message's in `scan`
// (bigrecord.go; TestBigRecordMemory: a 50 MiB record peaks at the single
// message's RSS plus a few MiB).
//
// What it does not own: the pass over a result (package pipeline), flags,
// files and exit codes (cmd/sanitize-worker), and where records come from.
package records
