// Package resgate guards resources/read results (seed G003) before the
// normal pass: it canonicalizes the requested URI and every content's URI
// (package resuri), asks the deployment's authorization hook for the
// requested resource and, for local files, for the opened object, and
// verifies the path broker's signed receipt of every local-file content
// (package receipt) against the content it carries.
//
// What it owns: the resources part of the policy (Policy), the
// Authorizer interface and its request and answer, and the rewrite of an
// accepted result (canonical URIs, the policy's MIME type, the receipt
// replaced by its digest). Every refusal is a *Denial whose reason goes to
// evidence; the public reply is one non-enumerating error
// (wire.CodeResourceUnavailable), whatever the reason.
//
// What it does not own: reading files (the operator's broker does; there
// is no path check of ours in place of a receipt), the transport of the
// authorization hook (worker.NATSAuthorizer), and the string sanitization
// the contents then get (package pipeline).
package resgate
