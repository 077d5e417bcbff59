//go:build !amd64

package scanners

func nextHigh(b []byte, i int) int { return nextHighWords(b, i) }
