// Package resuri parses and canonicalizes MCP resource URIs (seed G003).
//
// A resource URI is untrusted input: a server, a model or a client may
// have written it. Parse takes a string and either returns its canonical
// form (scheme, authority, decoded path segments, the relative path a
// filesystem broker is asked for, and the canonical URI to show and to
// authorize) or a *Error with a stable Reason; no other outcome exists.
//
// What it owns:
//
//   - The grammar of the configured schemes (Options.Schemes): root-alias
//     schemes (the seed's aidefend-file://alias/path, where the alias names
//     a root id of the signed policy), file:// URIs under configured roots,
//     https:// URIs, and custom hierarchical schemes.
//   - The rules on every path segment: no empty, "." or ".." segment; no
//     encoded separator or NUL (%2F, %5C, %00); no backslash, NUL or
//     control character; no double encoding (a decoded segment that still
//     holds %XX); valid UTF-8 after decoding; NFC only; no segment whose
//     compatibility form (NFKC) is "." or ".." or holds a separator
//     (fullwidth dots, division slash and the like); and the length limits.
//   - RFC 6570 URI templates (template.go): levels 1 to 4 are expanded, and
//     the expansion is then parsed like any other URI, so a template can
//     never reach what a plain URI may not.
//
// What it does not own: authorization (package resgate asks the
// deployment's hook), reading files (the operator's path broker does) and
// receipts (package receipt). It knows nothing of NATS or MCP message
// shapes: a string in, a canonical form or a typed error out.
package resuri
