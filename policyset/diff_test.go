package policyset

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

func TestDiff(t *testing.T) {
	parse := func(s string) *pipeline.Policy {
		p, err := pipeline.ParsePolicy([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := parse("version: v1\nlimits: {text-chars: 100}\n")
	b := parse("version: v2\nlimits: {text-chars: 200, depth: 10}\nlabel: {disabled: false}\nrules: {disabled: [generic-sk]}\n")
	got, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Pointer: "/limits/depth", New: "10"},
		{Pointer: "/limits/text-chars", Old: "100", New: "200"},
		{Pointer: "/rules/disabled", New: `["generic-sk"]`},
		{Pointer: "/version", Old: `"v1"`, New: `"v2"`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if same, _ := Diff(a, a); len(same) != 0 {
		t.Fatalf("a policy differs from itself: %+v", same)
	}
	// A field set to its default is no change.
	if d, _ := Diff(parse("version: v1\nactions: {text: truncate}\n"), parse("version: v1\n")); len(d) != 0 {
		t.Fatalf("default spelled out differs: %+v", d)
	}
}
