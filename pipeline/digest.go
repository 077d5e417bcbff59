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
	// digestSmall bytes, BLAKE3 above. SHA-256 with SHA-NI is up to three
	// times as fast as BLAKE3 below 4 KiB, BLAKE3 1.4-2.5 times as fast as
	// SHA-256 from 8 KiB up (docs/digest.md).
	DigestAuto = "auto"
	// DigestBLAKE3 always uses BLAKE3 (256-bit).
	DigestBLAKE3 = "blake3"
	// DigestSHA256 always uses SHA-256, for deployments that must use
	// FIPS-approved hashes.
	DigestSHA256 = "sha256"
)

// digestSmall is the largest message DigestAuto hashes with SHA-256. Up to
// it the bytes are held (a fixed buffer per digester), so the choice is made
// once the size is known; past it they go to BLAKE3 as they come. At 4 KiB
// SHA-256 with SHA-NI and zeebo/blake3 cost about the same, and from 4097 to
// 8192 bytes BLAKE3's cost is flat (one 8-lane kernel call), so moving the
// switch would gain little and change the algorithm records name
// (docs/digest.md).
const digestSmall = 4096

// digester hashes one byte stream (the input or the output of a pass) with
// the policy's algorithm. Memory is fixed: a buffer (digestSmall bytes, or
// wideBLAKE3's 16 KiB on the wide path) and the hash states.
type digester struct {
	mode  string
	small *[digestSmall]byte // auto on zeebo/blake3: the first bytes
	n     int                // bytes held in small (auto, not yet switched)
	big   bool               // auto: switched to BLAKE3
	b3    *blake3.Hasher
	w     *wideBLAKE3 // BLAKE3 where blake3Wide: replaces b3 and small
	s2    hash.Hash
	// off: nothing is hashed (MessageInfo.NoDigests); String returns "".
	// Reset keeps it.
	off bool
	// sum and text are String's scratch: held here, so that the digest
	// costs one allocation (the string), not three.
	sum  [32]byte
	text [len(DigestBLAKE3) + 1 + 64]byte
}

func newDigester(mode string) *digester { return newDigesterOn(mode, blake3Wide) }

// newDigesterOn is newDigester with the BLAKE3 implementation chosen by
// wide (wideBLAKE3) rather than by the CPU, so tests run both everywhere.
func newDigesterOn(mode string, wide bool) *digester {
	d := &digester{mode: mode}
	switch {
	case mode == DigestSHA256:
		d.s2 = sha256.New()
	case wide:
		d.w = new(wideBLAKE3)
	default:
		d.b3 = blake3.New()
		if mode == DigestAuto {
			d.small = new([digestSmall]byte)
		}
	}
	return d
}

// Reset starts a new stream.
func (d *digester) Reset() {
	d.n, d.big = 0, false
	if d.b3 != nil {
		d.b3.Reset()
	}
	if d.w != nil {
		d.w.Reset()
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
	case d.w != nil:
		d.w.Write(p)
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
	case d.w != nil:
		if held, whole := d.w.held(); whole && d.mode == DigestAuto && len(held) <= digestSmall {
			d.sum = sha256.Sum256(held)
			alg = DigestSHA256
		} else {
			d.w.Sum(&d.sum)
		}
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
