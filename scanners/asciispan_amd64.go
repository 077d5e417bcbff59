package scanners

import (
	"encoding/binary"
	"math/bits"
)

//go:noescape
func asciiSpanAVX2(p *byte, n int) int

// asciiSpan returns the end of the run of bytes 0x20..0x7E, \t, \n and \r
// that starts at s[i]: the first eight bytes as one word, then 32 bytes at
// a time with the vector kernel from 64 bytes on, then asciiSpanWords.
func asciiSpan(s []byte, i int) int {
	if haveAVX2 && len(s)-i >= 64 {
		// Most often the run is short (a word or a space between two
		// characters outside ASCII) and ends in its first word: found
		// there without the kernel's call. The lowest lane asciiFlags
		// flags is a byte that ends the run unless it is \t \n \r.
		if m := asciiFlags(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			if c := s[j]; c != '\t' && c != '\n' && c != '\r' {
				return j
			}
		}
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
// may start a confusable (see maybeConfusable), or -1: the first eight
// bytes as one word, then 32 bytes at a time with the vector kernel from 64
// bytes on, then nextConfusableLeadWords.
func nextConfusableLead(b []byte, from int) int {
	if haveAVX2 && len(b)-from >= 64 {
		// In Greek or Cyrillic text the next lead is most often near.
		if m := leadLanes(binary.LittleEndian.Uint64(b[from:])); m != 0 {
			return from + bits.TrailingZeros64(m)>>3
		}
		k := leadIndexAVX2(&b[from], len(b)-from)
		if rest := (len(b) - from) &^ 31; k < rest {
			return from + k
		}
		from += k
	}
	return nextConfusableLeadWords(b, from)
}
