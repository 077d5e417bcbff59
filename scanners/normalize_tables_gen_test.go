package scanners

import (
	"reflect"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/normdata"
)

// entryFill computes each block from normdata.Entry: the full build over
// every code point that the generated table replaces.
func entryFill(base rune, blk *[normBlockSize]uint8, out *[normBlockSize]string) bool {
	for k := range normBlockSize {
		blk[k], out[k] = normdata.Entry(base + rune(k))
	}
	return false
}

// TestNormTableGenerated checks that the table assembled from the generated
// data (normalize_tables_gen.go) is the table built from the Unicode data
// the module links, entry for entry and block for block. When it fails,
// run go generate ./scanners.
func TestNormTableGenerated(t *testing.T) {
	if uv, nv := normdata.Versions(); uv != normGenUnicode || nv != normGenNorm {
		t.Errorf("generated from Unicode %s (norm %s), the module links %s (norm %s): run go generate ./scanners", normGenUnicode, normGenNorm, uv, nv)
	}
	full := assembleNormTable(entryFill)
	got := normTab()
	if !reflect.DeepEqual(got, full) {
		for r := rune(0); r <= 0x10FFFF; r++ {
			if got.lookup(r) != full.lookup(r) {
				t.Fatalf("%U: generated entry %#x, Unicode data %#x: run go generate ./scanners", r, got.lookup(r), full.lookup(r))
			}
			if got.lookup(r)&entChanged != 0 && got.single(r) != full.single(r) {
				t.Fatalf("%U: generated NFKC %+q, Unicode data %+q: run go generate ./scanners", r, got.single(r), full.single(r))
			}
		}
		t.Fatal("the generated table differs from the Unicode data in its layout: run go generate ./scanners")
	}
}

// TestNormClassesAgree checks that normdata numbers the classes as
// NormClass does.
func TestNormClassesAgree(t *testing.T) {
	for _, c := range []struct {
		n NormClass
		d uint8
	}{
		{NormZeroWidth, normdata.ZeroWidth},
		{NormBidi, normdata.Bidi},
		{NormTagChar, normdata.TagChar},
		{NormVariationSelector, normdata.VariationSelector},
		{NormControl, normdata.Control},
		{NormDefaultIgnorable, normdata.DefaultIgnorable},
	} {
		if uint8(c.n) != c.d {
			t.Errorf("%v is %d here, %d in normdata", c.n, c.n, c.d)
		}
		if uint8(c.n) > entClassMask {
			t.Errorf("%v does not fit the entry's class bits", c.n)
		}
	}
}

// BenchmarkNormTableBuild measures what the first Normalizer of a process
// pays: the table assembled from the generated data, against the full
// build from the Unicode data.
func BenchmarkNormTableBuild(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buildNormTable()
		}
	})
	b.Run("unicode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			assembleNormTable(entryFill)
		}
	})
}
