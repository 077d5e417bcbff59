package payload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// sampleJSON returns n bytes of JSON-looking text (compressible, varied).
func sampleJSON(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"content", "text", "result", "path", "line", "error", "value", "name", "ok", "item", "42", "3.14"}
	var b bytes.Buffer
	b.WriteString(`{"content":[{"type":"text","text":"`)
	for b.Len() < n-3 {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	out := b.Bytes()[:n-3]
	return append(out, `"}]`...)
}

func zstdBytes(t testing.TB, src []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func s2Bytes(t testing.TB, src []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := s2.NewWriter(&b)
	if _, err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hdrEnc(enc string) nats.Header {
	h := nats.Header{}
	if enc != "" {
		h.Set(wire.HeaderContentEncoding, enc)
	}
	return h
}

// readAll opens and reads a body, returning what was read and the error.
func readAll(t testing.TB, hdr nats.Header, data []byte, lim Limits) ([]byte, error) {
	t.Helper()
	r, err := Open(context.Background(), hdr, data, nil, lim)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil && Failure(r) == nil {
		t.Fatalf("Read failed with %v but Failure is nil", err)
	}
	return out, err
}

func TestOpenRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 100, 64 << 10, 3<<20 + 17} {
		src := sampleJSON(max(n, 3), uint64(n))[:n]
		for _, tc := range []struct {
			name string
			hdr  nats.Header
			data []byte
		}{
			{"absent", nats.Header{}, src},
			{"nil-header", nil, src},
			{"identity", hdrEnc("identity"), src},
			{"identity-upper", hdrEnc(" IDENTITY "), src},
			{"zstd", hdrEnc("zstd"), zstdBytes(t, src)},
			{"zstd-best", hdrEnc("zstd"), zstdBytes(t, src, zstd.WithEncoderLevel(zstd.SpeedBestCompression))},
			{"zstd-mixed-case", hdrEnc("Zstd"), zstdBytes(t, src)},
			{"s2", hdrEnc("s2"), s2Bytes(t, src)},
		} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, n), func(t *testing.T) {
				got, err := readAll(t, tc.hdr, tc.data, Limits{})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, src) {
					t.Fatalf("decoded %d bytes, want %d (content differs)", len(got), len(src))
				}
			})
		}
	}
}

