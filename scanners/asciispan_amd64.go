package scanners

//go:noescape
func asciiSpanAVX2(p *byte, n int) int

// asciiSpan returns the end of the run of bytes 0x20..0x7E, \t, \n and \r
// that starts at s[i]: 32 bytes at a time with the vector kernel from 64
// bytes on, then asciiSpanWords.
func asciiSpan(s []byte, i int) int {
	if haveAVX2 && len(s)-i >= 64 {
		k := asciiSpanAVX2(&s[i], len(s)-i)
		if rest := (len(s) - i) &^ 31; k < rest {
			return i + k
		}
		i += k
	}
	return asciiSpanWords(s, i)
}

//go:noescape
func leadIndexAVX2(p *byte, n int) int

// nextConfusableLead returns the index of the first byte of b[from:] that
// may start a confusable (see maybeConfusable), or -1: 32 bytes at a time
// with the vector kernel from 64 bytes on, then nextConfusableLeadWords.
func nextConfusableLead(b []byte, from int) int {
	if haveAVX2 && len(b)-from >= 64 {
		k := leadIndexAVX2(&b[from], len(b)-from)
		if rest := (len(b) - from) &^ 31; k < rest {
			return from + k
		}
		from += k
	}
	return nextConfusableLeadWords(b, from)
}
