package bounds

import (
	"sync"
	"time"
)

// Window is a rate limit per key in fixed windows: at most Max events of
// one key in each window of Width. Over it, an event is refused; the first
// refused event of a window says so (first), so its caller writes one
// record per window, not one per event. Nothing is queued. The keys it
// keeps are bounded (MaxKeys, default DefaultWindowKeys): when full, the
// keys whose window has ended are forgotten, and a key that still finds no
// room is counted under one shared overflow key, so memory never grows
// with the number of keys. It is safe for concurrent use.
type Window struct {
	Max     int           // events allowed per window; 0 or less: no limit
	Width   time.Duration // length of a window; 0 or less: one second
	MaxKeys int           // keys kept; 0 or less: DefaultWindowKeys

	mu   sync.Mutex
	keys map[string]*windowCount
}

// DefaultWindowKeys bounds the keys a Window keeps by default.
const DefaultWindowKeys = 4096

// overflowKey is where keys beyond MaxKeys are counted together.
const overflowKey = "\x00overflow"

type windowCount struct {
	start   time.Time
	n       int
	dropped int
}

// Allow counts one event of key at now. ok is false when the event is over
// the limit; first is true for the first refused event of the window, and
// then prev is how many events the key's previous window refused (0 when
// none), for a record that covers them.
func (w *Window) Allow(key string, now time.Time) (ok, first bool, prev int) {
	if w.Max <= 0 {
		return true, false, 0
	}
	width := w.Width
	if width <= 0 {
		width = time.Second
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keys == nil {
		w.keys = map[string]*windowCount{}
	}
	c := w.keys[key]
	if c == nil {
		max := w.MaxKeys
		if max <= 0 {
			max = DefaultWindowKeys
		}
		max-- // room for the overflow key
		if len(w.keys) >= max {
			for k, v := range w.keys {
				if now.Sub(v.start) >= width {
					delete(w.keys, k)
				}
			}
		}
		if len(w.keys) >= max {
			key = overflowKey
			c = w.keys[key]
		}
		if c == nil {
			c = &windowCount{start: now}
			w.keys[key] = c
		}
	}
	if now.Sub(c.start) >= width {
		prev = c.dropped
		c.start, c.n, c.dropped = now, 0, 0
	}
	c.n++
	if c.n <= w.Max {
		return true, false, 0
	}
	c.dropped++
	return false, c.dropped == 1, prev
}
