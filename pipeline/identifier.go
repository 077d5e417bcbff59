package pipeline

import (
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Identifiers that reach a label, evidence or _meta (the tool name, the
// server, tenant and request id of MessageInfo) are untrusted text like any
// other: a tool can be named "ghp_…" and a request id can be an API key a
// client pasted. safeLabel restricts them to [A-Za-z0-9_.:/-]; scrubIdentifier
// then runs the catalog over what is left and replaces each secret it finds
// by identRedacted and the rule id, so no secret reaches a label, a log or an
// evidence record. Tags are not replaced: their '<' and '>' are gone already.

// identRedacted stands for a secret found in an identifier; with the rule id
// after it, it stays inside the label byte set.
const identRedacted = "REDACTED:"

// maxIdentScratch is the largest scratch buffer a pass keeps for
// scrubIdentifier: identifiers are header values, a larger one is scanned
// in a buffer of its own.
const maxIdentScratch = 4 << 10

// scrubIdentifier returns s (label-safe) with every secret the catalog finds
// in it replaced, and how many it replaced. r is reset before and after.
// scratch holds the redactor's input and output between calls (a pass's),
// so that an identifier costs no allocation when it holds no secret.
func scrubIdentifier(r *scanners.Redactor, cat *scanners.Catalog, s string, fs []scanners.Finding, scratch *[2][]byte) (string, int, []scanners.Finding) {
	if s == "" {
		return s, 0, fs
	}
	r.Reset()
	defer r.Reset()
	in := append(scratch[0][:0], s...)
	var out []byte
	out, fs = r.Append(scratch[1][:0], in, true, fs[:0])
	if cap(in) <= maxIdentScratch && cap(out) <= maxIdentScratch {
		scratch[0], scratch[1] = in, out
	}
	n := 0
	for _, f := range fs {
		if f.Kind == scanners.KindSecret {
			n++
		}
	}
	if n == 0 {
		return s, 0, fs
	}
	// Rebuild from the findings' offsets: the Redactor's markers hold '['
	// and ']', which a label may not.
	var b strings.Builder
	last := int64(0)
	for _, f := range fs {
		if f.Kind != scanners.KindSecret || f.Offset < last || f.Offset+int64(f.Length) > int64(len(s)) {
			continue
		}
		b.WriteString(s[last:f.Offset])
		b.WriteString(identRedacted)
		b.WriteString(cat.RuleName(f.Rule))
		last = f.Offset + int64(f.Length)
	}
	b.WriteString(s[last:])
	_ = out
	return safeLabel(b.String()), n, fs
}

// scrubIdentifiers replaces the secrets in the pass's identifiers (already
// label-safe in p.ev) before anything uses them.
func (p *pass) scrubIdentifiers() {
	for _, id := range []*string{&p.ev.Tool, &p.ev.Server, &p.ev.Tenant, &p.ev.RequestID} {
		var n int
		*id, n, p.fs = scrubIdentifier(p.red, p.e.cat, *id, p.fs, &p.idScratch)
		p.ev.IdentifierSecrets += int64(n)
	}
	p.fs = p.fs[:0]
}
