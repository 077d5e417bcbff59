// Package toolcat is the tool catalog: the definitions MCP servers publish
// with tools/list (name, inputSchema, outputSchema, annotations, ...) kept in
// the NATS KV bucket mcp-tools (wire.BucketTools), one entry per tool under
// the key <server>.<tool>, so that every worker of the fleet validates
// arguments and structured results against the same schemas.
//
// Keys: the server name must be one subject token (wire.CheckToken:
// [A-Za-z0-9_-], 1 to 64 bytes). A tool name made only of [A-Za-z0-9_-] is
// the second token as is; any other name (dots, spaces, non-ASCII, ...)
// is encoded as "=" followed by its unpadded base64url UTF-8 bytes. "=" is
// in the KV key charset but never in a plain name, so the encoding is
// deterministic and no two names share a key. Tool names are 1 to 128
// bytes of UTF-8 (the MCP limit).
//
// Put takes a tools/list result — bare {"tools":[...]} or a JSON-RPC
// response {"jsonrpc":"2.0","id":…,"result":{"tools":[...]}} — checks every
// tool (name, inputSchema present and compiling, outputSchema compiling
// when present, size limits) and stores them all, or none when one fails
// (fail closed: a catalog never holds a schema that cannot be enforced).
// Put upserts: tools that a server no longer lists stay until Delete
// (a tools/list may be paginated; one page does not say what was removed).
//
// Get returns a tool's definition with its compiled input and output
// schemas (through a schema.Cache keyed by schema digest). Decoded entries
// are cached locally, and so is a tool's absence (the results of a tool no
// tools/list stored would otherwise read the bucket one by one); a KV watch
// on the bucket invalidates both on every update or delete, and when the
// watch is not running Get reads the bucket every time.
package toolcat
