// Package scanners finds what must not reach a model in text: invisible and
// control characters, compatibility forms (Unicode NFKC), pseudo-instruction
// tags and chat-template markers, and secrets.
//
// It works on bytes of one already-decoded string value at a time and knows
// nothing of JSON, MCP message shapes, policy files or NATS. Every type here is
// a resumable state machine: input may arrive split at any byte boundary and
// the output is identical however it was split, while the memory held between
// calls is bounded by a documented constant, not by the length of the string.
//
// The two stages are:
//
//   - Normalizer: removes invisible and control characters, then applies NFKC.
//   - Redactor: one Aho-Corasick keyword pass over the normalized text (secret
//     keywords and tag names in a single automaton whose state crosses chunk
//     boundaries and which reports positions), each keyword hit checked by the
//     rules it leads to, and each confirmed match replaced by a marker. Runs
//     of base64, hex and percent-encoded text are decoded (bounded in size
//     and depth) and scanned with the same catalog (decode.go). The rules
//     see a detection view of the text (view.go): look-alike characters as
//     their UTS #39 skeleton (skeleton.go) and HTML character references
//     as their characters; what is written is the text as given except
//     the matches.
//
// On amd64 the keyword automaton walks long blocks in eight lanes in
// assembly (walk8_amd64.s), and the normalizer's ASCII spans, its search for
// look-alike lead bytes and the start of encoded runs are AVX2 kernels; each
// has a Go specification it is tested against (docs/kernels.md).
//
// Findings carry a rule id, an offset and a length in the normalized string,
// and a keyed fingerprint (HMAC-SHA256) of the matched bytes; never the
// matched bytes themselves.
package scanners

//go:generate sh -c "go run ./internal/rulesdoc > ../docs/rules.md"
