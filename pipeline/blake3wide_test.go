package pipeline

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/zeebo/blake3"
)

// blake3Vectors are the official BLAKE3 test vectors (test_vectors.json of
// the BLAKE3 reference repository, the "hash" field's first 32 bytes): the
// input of length n is the bytes i % 251.
var blake3Vectors = []struct {
	n    int
	want string
}{
	{0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
	{1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
	{1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"},
	{1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
	{1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"},
	{2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a"},
	{2049, "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b6879522563030"},
	{3072, "b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd2"},
	{3073, "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd3"},
	{4096, "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e969"},
	{4097, "9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb995"},
	{5120, "9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833"},
	{5121, "628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff"},
	{6144, "3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca205"},
	{6145, "f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f"},
	{7168, "61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a"},
	{7169, "a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e7817"},
	{8192, "aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a63"},
	{8193, "bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3b"},
	{16384, "f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde4"},
	{31744, "62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47"},
	{100000, "d93c23eedaf165a7e0be908ba86f1a7a520d568d2d13cde787c8580c5c72cc54"},
}

func vectorInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func wideSum(parts ...[]byte) string {
	var h wideBLAKE3
	h.Write([]byte("stale bytes of an earlier stream"))
	h.Reset()
	for _, p := range parts {
		h.Write(p)
	}
	var sum [32]byte
	h.Sum(&sum)
	return hex.EncodeToString(sum[:])
}

// TestWideBLAKE3Vectors checks wideBLAKE3, zeebo/blake3 and the digester
// on both BLAKE3 paths against the official test vectors, whole and in
// writes of several sizes.
func TestWideBLAKE3Vectors(t *testing.T) {
	for _, v := range blake3Vectors {
		in := vectorInput(v.n)
		z := blake3.Sum256(in)
		if got := hex.EncodeToString(z[:]); got != v.want {
			t.Errorf("zeebo/blake3, %d bytes: %s, want %s", v.n, got, v.want)
		}
		for _, step := range []int{1, 63, 1024, 4096, 5000, wideBuf, wideBuf + 1, 1 << 20} {
			if v.n > 20000 && step == 1 {
				continue
			}
			var parts [][]byte
			for i := 0; i < v.n; i += step {
				parts = append(parts, in[i:min(i+step, v.n)])
			}
			if got := wideSum(parts...); got != v.want {
				t.Errorf("wideBLAKE3, %d bytes in writes of %d: %s, want %s", v.n, step, got, v.want)
			}
		}
		for _, wide := range []bool{false, true} {
			d := newDigesterOn(DigestBLAKE3, wide)
			d.Write(in)
			if got := d.String(); got != "blake3:"+v.want {
				t.Errorf("digester (wide %v), %d bytes: %s, want blake3:%s", wide, v.n, got, v.want)
			}
		}
	}
}

// TestWideBLAKE3Random compares wideBLAKE3 with zeebo/blake3 on random
// lengths around every boundary of the wide path (the zeebo hand-over at
// wideSmall, each 16 KiB buffer, the stack's merges) in random splits.
func TestWideBLAKE3Random(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 5))
	data := make([]byte, 9*wideBuf+777)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	lengths := []int{0, 1, wideSmall - 1, wideSmall, wideSmall + 1, wideBuf - 1, wideBuf, wideBuf + 1,
		2 * wideBuf, 2*wideBuf + 1, 3 * wideBuf, 4*wideBuf + 5, 8 * wideBuf, len(data)}
	for range 60 {
		lengths = append(lengths, r.IntN(len(data)+1))
	}
	for _, n := range lengths {
		z := blake3.Sum256(data[:n])
		want := hex.EncodeToString(z[:])
		for range 4 {
			var parts [][]byte
			for i := 0; i < n; {
				step := 1 + r.IntN(3*wideBuf)
				if r.IntN(4) == 0 {
					step = 1 + r.IntN(64)
				}
				parts = append(parts, data[i:min(i+step, n)])
				i += step
			}
			if got := wideSum(parts...); got != want {
				t.Fatalf("%d bytes in %d writes: %s, want %s", n, len(parts), got, want)
			}
		}
	}
}

// FuzzWideBLAKE3 compares wideBLAKE3 with zeebo/blake3 on the fuzzer's
// bytes, repeated to about the length extra asks (up to 96 KiB, so that
// several 16 KiB buffers are hashed and merged), written in the splits the
// split seed draws.
func FuzzWideBLAKE3(f *testing.F) {
	f.Add([]byte("abc"), uint16(0), uint64(1))
	f.Add([]byte("x"), uint16(wideSmall+1), uint64(7))
	f.Add([]byte("0123456789abcdef"), uint16(wideBuf/2), uint64(0))
	f.Add([]byte{0xff, 0}, uint16(0xffff), uint64(98))
	f.Fuzz(func(t *testing.T, seed []byte, extra uint16, splits uint64) {
		data := append([]byte(nil), seed...)
		if len(seed) > 0 {
			for want := len(seed) + int(extra)*3/2; len(data) < want; {
				data = append(data, data[:min(len(data), want-len(data))]...)
			}
		}
		z := blake3.Sum256(data)
		want := hex.EncodeToString(z[:])
		r := rand.New(rand.NewPCG(splits, binary.LittleEndian.Uint64(z[:8])))
		small := splits&1 == 1 // many short writes
		var parts [][]byte
		for i := 0; i < len(data); {
			step := 1 + r.IntN(2*wideBuf)
			if small {
				step = 1 + r.IntN(2000)
			}
			parts = append(parts, data[i:min(i+step, len(data))])
			i += step
		}
		if got := wideSum(parts...); got != want {
			t.Fatalf("%d bytes in %d writes: %s, want %s", len(data), len(parts), got, want)
		}
	})
}
