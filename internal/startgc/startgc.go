package startgc

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// heapMinimum is the runtime's smallest heap goal at GOGC=100
// (defaultHeapMinimum in runtime/mgcpacer.go); it scales with GOGC.
const heapMinimum = 4 << 20

// heapObjects is the runtime metric of the bytes the heap's objects
// occupy, live or not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Hold turns the garbage collector off and returns the function that turns
// it back on; call it once the start-up tables are built (calling it again
// does nothing). With GOGC set in the environment, Hold changes nothing.
func Hold() (release func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	orig := debug.SetGCPercent(-1)
	if orig < 0 {
		// Already off (a caller's choice): leave it so.
		debug.SetGCPercent(orig)
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { resume(orig) }) }
}

// resume turns the collector on with a first goal of twice the heap in
// use (GOGC=orig's goal for that heap) and restores GOGC=orig once a
// collection has run.
func resume(orig int) {
	p := raisedPercent(orig, heapInUse())
	if p == orig {
		debug.SetGCPercent(orig)
		return
	}
	// The collector sets the goal of the next cycle from the heap it
	// marked; the sentinel is unreachable from here on, so the first cycle
	// that runs queues its cleanup, which puts GOGC back.
	sentinel := &struct {
		_ *byte
		_ [8]byte
	}{}
	runtime.AddCleanup(sentinel, func(orig int) { debug.SetGCPercent(orig) }, orig)
	debug.SetGCPercent(p)
}

// heapInUse is the bytes the heap's objects occupy (0 if the runtime does
// not report it: then GOGC is simply restored).
func heapInUse() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
}

// raisedPercent is the GOGC whose minimum goal (heapMinimum*p/100) is the
// goal GOGC=orig gives a measured heap of heap bytes: heap*(1+orig/100).
// It is never below orig.
func raisedPercent(orig int, heap uint64) int {
	goal := heap + heap*uint64(orig)/100
	p := goal * 100 / heapMinimum
	if p <= uint64(orig) {
		return orig
	}
	const most = 1 << 20 // far beyond any start-up heap; SetGCPercent takes an int32
	if p > most {
		p = most
	}
	return int(p)
}
