package payload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkOpen decodes JSON tool results of three sizes; SetBytes counts
// decoded bytes.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{4 << 10, 64 << 10, 1 << 20} {
		src := sampleJSON(n, uint64(n))
		for _, tc := range []struct {
			enc  string
			data []byte
		}{{"identity", src}, {"zstd", zstdBytes(b, src)}, {"s2", s2Bytes(b, src)}} {
			b.Run(fmt.Sprintf("%s/%dKiB", tc.enc, n>>10), func(b *testing.B) {
				hdr := hdrEnc(tc.enc)
				buf := make([]byte, 32<<10)
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					r, err := Open(context.Background(), hdr, tc.data, nil, Limits{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.CopyBuffer(io.Discard, r, buf); err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
			})
		}
	}
}

// BenchmarkSinkFinish writes an output into a Sink and finishes it inline
// (compressed above the threshold); SetBytes counts output bytes.
func BenchmarkSinkFinish(b *testing.B) {
	for _, n := range []int{4 << 10, 64 << 10, 512 << 10} {
		src := sampleJSON(n, uint64(n))
		for _, enc := range []string{"identity", "zstd", "s2"} {
			b.Run(fmt.Sprintf("%s/%dKiB", enc, n>>10), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					s := NewSink(SinkOptions{Encoding: enc, CompressAbove: 1024})
					s.Write(src)
					if _, _, err := s.Finish(context.Background()); err != nil {
						b.Fatal(err)
					}
					s.Close()
				}
			})
		}
	}
}

// BenchmarkClaimRead reads a claimed 8 MiB object from the embedded
// server's Object Store through Open (64 chunks of 128 KiB, at most
// ReadAheadChunks in flight); SetBytes counts the object's bytes.
func BenchmarkClaimRead(b *testing.B) {
	_, obs := startStore(b)
	ctx := context.Background()
	src := sampleJSON(8<<20, 11)
	hdr, body, err := Claim(ctx, obs, "", "bench", bytes.NewReader(src), "")
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(ctx, hdr, body, obs, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.CopyBuffer(io.Discard, r, buf); err != nil || n != int64(len(src)) {
			b.Fatal(n, err)
		}
		r.Close()
	}
}

// BenchmarkSinkWrite writes a 256 KiB output into a Sink in pieces
// (appended into AppendBuffer's room, or plain Writes), with Reuse, and
// finishes it inline uncompressed: the inline path of a worker reply.
// Pieces of 32 KiB are what the pass writes (it flushes at 32 KiB); 64-byte
// pieces show the cost of one Write. SetBytes counts output bytes.
func BenchmarkSinkWrite(b *testing.B) {
	const n = 256 << 10
	src := sampleJSON(n, 7)
	for _, piece := range []int{64, 32 << 10} {
		for _, mode := range []string{"append", "write"} {
			b.Run(fmt.Sprintf("%s/%dB", mode, piece), func(b *testing.B) {
				b.SetBytes(n)
				b.ReportAllocs()
				for b.Loop() {
					s := NewSink(SinkOptions{Encoding: "identity", Reuse: true, MaxPayload: 1 << 20})
					for off := 0; off < len(src); off += piece {
						p := src[off:min(off+piece, len(src))]
						if mode == "append" {
							if room := s.AppendBuffer(len(p)); room != nil {
								p = append(room, p...)
							}
						}
						s.Write(p)
					}
					if _, _, err := s.Finish(context.Background()); err != nil {
						b.Fatal(err)
					}
					s.Close()
				}
			})
		}
	}
}
