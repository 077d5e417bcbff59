package pipeline

import (
	"math/bits"

	"github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// wideBuf is what wideBLAKE3 hashes in one kernel call: sixteen 1 KiB
// chunks, the width of lukechampine.com/blake3's AVX-512 kernel.
const wideBuf = guts.MaxSIMD * guts.ChunkSize

// wideSmall is the largest stream wideBLAKE3 hands to zeebo/blake3 whole:
// up to two 8-chunk calls of its AVX2 kernel cost less than one 16-lane
// AVX-512 call that hashes mostly empty lanes (BenchmarkDigestAlg,
// docs/digest.md).
const wideSmall = 8 << 10

// blake3IV is BLAKE3's key for plain hashing (the SHA-256 IV).
var blake3IV = [8]uint32{0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19}

// wideBLAKE3 is BLAKE3-256 of a byte stream, 16 chunks at a time through
// lukechampine.com/blake3/guts (its AVX-512 kernel), for the CPUs where
// blake3Wide is set. zeebo/blake3, the default elsewhere, has AVX2 and
// SSE4.1 kernels only. Both are BLAKE3: the same bytes give the same
// digest (TestWideBLAKE3Vectors, FuzzWideBLAKE3).
//
// The stream is a tree of 16-chunk subtrees: each full buffer is hashed
// to its chaining value when more bytes follow, and the values are merged
// on a stack as the reference implementation merges chunks (one merge per
// trailing one bit of the count). The last buffer, full or not, is hashed
// at Sum as the root's rightmost subtree. A stream of at most wideSmall
// bytes never reaches the kernel: it goes to zeebo/blake3 from the buffer.
//
// The buffer also serves the auto mode: the first digestSmall bytes of a
// stream are in buf[:n] while count is 0, so the digester takes SHA-256 of
// them without a copy of its own.
type wideBLAKE3 struct {
	buf   [wideBuf]byte
	n     int    // bytes in buf
	count uint64 // full buffers hashed; bit i set = a subtree of 2^i buffers on stack[i]
	stack [54][8]uint32
	z     *blake3.Hasher // the streams of at most wideSmall bytes
}

func (h *wideBLAKE3) Reset() { h.n, h.count = 0, 0 }

// held returns the stream when it is still whole in the buffer.
func (h *wideBLAKE3) held() ([]byte, bool) { return h.buf[:h.n], h.count == 0 }

// Write adds p. A full buffer is hashed only once more bytes come, so
// that Sum always has a last subtree to mark as the root's.
func (h *wideBLAKE3) Write(p []byte) {
	for len(p) > 0 {
		if h.n == wideBuf {
			h.push(&h.buf)
			h.n = 0
		}
		if h.n == 0 && len(p) > wideBuf {
			h.push((*[wideBuf]byte)(p))
			p = p[wideBuf:]
			continue
		}
		c := copy(h.buf[h.n:], p)
		h.n += c
		p = p[c:]
	}
}

// push hashes one full buffer and merges its chaining value into the stack.
func (h *wideBLAKE3) push(b *[wideBuf]byte) {
	cv := guts.ChainingValue(guts.CompressBuffer(b, wideBuf, &blake3IV, h.count*guts.MaxSIMD, 0))
	clearUpper()
	i := 0
	for ; h.count&(1<<i) != 0; i++ {
		cv = guts.ChainingValue(guts.ParentNode(h.stack[i], cv, &blake3IV, 0))
	}
	h.stack[i] = cv
	h.count++
}

// Sum writes the digest of the stream so far to out; the stream can go on.
func (h *wideBLAKE3) Sum(out *[32]byte) {
	if h.count == 0 && h.n <= wideSmall {
		if h.z == nil {
			h.z = blake3.New()
		}
		h.z.Reset()
		h.z.Write(h.buf[:h.n])
		h.z.Sum(out[:0])
		return
	}
	n := guts.CompressBuffer(&h.buf, h.n, &blake3IV, h.count*guts.MaxSIMD, 0)
	clearUpper()
	for i := bits.TrailingZeros64(h.count); i < bits.Len64(h.count); i++ {
		if h.count&(1<<i) != 0 {
			n = guts.ParentNode(h.stack[i], guts.ChainingValue(n), &blake3IV, 0)
		}
	}
	n.Flags |= guts.FlagRoot
	words := guts.CompressNode(n)
	full := guts.WordsToBytes(words)
	copy(out[:], full[:32])
}
