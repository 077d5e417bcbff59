//go:build !amd64

package scanners

func asciiSpan(s []byte, i int) int { return asciiSpanWords(s, i) }
