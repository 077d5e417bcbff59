package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"

	"github.com/zeebo/blake3"
)

// Evidence digest algorithms (Policy.Digest). A digest is written
// "<alg>:<hex>", so a reader always knows which hash to recompute.
const (
	// DigestAuto is the default: SHA-256 for a message of at most
	// digestSmall bytes, BLAKE3 above. SHA-256 with SHA-NI is about twice as
	// fast as BLAKE3 (zeebo/blake3) below 4 KiB, BLAKE3 about twice as fast
	// as SHA-256 from 8 KiB up (docs/performance.md).
	DigestAuto = "auto"
	// DigestBLAKE3 always uses BLAKE3 (256-bit).
	DigestBLAKE3 = "blake3"
	// DigestSHA256 always uses SHA-256, for deployments that must use
	// FIPS-approved hashes.
	DigestSHA256 = "sha256"
)

// digestSmall is the largest message DigestAuto hashes with SHA-256. Up to
// it the bytes are held (a fixed buffer per digester), so the choice is made
// once the size is known; past it they go to BLAKE3 as they come.
const digestSmall = 4096

// digester hashes one byte stream (the input or the output of a pass) with
// the policy's algorithm. Memory is fixed: digestSmall bytes and the hash
// states.
type digester struct {
	mode  string
	small [digestSmall]byte
	n     int  // bytes held in small (auto, not yet switched)
	big   bool // auto: switched to BLAKE3
	b3    *blake3.Hasher
	s2    hash.Hash
	// off: nothing is hashed (MessageInfo.NoDigests); String returns "".
	// Reset keeps it.
	off bool
	// sum and text are String's scratch: held here, so that the digest
	// costs one allocation (the string), not three.
	sum  [32]byte
	text [len(DigestBLAKE3) + 1 + 64]byte
}

func newDigester(mode string) *digester {
	d := &digester{mode: mode}
	switch mode {
	case DigestSHA256:
		d.s2 = sha256.New()
	default:
		d.b3 = blake3.New()
	}
	return d
}

// Reset starts a new stream.
func (d *digester) Reset() {
	d.n, d.big = 0, false
	if d.b3 != nil {
		d.b3.Reset()
	}
	if d.s2 != nil {
		d.s2.Reset()
	}
}

// Write adds p to the stream; it never fails.
func (d *digester) Write(p []byte) (int, error) {
	switch {
	case d.off:
	case d.s2 != nil:
		d.s2.Write(p)
	case d.mode != DigestAuto || d.big:
		d.b3.Write(p)
	case d.n+len(p) <= digestSmall:
		d.n += copy(d.small[d.n:], p)
	default:
		d.big = true
		d.b3.Write(d.small[:d.n])
		d.b3.Write(p)
	}
	return len(p), nil
}

// String returns the digest of the stream so far as "<alg>:<hex>".
func (d *digester) String() string {
	if d.off {
		return ""
	}
	alg := DigestBLAKE3
	switch {
	case d.s2 != nil:
		d.s2.Sum(d.sum[:0])
		alg = DigestSHA256
	case d.mode == DigestAuto && !d.big:
		d.sum = sha256.Sum256(d.small[:d.n])
		alg = DigestSHA256
	default:
		d.b3.Sum(d.sum[:0])
	}
	out := append(d.text[:0], alg...)
	out = append(out, ':')
	out = hex.AppendEncode(out, d.sum[:])
	return string(out)
}
