//go:build !amd64

package scanners

func asciiSpan(s []byte, i int) int { return asciiSpanWords(s, i) }

func nextConfusableLead(b []byte, from int) int { return nextConfusableLeadWords(b, from) }
