package scanners

// highIndexMin is the shortest text nextHigh calls the kernel for: below
// it the Go words are as fast as the call (docs/kernels.md).
const highIndexMin = 192

//go:noescape
func highIndexAVX2(p *byte, n int) int

// nextHigh returns the index of the first byte of b[i:] that is not ASCII,
// or len(b): 64 bytes at a time with the vector kernel from
// highIndexMin bytes on, then nextHighWords.
func nextHigh(b []byte, i int) int {
	if haveAVX2 && len(b)-i >= highIndexMin {
		k := highIndexAVX2(&b[i], len(b)-i)
		if rest := (len(b) - i) &^ 31; k < rest {
			return i + k
		}
		i += k
	}
	return nextHighWords(b, i)
}
