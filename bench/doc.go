// Package bench generates realistic MCP tool outputs for tests, benchmarks
// and measurements: deterministic CallToolResult JSON documents built from a
// seed, optionally carrying planted secrets, pseudo-instruction tags and
// invisible characters, together with the list of what was planted so a
// caller can check that nothing planted survives sanitization.
//
// It owns the shapes of the generated documents (file reads, code search
// with structuredContent, log tails, fetched web pages, API responses, image
// blocks), the fake credentials (built at run time from the seed, so no
// credential-shaped literal is committed) and a streaming generator of one
// very large text result that is never held in memory (BigText). It does not
// sanitize anything and imports no package of this module: it is the input
// side of the proof, reused by pipeline tests, the RSS measurement in
// bench/rss and, later, a labeled detection corpus.
//
// The same Options always give the same bytes: generation uses
// math/rand/v2's PCG seeded from Options.Seed and nothing else.
package bench
