package resgate

import (
	"context"
	"errors"
	"strings"
)

// PrefixAuthorizer is a local Authorizer for a single process without an
// authorization service (sanitize-worker proxy and scan without NATS,
// --allow-resource): it allows a canonical URI equal to one of its
// prefixes, or under a prefix that ends with "/". Both phases are asked
// the same question; the opened object is not looked at. It is an
// allow-list of the operator's, not a policy of the deployment: a fleet
// asks its authorization service instead (worker.NATSAuthorizer).
//
// Prefixes are compared with the canonical URI the gate computed
// (package resuri), so a traversal, an encoded separator or a case
// variant never reaches the comparison; a prefix that is not itself in
// canonical form matches nothing.
type PrefixAuthorizer struct {
	prefixes []string
}

// ErrPrefix is what NewPrefixAuthorizer's error wraps.
var ErrPrefix = errors.New("resgate: invalid allow-list prefix")

// NewPrefixAuthorizer checks the prefixes: each has a scheme, no
// backslash, no "." or ".." segment, no control or space character, no
// percent-encoded separator.
func NewPrefixAuthorizer(prefixes []string) (*PrefixAuthorizer, error) {
	a := &PrefixAuthorizer{}
	for _, p := range prefixes {
		scheme, rest, ok := strings.Cut(p, ":")
		if !ok || scheme == "" || rest == "" || len(p) > 4096 {
			return nil, ErrPrefix
		}
		for i := 0; i < len(p); i++ {
			if p[i] <= ' ' || p[i] == 0x7f || p[i] == '\\' {
				return nil, ErrPrefix
			}
		}
		lp := strings.ToLower(p)
		if strings.Contains(lp, "%2f") || strings.Contains(lp, "%5c") || strings.Contains(lp, "%00") || strings.Contains(lp, "%2e") {
			return nil, ErrPrefix
		}
		for _, seg := range strings.Split(rest, "/") {
			if seg == "." || seg == ".." {
				return nil, ErrPrefix
			}
		}
		a.prefixes = append(a.prefixes, p)
	}
	return a, nil
}

// Authorize implements Authorizer.
func (a *PrefixAuthorizer) Authorize(_ context.Context, req AuthzRequest) (Decision, error) {
	for _, p := range a.prefixes {
		if req.CanonicalURI == p || strings.HasSuffix(p, "/") && strings.HasPrefix(req.CanonicalURI, p) {
			return Decision{Outcome: OutcomeAllow}, nil
		}
	}
	return Decision{Outcome: "DENY"}, nil
}
