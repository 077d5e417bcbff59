package scanners

import (
	"strings"
	"testing"
)

// TestMarks: every Append's Marks point at the markers it wrote, in
// order, with the value offset of the match each replaces, in the text as
// given (through the detection view's look-alikes and references too),
// however the text is split across Appends; the stretches between Spans
// are exactly the Marks' markers.
func TestMarks(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	gh := "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"
	for _, text := range []string{
		"token " + gh + " and <system>x</system> then " + gh + " again",
		"<sys>" + gh + "<system>", // adjacent matches, no text between
		"‹Ꮪystem› &#0060;system&gt; é " + gh,
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n tail",
		"password=Xk39fLq2mZ8vN1 end [INST] x",
	} {
		for n := 0; n <= 9; n++ {
			r := c.NewRedactor(testKey)
			var out []byte
			var starts []int64
			var fs []Finding
			for off := 0; off < len(text) || off == 0; {
				end := len(text)
				if n > 0 {
					end = min(len(text), off+n)
				}
				d0 := len(out)
				out, fs = r.Append(out, []byte(text[off:end]), end == len(text), fs)
				w := out[d0:]
				pos := 0
				spans, marks := r.Spans(), r.Marks()
				mi := 0
				for _, sp := range append(append([]Span(nil), spans...), Span{Out: len(w)}) {
					for pos < sp.Out {
						if mi >= len(marks) || marks[mi].Out != pos {
							t.Fatalf("%q in %d: a stretch between spans at %d is no mark's (%+v)", text, n, pos, marks)
						}
						k := strings.IndexByte(string(w[pos:]), ']')
						if w[pos] != '[' || k < 0 {
							t.Fatalf("%q in %d: mark at %d is not a marker: %q", text, n, pos, w[pos:])
						}
						starts = append(starts, marks[mi].At)
						pos += k + 1
						mi++
					}
					pos = sp.Out + int(sp.Hi-sp.Lo)
				}
				if mi != len(marks) {
					t.Fatalf("%q in %d: %d marks, %d markers", text, n, len(marks), mi)
				}
				if end == len(text) {
					break
				}
				off = end
			}
			if len(starts) != len(fs) {
				t.Fatalf("%q in %d: %d marks, %d findings", text, n, len(starts), len(fs))
			}
			for i := range fs {
				if starts[i] != fs[i].Offset {
					t.Fatalf("%q in %d: mark %d at %d, finding at %d", text, n, i, starts[i], fs[i].Offset)
				}
			}
		}
	}
}
