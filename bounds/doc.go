// Package bounds is the single table of the limits a message is held to:
// each bound's stable id, its default, what it counts and what happens when
// it is crossed (Bound.Crossing), the output reserve (Limits.OutputBudget),
// and the document-wide counter of depth and nodes (Counter).
//
//	bound id        default    counts                                    crossed
//	depth           64         nesting of arrays and objects             reject
//	nodes           1,000,000  values of any kind                        reject
//	array-items     100,000    items of one array                        region action
//	object-entries  10,000     members of one object                     region action
//	string-chars    1 Mi       code points of one string, sanitized      region action
//	text-chars      12,000     code points of one text block, sanitized  region action
//	key-chars       1024       code points of one object key             reject
//	output-bytes    16 MiB     bytes of the sanitized message            region action
//	binary-bytes    20 MiB     decoded bytes of one base64 payload       reject
//	meta-bytes      64 KiB     bytes of one tool _meta held for merging  reject
//
// Reject replaces the message with an error result (BOUND_EXCEEDED and the
// bound's id). Region action is the policy's action for the region where
// the bound is crossed (pipeline.Actions: text, structured, other; a _meta
// always rejects): truncate cuts the string at the limit and appends a
// note, or drops the rest of the container and counts it, and marks the
// message truncated; reject fails it. The body of a message may take
// Limits.OutputBudget bytes, so that what closes it always fits in
// output-bytes.
//
// The package counts what is document-wide (depth, nodes). The counts of
// one container and of one string live beside the pass's own state for it
// (the pipeline's frames and string chain) and are checked here with
// Limits.Over and Limits.Remaining: one compare each, no call and no copy
// per member or per character. It knows nothing of JSON syntax, MCP or
// policy files.
//
// Caps that are not options, fixed in the code beside what they guard:
// a number token is at most 4096 bytes (jsonlex.DefaultMaxNumber; crossing
// rejects with number-length); a JSON-RPC id kept for an error result 128
// bytes; the text kept to classify a tool error 64 KiB and its code 64
// bytes; a mimeType compared with the allow-list 256 bytes; 64 bound hits
// and pipeline.Policy.MaxFindings findings are listed one by one in
// evidence; 1024 mirrored text blocks are compared per result. The
// policy's structured-bytes limit (pipeline.DefaultStructuredBytes, 4 MiB;
// crossing rejects) bounds what the outputSchema path holds; it is the
// pipeline's, as the structured path is.
package bounds
