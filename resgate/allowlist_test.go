package resgate

import (
	"context"
	"errors"
	"testing"
)

func TestPrefixAuthorizer(t *testing.T) {
	a, err := NewPrefixAuthorizer([]string{"https://docs.example.com/public/", "repo://alpha/README.md"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		uri  string
		want bool
	}{
		{"https://docs.example.com/public/a.html", true},
		{"https://docs.example.com/public/", true},
		{"https://docs.example.com/publicity", false},
		{"https://docs.example.com/private/a.html", false},
		{"repo://alpha/README.md", true},
		{"repo://alpha/README.md.bak", false},
		{"repo://alpha/", false},
	} {
		d, err := a.Authorize(context.Background(), AuthzRequest{CanonicalURI: c.uri})
		if err != nil || (d.Outcome == OutcomeAllow) != c.want {
			t.Errorf("%s: %v %v, want allow=%v", c.uri, d, err, c.want)
		}
	}
	for _, bad := range []string{"", "nocolon", "https:", "https://x/../y/", "https://x/%2e%2e/", "https://x/a%2Fb/", "https://x/ a", `https://x\y/`, "https://x/./"} {
		if _, err := NewPrefixAuthorizer([]string{bad}); !errors.Is(err, ErrPrefix) {
			t.Errorf("%q accepted", bad)
		}
	}
	none, _ := NewPrefixAuthorizer(nil)
	if d, _ := none.Authorize(context.Background(), AuthzRequest{CanonicalURI: "https://x/"}); d.Outcome == OutcomeAllow {
		t.Fatal("an empty allow-list allowed")
	}
}
