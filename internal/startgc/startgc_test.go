package startgc

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the current GOGC (SetGCPercent has no getter).
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestRaisedPercent(t *testing.T) {
	for _, c := range []struct {
		name string
		orig int
		heap uint64
		want int
	}{
		{"empty heap keeps GOGC", 100, 0, 100},
		{"below the minimum goal keeps GOGC", 100, 1 << 20, 100},
		{"exactly the minimum goal keeps GOGC", 100, 2 << 20, 100},
		{"7 MiB at GOGC=100: goal 14 MiB", 100, 7 << 20, 350},
		{"7 MiB at GOGC=50: goal 10.5 MiB", 50, 7 << 20, 262},
		{"7 MiB at GOGC=400: goal 35 MiB", 400, 7 << 20, 875},
		{"3 MiB at GOGC=400: below its 16 MiB minimum", 400, 3 << 20, 400},
		{"capped", 100, 1 << 42, 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := raisedPercent(c.orig, c.heap); got != c.want {
				t.Fatalf("raisedPercent(%d, %d) = %d, want %d", c.orig, c.heap, got, c.want)
			}
		})
	}
}

var keep [][]byte

func TestHoldThenRelease(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment: Hold does nothing (TestHoldLeavesGOGCSet)")
	}
	orig := gcPercent()
	defer debug.SetGCPercent(orig)
	if orig < 0 {
		t.Skip("the collector is off in this test process")
	}
	release := Hold()
	if p := gcPercent(); p != -1 {
		t.Fatalf("while held GOGC = %d, want -1 (off)", p)
	}
	// A start-up heap well above the minimum goal, live until the end.
	for i := 0; i < 16; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
	release()
	if p := gcPercent(); p <= orig {
		t.Fatalf("after release with a 16 MiB heap GOGC = %d, want above %d until a collection", p, orig)
	}
	release() // a second call does nothing
	// The first collection puts the process's own GOGC back (through a
	// cleanup, which runs on its own goroutine: poll).
	deadline := time.Now().Add(30 * time.Second)
	for gcPercent() != orig {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC = %d after collections, want %d back", gcPercent(), orig)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	keep = nil
}

func TestReleaseSmallHeapRestoresAtOnce(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment")
	}
	orig := gcPercent()
	defer debug.SetGCPercent(orig)
	if orig < 0 {
		t.Skip("the collector is off in this test process")
	}
	runtime.GC() // a small heap: the test binary's own
	release := Hold()
	release()
	if p := gcPercent(); p != orig && raisedPercent(orig, heapInUse()) == orig {
		t.Fatalf("GOGC = %d after releasing a small heap, want %d", p, orig)
	}
}

func TestHoldLeavesGOGCSet(t *testing.T) {
	t.Setenv("GOGC", "100")
	orig := gcPercent()
	defer debug.SetGCPercent(orig)
	release := Hold()
	if p := gcPercent(); p != orig {
		t.Fatalf("with GOGC in the environment Hold changed GOGC to %d (was %d)", p, orig)
	}
	release()
	if p := gcPercent(); p != orig {
		t.Fatalf("with GOGC in the environment release changed GOGC to %d (was %d)", p, orig)
	}
}