func TestOpenRejects(t *testing.T) {
	src := sampleJSON(200<<10, 1)
	zs := zstdBytes(t, src)
	ss := s2Bytes(t, src)
	corruptZ := append([]byte(nil), zs...)
	corruptZ[len(corruptZ)/2] ^= 0x55
	corruptS := append([]byte(nil), ss...)
	corruptS[len(corruptS)/2] ^= 0x55
	two := nats.Header{wire.HeaderContentEncoding: {"zstd", "zstd"}}
	for _, tc := range []struct {
		name   string
		hdr    nats.Header
		data   []byte
		lim    Limits
		code   pipeline.Code
		reason wire.Reason
	}{
		{"gzip", hdrEnc("gzip"), src, Limits{}, pipeline.CodeInvalidEncoding, ReasonUnknownEncoding},
		{"br", hdrEnc("br"), src, Limits{}, pipeline.CodeInvalidEncoding, ReasonUnknownEncoding},
		{"zstd-comma-list", hdrEnc("zstd, s2"), src, Limits{}, pipeline.CodeInvalidEncoding, ReasonUnknownEncoding},
		{"two-values", two, zs, Limits{}, pipeline.CodeInvalidEncoding, ReasonMultipleEncodings},
		{"zstd-not-zstd", hdrEnc("zstd"), src, Limits{}, pipeline.CodeInvalidEncoding, ReasonCorrupt},
		{"zstd-flipped", hdrEnc("zstd"), corruptZ, Limits{}, pipeline.CodeInvalidEncoding, ""},
		{"s2-not-s2", hdrEnc("s2"), src, Limits{}, pipeline.CodeInvalidEncoding, ReasonCorrupt},
		{"s2-flipped", hdrEnc("s2"), corruptS, Limits{}, pipeline.CodeInvalidEncoding, ""},
		{"identity-over-cap", nats.Header{}, src, Limits{MaxDecodedBytes: 1000}, pipeline.CodeBoundExceeded, ReasonDecodedBytes},
		{"zstd-over-cap", hdrEnc("zstd"), zs, Limits{MaxDecodedBytes: 1000}, pipeline.CodeBoundExceeded, ReasonDecodedBytes},
		{"s2-over-cap", hdrEnc("s2"), ss, Limits{MaxDecodedBytes: 1000}, pipeline.CodeBoundExceeded, ReasonDecodedBytes},
		{"claim-no-store", nats.Header{wire.HeaderClaim: {"x"}}, nil, Limits{}, pipeline.CodeInternal, ReasonNoStore},
		{"claim-other-bucket", nats.Header{wire.HeaderClaim: {"x"}, wire.HeaderClaimBucket: {"secrets"}}, nil, Limits{}, pipeline.CodeInvalidEncoding, ReasonClaimBucket},
		{"claim-empty-name", nats.Header{wire.HeaderClaim: {""}}, nil, Limits{}, pipeline.CodeInvalidEncoding, ReasonClaimName},
		{"claim-long-name", nats.Header{wire.HeaderClaim: {strings.Repeat("a", MaxClaimName+1)}}, nil, Limits{}, pipeline.CodeInvalidEncoding, ReasonClaimName},
		{"claim-two-names", nats.Header{wire.HeaderClaim: {"a", "b"}}, nil, Limits{}, pipeline.CodeInvalidEncoding, ReasonClaimName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(t, tc.hdr, tc.data, tc.lim)
			pe, ok := AsError(err)
			if !ok {
				t.Fatalf("err = %v, want *payload.Error", err)
			}
			if pe.Code != tc.code || (tc.reason != "" && pe.Reason != tc.reason) {
				t.Fatalf("got %s/%s, want %s/%s", pe.Code, pe.Reason, tc.code, tc.reason)
			}
			if !errors.Is(err, &Error{Code: tc.code}) {
				t.Fatal("errors.Is by code does not match")
			}
			msg := pe.Error()
			if strings.Contains(msg, "content") || strings.Contains(msg, "zstd:") || strings.Contains(msg, "s2:") || len(msg) > 80 {
				t.Fatalf("Error() carries more than code and reason: %q", msg)
			}
		})
	}
}

func TestLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		lim Limits
		ok  bool
	}{
		{Limits{}, true}, {Limits{MaxDecodedBytes: 1}, true}, {Limits{MaxWindowBytes: 1024}, true},
		{Limits{MaxDecodedBytes: -1}, false}, {Limits{MaxWindowBytes: -1}, false}, {Limits{MaxWindowBytes: 1023}, false},
	} {
		if got := tc.lim.Validate() == nil; got != tc.ok {
			t.Errorf("%+v: valid=%v, want %v", tc.lim, got, tc.ok)
		}
		if _, err := Open(context.Background(), nil, nil, nil, tc.lim); (err == nil) != tc.ok {
			t.Errorf("%+v: Open err=%v", tc.lim, err)
		}
	}
}

// TestOpenTruncated cuts compressed bodies at many offsets: every cut is
// an error (zstd has an end-of-frame mark and a checksum; the s2 body is
// one block, and a stream cut inside a block is detected).
func TestOpenTruncated(t *testing.T) {
	src := sampleJSON(100<<10, 3)
	for _, tc := range []struct {
		enc  string
		data []byte
	}{{"zstd", zstdBytes(t, src)}, {"s2", s2Bytes(t, src)}} {
		t.Run(tc.enc, func(t *testing.T) {
			step := max(1, len(tc.data)/97)
			for cut := 1; cut < len(tc.data); cut += step {
				got, err := readAll(t, hdrEnc(tc.enc), tc.data[:cut], Limits{})
				pe, ok := AsError(err)
				if !ok || pe.Code != pipeline.CodeInvalidEncoding {
					t.Fatalf("cut at %d/%d: err=%v, got %d bytes", cut, len(tc.data), err, len(got))
				}
			}
		})
	}
}

