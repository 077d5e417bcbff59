package scanners

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	return ru.Minflt
}

// TestPrefault: prefault leaves the memory as it was (zero where fresh,
// written bytes kept, bytes around the advised pages untouched) and, when
// the kernel takes the advice, writing the advised pages afterwards costs
// (next to) no page fault.
func TestPrefault(t *testing.T) {
	const n = 4 << 20
	b := make([]byte, n+100) // fresh pages from the OS, not yet touched
	b[0], b[n+99] = 1, 2     // an unaligned head and tail, already written
	p := unsafe.Pointer(&b[0])
	if !prefault(p, len(b)) {
		t.Skip("the kernel does not take MADV_POPULATE_WRITE")
	}
	if b[0] != 1 || b[n+99] != 2 {
		t.Fatalf("head %d tail %d changed", b[0], b[n+99])
	}
	for i := 1; i < n+99; i++ {
		if b[i] != 0 {
			t.Fatalf("byte %d is %d after prefault", i, b[i])
		}
	}
	if raceEnabled {
		return // the race detector's shadow memory faults on its own
	}
	// The count is the thread's: the goroutine keeps its thread.
	done := make(chan int64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c := make([]byte, n)
		prefault(unsafe.Pointer(&c[0]), n)
		before := minorFaults(t)
		for i := 0; i < n; i += 4096 {
			c[i] = 1
		}
		done <- minorFaults(t) - before
	}()
	if faults := <-done; faults > n/4096/8 {
		t.Errorf("%d minor faults writing %d prefaulted pages", faults, n/4096)
	}
}

// TestPrefaultNoWholePage: a span inside one page advises nothing.
func TestPrefaultNoWholePage(t *testing.T) {
	var a [64]byte
	if prefault(unsafe.Pointer(&a[0]), len(a)) {
		t.Fatal("advised a span with no whole page")
	}
}
