package scanners

// ShortClean reports whether Append(dst, src, true, fs) right after a
// Reset, with the ASCII hint given (HintASCII: src is ASCII), would append
// src unchanged and report nothing through its short-string path: src is
// shorter than an encoded run can be, no member-name context is set, no
// character reference can change the detection view ('&' absent), and no
// keyword ends in it or each one that does is ruled out by its form's
// pre-checks. When it reports true the Redactor is left as that Append
// leaves it (Spans holds one span over src), so the caller may write src
// itself; when false it changed nothing and the caller calls Append.
//
// It exists for the pipeline's short member names and values: the same
// decision as Append's, without its calls and copies.
func (r *Redactor) ShortClean(src []byte) bool {
	if r.off != 0 || r.ctxLo != 0 || len(src) >= decodeMinRun {
		return false
	}
	w := &r.vw
	if !r.c.noView {
		if w.nhold != 0 || w.mapped() {
			return false
		}
		for _, c := range src {
			if c == '&' {
				return false
			}
		}
	}
	if !r.keywordFree(src) {
		return false
	}
	w.ascii = false
	r.marks, r.dst0 = r.marks[:0], 0
	r.spans = r.spans[:0]
	if len(src) > 0 {
		r.spans = append(r.spans, Span{Out: 0, Lo: 0, Hi: int64(len(src))})
	}
	return true
}
