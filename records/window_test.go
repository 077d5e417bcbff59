package records

import (
	"context"
	"errors"
	"testing"
)

func TestWindowFits(t *testing.T) {
	for _, tc := range []struct {
		name           string
		free, maxN     int
		maxBytes       int
		n, bytes, size int
		want           bool
	}{
		{name: "free-admits-any-size", free: 4, maxN: 10, maxBytes: 100, n: 3, bytes: 1000, size: 1 << 20, want: true},
		{name: "extra-under-budget", free: 4, maxN: 10, maxBytes: 100, n: 5, bytes: 50, size: 50, want: true},
		{name: "extra-over-budget", free: 4, maxN: 10, maxBytes: 100, n: 5, bytes: 50, size: 51, want: false},
		{name: "extra-count-full", free: 4, maxN: 10, maxBytes: 100, n: 10, bytes: 0, size: 0, want: false},
		{name: "maxN-below-free", free: 4, maxN: 2, maxBytes: 0, n: 3, bytes: 0, size: 7, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWindow(tc.free, tc.maxN, tc.maxBytes)
			w.n, w.bytes = tc.n, tc.bytes
			if got := w.fits(tc.size); got != tc.want {
				t.Fatalf("fits(%d) = %v, want %v", tc.size, got, tc.want)
			}
		})
	}
}

// A full window makes acquire wait until a release, or until the context
// ends.
func TestWindowWaits(t *testing.T) {
	w := newWindow(1, 1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := context.AfterFunc(ctx, w.wake)
	defer stop()
	if err := w.acquire(ctx, 10); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- w.acquire(ctx, 10) }()
	w.release(10)
	if err := <-got; err != nil {
		t.Fatalf("after release: %v", err)
	}
	go func() { got <- w.acquire(ctx, 10) }()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	if w.n != 1 || w.bytes != 10 {
		t.Fatalf("in flight %d records %d bytes, want 1 and 10", w.n, w.bytes)
	}
}

func TestBufPoolBounds(t *testing.T) {
	p := &bufPool{maxBuf: 100, maxKeep: 150}
	p.put(make([]byte, 0, 101)) // too large to keep
	p.put(make([]byte, 0, 80))
	p.put(make([]byte, 0, 80)) // over maxKeep
	p.put(nil)
	if len(p.bufs) != 1 || p.bytes != 80 {
		t.Fatalf("kept %d buffers, %d bytes", len(p.bufs), p.bytes)
	}
	b := append(p.get(), 'x')
	if cap(b) != 80 || len(b) != 1 || p.bytes != 0 {
		t.Fatalf("got cap %d len %d, pool %d bytes", cap(b), len(b), p.bytes)
	}
	if b := p.get(); b != nil {
		t.Fatalf("empty pool gave a buffer of cap %d", cap(b))
	}
}
