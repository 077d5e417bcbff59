// Package evchain makes a worker's evidence records tamper-evident: each
// record carries a link (chain id, sequence, the hash of the previous
// record, its own hash), and signed checkpoints vouch for the head of the
// chain from time to time, so an altered, removed or truncated record is
// found and named (docs/evidence-chain.md).
//
// What it owns: sealing records as they are published (Sealer: one chain
// per worker process, safe for concurrent use), the checkpoint format and
// its Ed25519 signature, and verification of a range of records read in
// any order close to the chain's (Verifier: bounded memory, a Problem per
// break that names the record by its reference and sequence).
//
// What it does not own: the evidence record's members (package pipeline),
// where records are published or read from (package worker, the evidence
// command), and key files (package policyset's signing key and trusted keys
// files are reused). It imports no NATS and nothing of the engine.
package evchain
