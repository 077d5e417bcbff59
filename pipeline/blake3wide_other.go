//go:build !amd64

package pipeline

// blake3Wide: wideBLAKE3's kernel is AVX-512; zeebo/blake3 elsewhere.
const blake3Wide = false

// clearUpper: nothing to clear off amd64.
func clearUpper() {}
