package elicit

import (
	"strings"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// The URL guard asks the scanners' catalog, the one the pipeline redacts
// with, whether a part of an elicitation URL holds a secret. The catalog is
// compiled once per process with every built-in secret rule, tags off and
// no allowlist: a documentation example such as AKIAIOSFODNN7EXAMPLE in a
// URL shown to the user is refused like a live key.

var urlCatalog = sync.OnceValues(func() (*scanners.Catalog, error) {
	return scanners.NewCatalog(scanners.CatalogOptions{DisableTags: true, Allowlist: []string{}})
})

// redactors recycles Redactors (each holds a small buffer); a Redactor is
// reset by its final Append.
var redactors sync.Pool

// catalogSecret reports whether the catalog finds a secret in s, after the
// scanners' Normalizer (so invisible characters and look-alikes hide
// nothing). It fails closed: if the catalog cannot be built, every value
// counts as a secret.
func catalogSecret(s string) bool {
	cat, err := urlCatalog()
	if err != nil {
		return true
	}
	var n scanners.Normalizer
	text := n.Append(nil, []byte(strings.ToValidUTF8(s, "\uFFFD")), true)
	r, _ := redactors.Get().(*scanners.Redactor)
	if r == nil {
		r = cat.NewRedactor(nil)
	}
	var fs [4]scanners.Finding
	_, found := r.Append(nil, text, true, fs[:0])
	redactors.Put(r)
	for _, f := range found {
		if f.Kind == scanners.KindSecret {
			return true
		}
	}
	return false
}
