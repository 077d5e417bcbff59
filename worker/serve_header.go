package worker

import "github.com/nats-io/nats.go"

// headerSet builds the headers of one published message with two
// allocations whatever their number: the map, sized for its entries, and
// one backing array that every value slice is cut from (nats.Header.Set
// allocates a slice per value). Each value slice has a capacity of one, so
// an Add on the finished header copies instead of writing over the next
// entry's value.
type headerSet struct {
	h    nats.Header
	vals []string
}

// newHeaderSet returns a headerSet for about n entries (more only
// allocate again).
func newHeaderSet(n int) headerSet {
	return headerSet{h: make(nats.Header, n), vals: make([]string, 0, n)}
}

// set sets k to the single value v, as nats.Header.Set does.
func (hs *headerSet) set(k, v string) {
	i := len(hs.vals)
	hs.vals = append(hs.vals, v)
	hs.h[k] = hs.vals[i : i+1 : i+1]
}

// token sets k to v restricted to a header token (headerToken), and
// leaves it unset when v is empty.
func (hs *headerSet) token(k, v string) {
	if v = headerToken(v); v != "" {
		hs.set(k, v)
	}
}

// reset empties hs for the next message, keeping its memory: the map
// keeps its table and the values their backing array.
func (hs *headerSet) reset() {
	clear(hs.h)
	clear(hs.vals)
	hs.vals = hs.vals[:0]
}
