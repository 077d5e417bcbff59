package pipeline

// WithoutShadow returns an engine like e that writes all text through the
// escaper instead of the escaped shadow (shadow.go) or the whole-string
// path (wholestring.go), for the differential tests. It has a free list of its own: a pass belongs to one engine.
func WithoutShadow(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.noShadow = true
	return &c
}

// WithoutMemberPath returns an engine like e without the member path
// (member.go) and the shape memo (shapememo.go), for the differential
// tests. It has a free list of its own.
func WithoutMemberPath(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.noMembers = true
	return &c
}

// WithoutRawSchema returns an engine like e whose structured path always
// decodes, validates and projects the tree (no schema.ValidRaw), for the
// differential tests.
func WithoutRawSchema(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.noRawSchema = true
	return &c
}

// WithSameCheck returns an engine like e that compares the texts of every
// structuredContent the pass says it left unchanged, and fails the pass
// (an internal fault) when they are not the same value, for the tests.
func WithSameCheck(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.checkSame = true
	return &c
}

// WithSameSeen returns an engine like WithSameCheck(e) that tells seen
// whether the pass said structuredContent was left unchanged, each time
// the structured path asks.
func WithSameSeen(e *Engine, seen func(same bool)) *Engine {
	c := WithSameCheck(e)
	c.sameSeen = seen
	return c
}

// WithoutMirrorDefer returns an engine like e that scans every text that
// may mirror structuredContent as it streams (structured_defer.go holds
// it instead), for the differential tests.
func WithoutMirrorDefer(e *Engine) *Engine {
	c := *e
	c.free = make(chan *pass, cap(e.free))
	c.noDefer = true
	return &c
}
