package bounds

import (
	"errors"
	"testing"
)

func TestNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range All() {
		s := b.String()
		if seen[s] {
			t.Fatalf("duplicate id %q", s)
		}
		seen[s] = true
		got, ok := Parse(s)
		if !ok || got != b {
			t.Fatalf("Parse(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := Parse("nope"); ok {
		t.Fatal("Parse accepted an unknown id")
	}
}

func TestDefaultsValid(t *testing.T) {
	l := Defaults()
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if l[TextChars] != 12000 {
		t.Fatalf("text default %d, want the seed's 12000", l[TextChars])
	}
}

func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Bound
		v    int64
	}{
		{"zero nodes", Nodes, 0},
		{"negative depth", Depth, -1},
		{"huge depth", Depth, 10_001},
		{"zero output", OutputBytes, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Defaults()
			l[tc.b] = tc.v
			if err := l.Validate(); !errors.Is(err, ErrInvalidLimit) {
				t.Fatalf("Validate() = %v, want ErrInvalidLimit", err)
			}
		})
	}
}

func TestCounter(t *testing.T) {
	l := Defaults()
	l[Depth] = 2
	l[Nodes] = 3
	var c Counter
	c.Reset(&l)
	if !c.Enter() || !c.Enter() {
		t.Fatal("depth 2 refused")
	}
	if c.Enter() {
		t.Fatal("depth 3 accepted with limit 2")
	}
	if c.Depth() != 2 || c.MaxDepth() != 2 {
		t.Fatalf("depth %d max %d", c.Depth(), c.MaxDepth())
	}
	c.Leave()
	c.Leave()
	for i := 0; i < 3; i++ {
		if !c.Node() {
			t.Fatalf("node %d refused", i+1)
		}
	}
	if c.Node() {
		t.Fatal("fourth node accepted with limit 3")
	}
	if c.Nodes() != 4 {
		t.Fatalf("nodes %d", c.Nodes())
	}
	c.Reset(&l)
	if c.Nodes() != 0 || c.Depth() != 0 {
		t.Fatal("Reset kept counts")
	}
}

func TestRemaining(t *testing.T) {
	l := Defaults()
	l[TextChars] = 10
	if got := l.Remaining(TextChars, 4); got != 6 {
		t.Fatalf("Remaining = %d", got)
	}
	if got := l.Remaining(TextChars, 40); got != 0 {
		t.Fatalf("Remaining = %d", got)
	}
	if l.Over(TextChars, 10) || !l.Over(TextChars, 11) {
		t.Fatal("Over wrong at the edge")
	}
}

// TestCrossing is the table of what a crossed bound does (docs/policy.md,
// Limits): the bounds a cut would falsify always reject.
func TestCrossing(t *testing.T) {
	want := map[Bound]Crossing{
		Depth: Reject, Nodes: Reject, KeyChars: Reject, BinaryBytes: Reject, MetaBytes: Reject,
		ArrayItems: RegionAction, ObjectEntries: RegionAction, StringChars: RegionAction,
		TextChars: RegionAction, OutputBytes: RegionAction,
	}
	for _, b := range All() {
		w, ok := want[b]
		if !ok {
			t.Fatalf("%s: no expected crossing in the table", b)
		}
		if got := b.Crossing(); got != w {
			t.Fatalf("%s.Crossing() = %d, want %d", b, got, w)
		}
	}
	if Bound(200).Crossing() != Reject {
		t.Fatal("an unknown bound does not reject")
	}
}

func TestOutputBudget(t *testing.T) {
	for _, tc := range []struct {
		name         string
		depth, bytes int64
		want         int64
	}{
		{"defaults", 64, 16 << 20, 16<<20 - 4096 - 256},
		{"deep", 10_000, 16 << 20, 16<<20 - 4096 - 40_000},
		{"small output: half", 64, 6000, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Defaults()
			l[Depth], l[OutputBytes] = tc.depth, tc.bytes
			if got := l.OutputBudget(); got != tc.want {
				t.Fatalf("OutputBudget() = %d, want %d", got, tc.want)
			}
		})
	}
}
