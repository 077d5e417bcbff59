package bounds

import (
	"errors"
	"fmt"
)

// Bound names one limit. Its String form is a stable id used in evidence,
// metrics labels and policy files.
type Bound uint8

const (
	Depth         Bound = iota // nesting depth of arrays and objects
	Nodes                      // values of any kind in the document
	ArrayItems                 // items of one array
	ObjectEntries              // members of one object
	StringChars                // characters (Unicode code points) of one string
	TextChars                  // characters of one text block (content[i].text, resource text)
	KeyChars                   // characters of one object key
	OutputBytes                // bytes of the sanitized output
	BinaryBytes                // decoded bytes of one base64 payload (image, audio, blob)
	MetaBytes                  // bytes of one tool-supplied _meta object held for merging
	numBounds
)

var boundNames = [numBounds]string{
	Depth:         "depth",
	Nodes:         "nodes",
	ArrayItems:    "array-items",
	ObjectEntries: "object-entries",
	StringChars:   "string-chars",
	TextChars:     "text-chars",
	KeyChars:      "key-chars",
	OutputBytes:   "output-bytes",
	BinaryBytes:   "binary-bytes",
	MetaBytes:     "meta-bytes",
}

// Crossing says what happens when a bound is crossed.
type Crossing uint8

const (
	// Reject: the message is replaced by an error result (BOUND_EXCEEDED),
	// whatever the policy says; a cut would change meaning (a key, a
	// base64 payload, a _meta object) or the bound guards the pass itself.
	Reject Crossing = iota
	// RegionAction: the policy's action for the region of the crossing
	// decides: truncate (cut the string at the limit, or drop the rest of
	// the container, and mark it) or reject.
	RegionAction
)

var boundCrossing = [numBounds]Crossing{
	Depth:         Reject,
	Nodes:         Reject,
	ArrayItems:    RegionAction,
	ObjectEntries: RegionAction,
	StringChars:   RegionAction,
	TextChars:     RegionAction,
	KeyChars:      Reject,
	OutputBytes:   RegionAction,
	BinaryBytes:   Reject,
	MetaBytes:     Reject,
}

// Crossing returns what happens when b is crossed.
func (b Bound) Crossing() Crossing {
	if b < numBounds {
		return boundCrossing[b]
	}
	return Reject
}

// String returns the stable id of b.
func (b Bound) String() string {
	if b < numBounds {
		return boundNames[b]
	}
	return fmt.Sprintf("bound(%d)", uint8(b))
}

// All lists every bound in a stable order.
func All() []Bound {
	out := make([]Bound, numBounds)
	for i := range out {
		out[i] = Bound(i)
	}
	return out
}

// Parse returns the bound whose id is s.
func Parse(s string) (Bound, bool) {
	for i, n := range boundNames {
		if n == s {
			return Bound(i), true
		}
	}
	return 0, false
}

// Limits holds one limit per bound. A limit must be positive.
type Limits [numBounds]int64

// Defaults are the limits used when a policy sets none. They are safe for a
// model's context window (text blocks follow the seed's 12000 characters) and
// generous for structured data.
func Defaults() Limits {
	var l Limits
	l[Depth] = 64
	l[Nodes] = 1_000_000
	l[ArrayItems] = 100_000
	l[ObjectEntries] = 10_000
	l[StringChars] = 1 << 20
	l[TextChars] = 12_000
	l[KeyChars] = 1024
	l[OutputBytes] = 16 << 20
	l[BinaryBytes] = 20 << 20
	l[MetaBytes] = 64 << 10
	return l
}

// ErrInvalidLimit reports a limit that is zero or negative.
var ErrInvalidLimit = errors.New("bounds: limit must be positive")

// Validate checks that every limit is positive.
func (l *Limits) Validate() error {
	for i, v := range l {
		if v <= 0 {
			return fmt.Errorf("%w: %s = %d", ErrInvalidLimit, Bound(i), v)
		}
	}
	if l[Depth] > 10_000 {
		return fmt.Errorf("%w: depth %d exceeds 10000", ErrInvalidLimit, l[Depth])
	}
	return nil
}

// Counter tracks the document-wide counts (nodes, depth, output bytes) of one
// message. Per-container and per-string counts are kept by the caller next to
// its own state and checked with Limits.Over. The zero Counter with Reset
// applied is ready.
type Counter struct {
	lim      *Limits
	nodes    int64
	depth    int64
	maxDepth int64
}

// Reset starts a new message under lim.
func (c *Counter) Reset(lim *Limits) {
	*c = Counter{lim: lim}
}

// Enter records the opening of a container; it reports false when the depth
// bound would be crossed (the container is then not entered).
func (c *Counter) Enter() bool {
	if c.depth+1 > c.lim[Depth] {
		return false
	}
	c.depth++
	if c.depth > c.maxDepth {
		c.maxDepth = c.depth
	}
	return true
}

// Leave records the closing of a container.
func (c *Counter) Leave() { c.depth-- }

// Node records one value; it reports false once the node bound is crossed.
func (c *Counter) Node() bool {
	c.nodes++
	return c.nodes <= c.lim[Nodes]
}

// Nodes returns the number of values seen.
func (c *Counter) Nodes() int64 { return c.nodes }

// Depth returns the current depth.
func (c *Counter) Depth() int64 { return c.depth }

// MaxDepth returns the deepest nesting seen.
func (c *Counter) MaxDepth() int64 { return c.maxDepth }

// OutputBudget returns the output bytes the body of a message may take: the
// output-bytes limit less a reserve for what closes it (the closing
// brackets of every open container at the depth limit, the sanitizer's
// _meta labels and a truncation note): 4096 bytes plus 4 per level of
// depth, at most half the limit.
func (l *Limits) OutputBudget() int64 {
	reserve := int64(4096 + 4*l[Depth])
	if reserve > l[OutputBytes]/2 {
		reserve = l[OutputBytes] / 2
	}
	return l[OutputBytes] - reserve
}

// Over reports whether n crosses the limit of b.
func (l *Limits) Over(b Bound, n int64) bool { return n > l[b] }

// Remaining returns how much of the limit of b is left after used, never
// negative.
func (l *Limits) Remaining(b Bound, used int64) int64 {
	if r := l[b] - used; r > 0 {
		return r
	}
	return 0
}
