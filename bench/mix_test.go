package bench

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestMix(t *testing.T) {
	docs := Mix(MixOptions{Seed: 7, Records: 600})
	if len(docs) != 600 {
		t.Fatalf("got %d records, want 600", len(docs))
	}
	var sizes []int
	schemas, planted := 0, 0
	for i, d := range docs {
		if !json.Valid(d.JSON) {
			t.Fatalf("record %d is not JSON", i)
		}
		sizes = append(sizes, len(d.JSON))
		if d.OutputSchema != nil {
			schemas++
		}
		if len(d.Planted) > 0 {
			planted++
		}
	}
	slices.Sort(sizes)
	if med := sizes[len(sizes)/2]; med < 5<<10 || med > 12<<10 {
		t.Errorf("median size %d, want about 8 KiB", med)
	}
	if sizes[0] < 512 || sizes[len(sizes)-1] > 80<<10 {
		t.Errorf("sizes from %d to %d, want about 1-64 KiB", sizes[0], sizes[len(sizes)-1])
	}
	// One in five text records is a code search; images replace one in six.
	if schemas < 80 || schemas > 130 {
		t.Errorf("%d of 600 records carry an outputSchema, want about a fifth of the text records", schemas)
	}
	if planted != 150 {
		t.Errorf("%d records carry planted items, want 150 (one in four)", planted)
	}
	again := Mix(MixOptions{Seed: 7, Records: 600})
	for i := range docs {
		if string(docs[i].JSON) != string(again[i].JSON) {
			t.Fatalf("record %d differs between two runs with the same seed", i)
		}
	}
}
