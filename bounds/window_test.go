package bounds

import (
	"fmt"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := &Window{Max: 3, Width: time.Second}
	type step struct {
		key       string
		at        time.Duration
		ok, first bool
		prev      int
	}
	for i, s := range []step{
		{"a", 0, true, false, 0},
		{"a", 10 * time.Millisecond, true, false, 0},
		{"b", 20 * time.Millisecond, true, false, 0},
		{"a", 30 * time.Millisecond, true, false, 0},
		{"a", 40 * time.Millisecond, false, true, 0}, // the fourth: first refused
		{"a", 50 * time.Millisecond, false, false, 0},
		{"b", 60 * time.Millisecond, true, false, 0},   // keys are apart
		{"a", 1100 * time.Millisecond, true, false, 0}, // a new window
		{"a", 1200 * time.Millisecond, true, false, 0},
		{"a", 1300 * time.Millisecond, true, false, 0},
		{"a", 1400 * time.Millisecond, false, true, 2}, // reports the two of the last window refused before
	} {
		ok, first, _ := w.Allow(s.key, t0.Add(s.at))
		if ok != s.ok || first != s.first {
			t.Fatalf("step %d (%s at %s): ok %v first %v, want %v %v", i, s.key, s.at, ok, first, s.ok, s.first)
		}
	}
	if ok, _, _ := (&Window{}).Allow("x", t0); !ok {
		t.Fatal("a Window without Max refused")
	}
}

// The keys kept are bounded: beyond MaxKeys, new keys share one count.
func TestWindowKeysBounded(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := &Window{Max: 2, Width: time.Second, MaxKeys: 8}
	for i := range 100 {
		w.Allow(fmt.Sprint("k", i), t0)
	}
	if n := len(w.keys); n > 8 {
		t.Fatalf("%d keys kept, want at most 8", n)
	}
	// Ended windows make room again.
	if ok, _, _ := w.Allow("fresh", t0.Add(2*time.Second)); !ok {
		t.Fatal("a new key after the windows ended was refused")
	}
	if _, ok := w.keys["fresh"]; !ok {
		t.Fatal("ended windows were not forgotten")
	}
}
