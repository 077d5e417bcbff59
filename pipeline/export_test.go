package pipeline

// WithoutShadow returns an engine like e that writes all text through the
// escaper instead of the escaped shadow (shadow.go), for the differential
// tests. It has a free list of its own: a pass belongs to one engine.
func WithoutShadow(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.noShadow = true
	return &c
}