// TestOpenSplitIndependence reads the same bodies with reads of every
// size from 1 byte up, and through readers that return one byte at a time
// or data with EOF: the output never depends on the split.
func TestOpenSplitIndependence(t *testing.T) {
	src := sampleJSON(40<<10, 5)
	for _, tc := range []struct {
		enc  string
		data []byte
	}{{"", src}, {"zstd", zstdBytes(t, src)}, {"s2", s2Bytes(t, src)}} {
		for _, size := range []int{1, 2, 3, 7, 64, 1000, 4096, 65536} {
			r, err := Open(context.Background(), hdrEnc(tc.enc), tc.data, nil, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var out []byte
			buf := make([]byte, size)
			for {
				n, err := r.Read(buf)
				out = append(out, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s/%d: %v", tc.enc, size, err)
				}
			}
			r.Close()
			if !bytes.Equal(out, src) {
				t.Fatalf("%s: reads of %d bytes give a different body", tc.enc, size)
			}
		}
		r, _ := Open(context.Background(), hdrEnc(tc.enc), tc.data, nil, Limits{})
		if err := iotest.TestReader(r, src); err != nil {
			t.Fatalf("%s: iotest: %v", tc.enc, err)
		}
		r.Close()
	}
}

// zstdBomb returns a zstd stream of `frames` frames of 256 MiB of zeros
// each, made by streaming zeros into the encoder once and repeating the
// frame (concatenated frames are one stream).
var bombOnce sync.Once
var bombFrame []byte

func zstdBomb(t testing.TB, frames int) []byte {
	bombOnce.Do(func() {
		var b bytes.Buffer
		w, err := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		zeros := make([]byte, 1<<20)
		for i := 0; i < 256; i++ {
			if _, err := w.Write(zeros); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		bombFrame = b.Bytes()
	})
	return bytes.Repeat(bombFrame, frames)
}

// TestZstdBomb: 10 GiB of zeros in about 2 MiB is rejected with
// BOUND_EXCEEDED / decoded-bytes once the cap is crossed, without
// allocating anything near the decoded size.
func TestZstdBomb(t *testing.T) {
	bomb := zstdBomb(t, 40) // 40 x 256 MiB = 10 GiB decoded
	if len(bomb) > 4<<20 {  // about 2 MiB: a ratio of 5000 to 1
		t.Fatalf("bomb is %d bytes; the test wants a small one", len(bomb))
	}
	for _, tc := range []struct {
		lim  Limits
		bomb []byte
	}{
		{Limits{}, bomb},
		// A smaller cap also caps the encoded size (cap + 1/64 + 1 MiB), so
		// this one gets one 256 MiB frame: the whole bomb is refused at Open.
		{Limits{MaxDecodedBytes: 1 << 20}, bomb[:len(bombFrame)]},
	} {
		lim := tc.lim
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := Open(context.Background(), hdrEnc("zstd"), tc.bomb, nil, lim)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, r, make([]byte, 32<<10))
		r.Close()
		runtime.ReadMemStats(&after)
		if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonDecodedBytes}) {
			t.Fatalf("err = %v, want BOUND_EXCEEDED/decoded-bytes", err)
		}
		want := lim.MaxDecodedBytes
		if want == 0 {
			want = DefaultMaxDecodedBytes
		}
		if n != want {
			t.Fatalf("read %d bytes before the error, want exactly the cap %d", n, want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
			t.Fatalf("decoding the bomb allocated %d MiB", alloc>>20)
		}
	}
	if _, err := Open(context.Background(), hdrEnc("zstd"), bomb, nil, Limits{MaxDecodedBytes: 1 << 20}); !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonEncodedBytes}) {
		t.Fatalf("whole bomb under a 1 MiB cap: err = %v, want encoded-bytes at Open", err)
	}
}

// TestS2Bomb: the same for s2.
func TestS2Bomb(t *testing.T) {
	var b bytes.Buffer
	w := s2.NewWriter(&b, s2.WriterBlockSize(4<<20))
	zeros := make([]byte, 4<<20)
	for i := 0; i < 64; i++ { // 256 MiB
		w.Write(zeros)
	}
	w.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readAll(t, hdrEnc("s2"), b.Bytes(), Limits{MaxDecodedBytes: 8 << 20})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonDecodedBytes}) {
		t.Fatalf("err = %v", err)
	}
	// io.ReadAll keeps what it read (8 MiB, grown by doubling) plus the
	// reader's two 4 MiB block buffers.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
}

