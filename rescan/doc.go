// Package rescan replays archived tool outputs through a policy and a
// baseline and reports what the policy changes that the baseline did not
// (`sanitize-worker rescan`, docs/rescan.md).
//
// What it owns: reading a stream of records once and running it through
// the record engine (package records, the same pass as `scan --jsonl`)
// under both policies at once, on all cores, with the records in flight
// bounded; comparing the two evidence records of each record rule by rule;
// and the report (per rule and per tenant, record references and finding
// fingerprints, findings over time) as JSON, Markdown and an SVG chart.
// A report never holds record content: rule ids, counts, line numbers or
// stream sequences, tenants restricted to a token, keyed fingerprints.
//
// What it does not own: the pass (pipeline), the record format and its
// errors (records), where records come from (a file, or the archive stream
// read by package worker) and the command line.
package rescan
