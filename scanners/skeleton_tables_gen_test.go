package scanners

import (
	"testing"
	"unicode"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/skeldata"
)

// TestSkeletonTablesGenerated checks the tables assembled from the
// generated data (skeleton_tables_gen.go) against their specification
// (skeldata) over every code point and every HTML named reference. When it
// fails, run go generate ./scanners.
func TestSkeletonTablesGenerated(t *testing.T) {
	if skelGenConfusables != skeldata.ConfusablesVersion {
		t.Errorf("generated from confusables %s, skeldata reads %s: run go generate ./scanners", skelGenConfusables, skeldata.ConfusablesVersion)
	}
	tab := skelTab()
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		want, ok := skeldata.Skeleton(r)
		if !ok {
			want = 0
		}
		if got := tab.target(r); got != want {
			t.Fatalf("%U: generated %q, skeldata %q: run go generate ./scanners", r, got, want)
		}
		if want != 0 {
			var b [4]byte
			n := encodeRuneTest(b[:], r)
			if !tab.lead[b[0]] || n < 2 {
				t.Fatalf("%U: lead byte %#x not marked", r, b[0])
			}
		}
		if got, want := refTarget(r), refTargetSpec(r); got != want {
			t.Fatalf("reference to %U: view %q, skeldata %q", r, got, want)
		}
	}
	for c := rune(0); c < 0x80; c++ {
		if got, want := refTarget(c), refTargetSpec(c); got != want {
			t.Fatalf("reference to %q: view %q, skeldata %q", c, got, want)
		}
	}
	es, err := skeldata.Entities()
	if err != nil {
		t.Skipf("the Go toolchain's html source is not readable here (%v): the entity table is not checked", err)
	}
	if len(es) != len(tab.ents) {
		t.Errorf("%d entities generated, skeldata has %d: run go generate ./scanners", len(tab.ents), len(es))
	}
	for _, e := range es {
		if got := tab.ents[e.Name]; got != e.To {
			t.Errorf("&%s: generated %q, skeldata %q: run go generate ./scanners", e.Name, got, e.To)
		}
	}
}

func refTargetSpec(r rune) byte {
	if c, ok := skeldata.RefTarget(r); ok {
		return c
	}
	return 0
}

func encodeRuneTest(b []byte, r rune) int {
	s := string(r)
	return copy(b, s)
}

// TestSkeletonTableSize keeps the generated table what it is documented
// to be: small, and only ASCII targets.
func TestSkeletonTableSize(t *testing.T) {
	if n := len(skelPairs) / 4; n < 300 || n > 1000 {
		t.Errorf("%d pairs: the restriction to ASCII skeletons (skeldata.Skeleton) no longer holds", n)
	}
	for i := 3; i < len(skelPairs); i += 4 {
		if !viewTargets[skelPairs[i]] {
			t.Errorf("pair %d maps to %q, not a target", i/4, skelPairs[i])
		}
	}
}

// TestSkeletonLead2: every rune with a target passes the two-byte filter
// of the view.
func TestSkeletonLead2(t *testing.T) {
	tab := skelTab()
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if tab.target(r) == 0 {
			continue
		}
		s := string(r)
		if tab.lead2[s[0]]>>(s[1]&0x3F)&1 == 0 {
			t.Fatalf("%U is filtered out", r)
		}
	}
}
