package records

import (
	"context"
	"sync"
)

// window bounds the records in flight: read and not yet written, whether
// queued, being sanitized or answered and waiting for an earlier record.
// The first free records are always admitted (so a record of any size up
// to the line cap moves); more are admitted while their count stays under
// maxN and their input bytes under maxBytes. Records of very different
// sizes finish out of order, and a wide window keeps the workers busy
// while the oldest record is still being sanitized.
type window struct {
	mu       sync.Mutex
	cond     sync.Cond
	n, bytes int // records in flight and their input bytes
	free     int // records admitted whatever their bytes
	maxN     int
	maxBytes int
}

func newWindow(free, maxN, maxBytes int) *window {
	w := &window{free: free, maxN: max(maxN, free), maxBytes: maxBytes}
	w.cond.L = &w.mu
	return w
}

func (w *window) fits(size int) bool {
	return w.n < w.free || (w.n < w.maxN && w.bytes+size <= w.maxBytes)
}

// acquire waits until a record of size input bytes fits, or ctx ends.
func (w *window) acquire(ctx context.Context, size int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.fits(size) {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.n++
	w.bytes += size
	return nil
}

// release gives back what acquire(size) took.
func (w *window) release(size int) {
	w.mu.Lock()
	w.n--
	w.bytes -= size
	w.mu.Unlock()
	w.cond.Signal()
}

// wake makes a waiting acquire look at its context again.
func (w *window) wake() {
	w.mu.Lock()
	w.cond.Broadcast()
	w.mu.Unlock()
}

// bufPool is a free list of byte buffers that keeps at most maxBytes of
// capacity and no buffer over maxBuf, so a long stream does not allocate
// a buffer a record and one large record does not stay pinned.
type bufPool struct {
	mu      sync.Mutex
	bufs    [][]byte
	bytes   int
	maxBuf  int
	maxKeep int
}

// get returns an empty buffer, from the list when it holds one.
func (p *bufPool) get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.bufs)
	if n == 0 {
		return nil
	}
	b := p.bufs[n-1]
	p.bufs[n-1] = nil
	p.bufs = p.bufs[:n-1]
	p.bytes -= cap(b)
	return b[:0]
}

// put returns b to the list unless it is too large or the list full.
func (p *bufPool) put(b []byte) {
	c := cap(b)
	if c == 0 || c > p.maxBuf {
		return
	}
	p.mu.Lock()
	if p.bytes+c <= p.maxKeep {
		p.bufs = append(p.bufs, b)
		p.bytes += c
	}
	p.mu.Unlock()
}
