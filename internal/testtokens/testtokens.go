// Package testtokens makes credential-shaped test values at test time:
// random-looking bodies of the right alphabet and length, with the vendor's
// checksum where the format has one, so that tests exercise real detection
// (a body of one repeated letter is a placeholder, which the catalog
// deliberately leaves alone) and no usable token-shaped string is committed.
// Only tests import it (internal/archtest).
package testtokens

import (
	"hash/crc32"
	"math/rand/v2"
)

// Alphabets of common token bodies.
const (
	Base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	Base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	Digits = "0123456789"
	Hex    = "0123456789abcdef"
)

// Random returns n bytes drawn from alphabet by a generator seeded with
// seed: the same seed gives the same value on every run.
func Random(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// GitHub returns a GitHub token with the given prefix ("ghp_", "gho_",
// "ghu_", "ghs_", "ghr_"): 30 random base62 characters and their CRC32 in
// six base62 digits, as GitHub's format has it.
func GitHub(prefix string, seed uint64) string {
	body := Random(seed, Base62, 30)
	c := crc32.ChecksumIEEE([]byte(body))
	sum := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		sum[i] = Base62[c%62]
		c /= 62
	}
	return prefix + body + string(sum)
}

// AWSAccessKey returns an AKIA key id with a random base32 body.
func AWSAccessKey(seed uint64) string { return "AKIA" + Random(seed, Base32, 16) }
