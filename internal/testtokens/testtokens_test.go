package testtokens

import (
	"strings"
	"testing"
)

func TestShapes(t *testing.T) {
	if a, b := Random(1, Base62, 20), Random(1, Base62, 20); a != b {
		t.Fatalf("same seed, different values: %q %q", a, b)
	}
	if a, b := Random(1, Base62, 20), Random(2, Base62, 20); a == b {
		t.Fatalf("different seeds, same value %q", a)
	}
	g := GitHub("ghp_", 3)
	if len(g) != 40 || !strings.HasPrefix(g, "ghp_") {
		t.Fatalf("GitHub token %q: want ghp_ and 36 characters", g)
	}
	k := AWSAccessKey(4)
	if len(k) != 20 || strings.Trim(k[4:], Base32) != "" {
		t.Fatalf("AWS key %q", k)
	}
}
