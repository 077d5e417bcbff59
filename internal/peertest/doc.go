// Package peertest drives real MCP servers for the integration tests: it
// installs the official npm servers pinned in npm/package.json and
// npm/package-lock.json (the one place their versions are named) into a
// cache outside the repository, starts one over stdio as a Peer (newline
// delimited JSON-RPC), and compares a raw result with its sanitized form
// member by member (Compare) under the transforms docs/pipeline.md
// documents (Documented: invisible characters removed, NFKC; labels; our
// _meta keys; redaction and neutralization markers).
//
// The cache is $MCP_SANITIZE_NPM_CACHE, or mcp-sanitize/npm under
// os.UserCacheDir(); each lock file gets a directory of its own, named by
// the SHA-256 of the lock, filled by `npm ci` once and then reused. Where
// node, npm or the registry is missing the tests skip with a message that
// says which, unless MCP_SANITIZE_PEERS=require (CI) makes that a failure.
//
// Only tests import it (internal/archtest); it imports package testing and
// is linked into no binary.
package peertest