// TestZstdWindow: a frame that asks for a larger window than allowed is
// refused before its memory is allocated.
func TestZstdWindow(t *testing.T) {
	src := make([]byte, 20<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(src); i += 8 << 10 {
		src[i] = byte(rng.Uint32())
	}
	big := zstdBytes(t, src, zstd.WithWindowSize(64<<20), zstd.WithEncoderLevel(zstd.SpeedFastest))
	_, err := readAll(t, hdrEnc("zstd"), big, Limits{})
	if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonZstdWindow}) {
		t.Fatalf("err = %v, want BOUND_EXCEEDED/zstd-window", err)
	}
	got, err := readAll(t, hdrEnc("zstd"), big, Limits{MaxWindowBytes: 64 << 20})
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("with a 64 MiB window: err=%v, equal=%v", err, bytes.Equal(got, src))
	}
}

// TestEncodedBytesCap: skippable frames decode to nothing; the encoded
// cap ends them.
func TestEncodedBytesCap(t *testing.T) {
	frame := make([]byte, 8+64<<10)
	copy(frame, []byte{0x50, 0x2a, 0x4d, 0x18}) // skippable frame magic
	frame[4], frame[5], frame[6] = 0, 0, 1      // 64 KiB
	data := bytes.Repeat(frame, 40)             // 2.5 MiB, nothing decoded
	_, err := readAll(t, hdrEnc("zstd"), data, Limits{MaxDecodedBytes: 1024})
	if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonEncodedBytes}) {
		t.Fatalf("err = %v, want BOUND_EXCEEDED/encoded-bytes", err)
	}
	// Under the cap, skippable frames are legal and decode to nothing.
	got, err := readAll(t, hdrEnc("zstd"), frame, Limits{})
	if err != nil || len(got) != 0 {
		t.Fatalf("one skippable frame: %d bytes, %v", len(got), err)
	}
}

func TestReadAfterClose(t *testing.T) {
	r, err := Open(context.Background(), hdrEnc("s2"), s2Bytes(t, sampleJSON(1000, 1)), nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, &Error{Code: pipeline.CodeInternal, Reason: ReasonClosed}) {
		t.Fatalf("Read after Close: %v", err)
	}
}

// onlyReader hides a reader's WriteTo, so io.Copy reads it.
type onlyReader struct{ io.Reader }

// shortWriter takes at most n bytes, then fails.
type shortWriter struct {
	bytes.Buffer
	n int
}

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k, _ := w.Buffer.Write(p[:w.n])
		w.n = 0
		return k, errors.New("short")
	}
	w.n -= len(p)
	return w.Buffer.Write(p)
}

// TestMemBodyWriteTo checks that a plain body handed over in place
// (io.WriterTo, what Sanitize uses) gives exactly what reading it gives:
// the same bytes, the same bound error and Failure, below, at and above the
// decoded-bytes limit; and that a writer that stops early leaves the rest
// to Read.
func TestMemBodyWriteTo(t *testing.T) {
	src := sampleJSON(5000, 3)
	for _, max := range []int64{1, 999, 4999, 5000, 5001, 1 << 20} {
		for _, hdr := range []nats.Header{nil, hdrEnc("identity")} {
			r1, err := Open(context.Background(), hdr, src, nil, Limits{MaxDecodedBytes: max})
			if err != nil {
				t.Fatal(err)
			}
			r2, _ := Open(context.Background(), hdr, src, nil, Limits{MaxDecodedBytes: max})
			wt, ok := r1.(io.WriterTo)
			if !ok {
				t.Fatalf("a plain body is not an io.WriterTo")
			}
			var a, b bytes.Buffer
			_, errA := wt.WriteTo(&a)
			_, errB := io.Copy(&b, onlyReader{r2})
			if !bytes.Equal(a.Bytes(), b.Bytes()) || (errA == nil) != (errB == nil) {
				t.Fatalf("max %d: WriteTo %d bytes (%v), Read %d bytes (%v)", max, a.Len(), errA, b.Len(), errB)
			}
			if fa, fb := Failure(r1), Failure(r2); (fa == nil) != (fb == nil) || fa != nil && *fa != *fb {
				t.Fatalf("max %d: Failure %v and %v", max, fa, fb)
			}
			r1.Close()
			r2.Close()
		}
	}
	r, _ := Open(context.Background(), nil, src, nil, Limits{})
	w := &shortWriter{n: 1234}
	if _, err := r.(io.WriterTo).WriteTo(w); err == nil {
		t.Fatal("the writer's error was lost")
	}
	rest, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(append(w.Bytes(), rest...), src) {
		t.Fatalf("after a short write, Read gives %d bytes (%v), want the other %d", len(rest), err, len(src)-1234)
	}
}
