package scanners

// A Mark is a marker an Append wrote: its first byte is at Out (counted
// from where that Append began writing, as Span.Out), and the match it
// replaces starts at value offset At (counted as Span.Lo: in the text
// given, without a member-name context's synthetic prefix). A caller that
// gives one Redactor the texts of several values in a row (the pipeline's
// adjacent text blocks) tells from At which value a marker belongs to.
type Mark struct {
	Out int
	At  int64
}

// Marks returns the Marks of the last Append, in order of Out. The slice
// is reused by the next Append.
func (r *Redactor) Marks() []Mark { return r.marks }

// Continued reports whether the current string was started without a
// member-name context (Reset, or a ResetWithContext whose name did not
// qualify): only such a string can go on with the text of another value.
func (r *Redactor) Continued() bool { return r.ctxLo == 0 && r.ctxHi == maxOffset }

// MaxMarkerLen returns the length in bytes of the catalog's longest
// marker.
func (c *Catalog) MaxMarkerLen() int {
	n := 0
	for _, m := range c.markers {
		n = max(n, len(m))
	}
	return n
}

// moveMarks shifts by d the Out of the marks from k on that lie before
// out (view.go's restore, which rewrites the stretches between them), and
// returns the first one it did not move.
func moveMarks(marks []Mark, k, out, d int) int {
	for ; k < len(marks) && marks[k].Out < out; k++ {
		marks[k].Out += d
	}
	return k
}

// Marker returns the marker that replaces a match of rule id, or "" if id
// is out of range.
func (c *Catalog) Marker(id RuleID) string {
	if int(id) >= len(c.markers) {
		return ""
	}
	return string(c.markers[id])
}
