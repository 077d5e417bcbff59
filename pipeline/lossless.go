package pipeline

import "github.com/mcp-sanitize/mcp-sanitize/scanners"

// The lossless mode (policy normalization: lossless).
//
// The redactor reads the normalized text, NFKC and confusable folding
// included, so "ｇｈｐ_…" is still a GitHub token and "<ѕystem>" still a
// tag. What is written is the redactor's output with the original
// characters put back wherever it kept the text: each stretch the redactor
// wrote as it was (scanners.Span) is written with every normalizer change
// inside it (scanners.Edit: an NFKC segment, a folded letter) undone, so
// "x²-résumé.txt" stays "x²-résumé.txt" and "「こんにちは」，" keeps its
// full-width punctuation. Markers stay markers. What the normalizer removes
// (invisible and control characters, escape sequences) stays removed: it is
// removed because it can hide something, in every mode. An Edit only part
// of which lies in a kept stretch (a match began or ended inside its
// output) is written normalized.
//
// Member names are written normalized in both modes: the shape layer
// matches them (content, text, _meta...), checks them for duplicates and
// hands them to the name-based rules as context, all on the normalized
// form, and the output says what was matched.
//
// The normalizer's Edits are in its output offsets; the redactor's Spans in
// value offsets. They differ by what the chain gave the redactor without
// the normalizer (the leading printable ASCII of a string, normBase).
// Streaming, a kept stretch that ends inside an Edit at the end of a
// batch's output is held back (a few bytes: one NFKC segment's output) and
// written with the next batch, so that where batches end cannot turn an
// original character into its normalized form. Edits are trimmed once
// written: memory follows a batch and the redactor's hold.

// losslessState is the chain's lossless writer.
type losslessState struct {
	on       bool
	fed      int64  // value bytes given to the redactor so far
	normOn   bool   // the normalizer has been used for this string
	normBase int64  // value offset of the normalizer's output offset 0
	held     []byte // normalized text held back from the last batch
	heldLo   int64  // its value offset
	out      []byte // the lossless output of the batch (swapped with rbuf)
}

func (l *losslessState) reset() {
	l.fed, l.normOn, l.normBase = 0, false, 0
	l.held = l.held[:0]
}

// losslessBatch returns what is written for rb, the redactor's output of
// the batch just run: rb itself when nothing is to be undone, else the
// lossless buffer (own).
func (c *chain) losslessBatch(rb []byte, final bool) (out []byte, own bool) {
	l := &c.ls
	if !l.normOn {
		return rb, false
	}
	edits := c.norm.Edits()
	if len(edits) == 0 && len(l.held) == 0 {
		return rb, false
	}
	spans := c.red.Spans()
	out = l.out[:0]
	ei := 0  // the first Edit that may still overlap a stretch
	pos := 0 // bytes of rb written
	for k, sp := range spans {
		text := rb[sp.Out : sp.Out+int(sp.Hi-sp.Lo)]
		lo := sp.Lo
		if k == 0 && len(l.held) > 0 && sp.Out == 0 && sp.Lo == l.heldLo+int64(len(l.held)) {
			// The stretch held back goes on here.
			l.held = append(l.held, text...)
			text, lo = l.held, l.heldLo
		} else if k == 0 && len(l.held) > 0 {
			out = append(out, l.held...)
		}
		if k == 0 {
			l.held = l.held[:0]
		}
		out = append(out, rb[pos:sp.Out]...)
		pos = sp.Out + len(text) - int(sp.Lo-lo)
		hi := lo + int64(len(text))
		cut := hi
		if !final && k == len(spans)-1 && pos == len(rb) {
			// An Edit the stretch ends inside waits for the next batch.
			for _, e := range edits[ei:] {
				if b := l.normBase + e.Lo; b < hi && hi < l.normBase+e.Hi {
					cut = max(b, lo)
					break
				}
			}
		}
		out, ei = l.undo(out, text[:cut-lo], lo, edits, ei)
		if cut < hi {
			l.held = append(l.held[:0], text[cut-lo:]...)
			l.heldLo = cut
		}
	}
	if len(spans) == 0 && len(l.held) > 0 && (final || len(rb) > 0) {
		out = append(out, l.held...)
		l.held = l.held[:0]
	}
	out = append(out, rb[pos:]...)
	l.out = out
	return out, true
}

// undo appends text, the normalized value text at value offset lo, with
// every Edit that lies wholly inside it undone. Edits before ei end before
// lo; it returns the first Edit that may overlap text after this one.
func (l *losslessState) undo(out, text []byte, lo int64, edits []scanners.Edit, ei int) ([]byte, int) {
	hi := lo + int64(len(text))
	at := lo
	for ; ei < len(edits) && l.normBase+edits[ei].Hi <= lo; ei++ {
	}
	for _, e := range edits[ei:] {
		elo, ehi := l.normBase+e.Lo, l.normBase+e.Hi
		if elo >= hi {
			break
		}
		if elo < lo || ehi > hi {
			continue // partly outside: written normalized
		}
		out = append(out, text[at-lo:elo-lo]...)
		out = append(out, e.Orig...)
		at = ehi
	}
	return append(out, text[at-lo:]...), ei
}

// losslessTrim drops the Edits written, after a batch that is not final.
func (c *chain) losslessTrim() {
	l := &c.ls
	if !l.normOn {
		return
	}
	upTo := c.red.Released()
	if len(l.held) > 0 {
		upTo = min(upTo, l.heldLo)
	}
	c.norm.TrimEdits(upTo - l.normBase)
}

// The normalization modes of Policy.Normalization.
const (
	NormalizationNFKC     = "nfkc"
	NormalizationLossless = "lossless"
)
