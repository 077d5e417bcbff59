package scanners

import "testing"

// BenchmarkNewCatalog is the start-up cost of the default catalog: rules,
// keyword automaton and marker checks.
func BenchmarkNewCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewCatalog(CatalogOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewAutomaton is the keyword automaton of the default catalog alone.
func BenchmarkNewAutomaton(b *testing.B) {
	c, err := NewCatalog(CatalogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var kws []string
	for _, r := range c.Rules() {
		kws = append(kws, r.Keywords...)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newAutomaton(kws); err != nil {
			b.Fatal(err)
		}
	}
}
