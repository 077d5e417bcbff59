// Package startgc keeps the garbage collector from running while a
// process builds the tables it keeps for its whole life.
//
// The runtime starts a collection whenever the heap reaches 4 MiB
// (GOGC=100's minimum goal) until a first collection has measured the
// live heap. A `scan` builds about 7 MiB at start-up (the keyword
// automaton, the rule catalog, the JSON Schema meta-schemas of the
// jsonschema package's init), all of it live until the process exits, so
// the two collections that ran during the build marked live data only and
// freed almost nothing: about 17 M of the 75 M instructions of a `scan` of
// one small message (docs/benchmarks.md, "Issue 35, startup").
//
// Hold turns the collector off; the release it returns turns it back on
// with the heap goal GOGC=100 gives a heap of that size once it has been
// measured (twice the heap in use), and restores the process's own GOGC
// after the first collection. From then on the collector runs exactly as
// it would have; a process that ends before its heap doubles runs none.
// The memory a message may use is unchanged: it is bounded by the engine,
// and the first collection comes at most one start-up heap later.
//
// A GOGC set in the environment is the operator's choice: Hold then does
// nothing. GOMEMLIMIT still applies while the collector is held (the
// runtime collects when the limit is near, whatever GOGC says).
//
// It owns nothing else: no tuning of the collector after start-up.
package startgc
