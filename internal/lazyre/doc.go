// Package lazyre holds regular expressions that are compiled on first use
// instead of at package initialization.
//
// Every package of the module is initialized in every process of the
// binary, so a pattern compiled in a package-level var costs every start,
// also of a command that never uses it (a `scan` of one clean message
// runs no error scrubber). A Regexp from New compiles its pattern once,
// when a method first needs it, and is safe for concurrent use as
// regexp.Regexp is.
//
// The patterns are constants of the code, so a bad one is a programming
// error: the first use panics, as regexp.MustCompile would at init.
// CompileAll compiles every Regexp made so far; each package that uses
// New calls it in a test, so a bad pattern fails the tests instead of the
// first request that needs it.
//
// It owns nothing else: no cache of patterns built at run time (those
// are compiled where they are configured and their errors returned).
package lazyre
