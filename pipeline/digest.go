package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"

	"github.com/zeebo/blake3"
)

// Evidence digest algorithms (Policy.Digest).
const (
	// DigestBLAKE3 is the default: a 256-bit BLAKE3 hash, about twice as fast
	// as SHA-256 with SHA-NI on messages from 16 KiB up (docs/performance.md).
	DigestBLAKE3 = "blake3"
	// DigestSHA256 is for deployments that must use FIPS-approved hashes.
	DigestSHA256 = "sha256"
)

// newDigest returns a hash for the policy's digest algorithm (validated by
// Policy.Validate).
func newDigest(alg string) hash.Hash {
	if alg == DigestSHA256 {
		return sha256.New()
	}
	return blake3.New()
}

// digestString formats a finished hash as "<alg>:<hex>".
func digestString(alg string, h hash.Hash) string {
	if alg != DigestSHA256 {
		alg = DigestBLAKE3
	}
	var sum [64]byte
	b := h.Sum(sum[:0])
	out := make([]byte, 0, len(alg)+1+2*len(b))
	out = append(out, alg...)
	out = append(out, ':')
	out = hex.AppendEncode(out, b)
	return string(out)
}
