package payload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// startStore starts an embedded server and returns the claim bucket.
func startStore(t testing.TB) (jetstream.JetStream, jetstream.ObjectStore) {
	t.Helper()
	s := testnats.RunServer(t, testnats.Options{})
	_, js := testnats.Connect(t, s.ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obs, err := EnsureBucket(ctx, js, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Idempotent: a second worker starting does the same.
	if _, err := EnsureBucket(ctx, js, "", 0); err != nil {
		t.Fatal(err)
	}
	return js, obs
}

func TestClaimCheckRoundTrip(t *testing.T) {
	_, obs := startStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name    string
		opts    SinkOptions
		src     []byte
		wantEnc string
	}{
		// Random-looking bytes do not compress below the inline cap.
		{"plain-spooled", SinkOptions{CompressAbove: -1, MaxPayload: 64 << 10, MemoryLimit: 16 << 10}, sampleJSON(3<<20, 1), ""},
		{"zstd-spooled", SinkOptions{CompressAbove: 1024, MaxPayload: 64 << 10, MemoryLimit: 16 << 10, Encoding: "zstd"}, sampleJSON(3<<20, 2), "zstd"},
		{"s2-in-memory", SinkOptions{CompressAbove: 1024, MaxPayload: 32 << 10, Encoding: "s2"}, sampleJSON(1<<20, 3), "s2"},
		{"named", SinkOptions{CompressAbove: -1, MaxPayload: 16 << 10, ObjectName: "req-42.out"}, sampleJSON(100<<10, 4), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Store = obs
			tc.opts.SpoolDir = t.TempDir()
			s := NewSink(tc.opts)
			defer s.Close()
			writeChunks(t, s, tc.src)
			hdr, body, err := s.Finish(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !IsClaim(hdr) || hdr.Get(wire.HeaderClaimBucket) != wire.BucketPayloads || hdr.Get(wire.HeaderContentEncoding) != tc.wantEnc {
				t.Fatalf("headers %v", hdr)
			}
			if tc.opts.ObjectName != "" && hdr.Get(wire.HeaderClaim) != tc.opts.ObjectName {
				t.Fatalf("object name %q", hdr.Get(wire.HeaderClaim))
			}
			var cb ClaimBody
			if err := json.Unmarshal(body, &cb); err != nil || cb.Claim.Name != hdr.Get(wire.HeaderClaim) || cb.Claim.Size != int64(len(tc.src)) || len(body) > 512 {
				t.Fatalf("claim body %q (%v)", body, err)
			}
			r, err := Open(ctx, hdr, body, obs, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, tc.src) {
				t.Fatalf("round trip: err=%v, %d bytes, equal=%v", err, len(got), bytes.Equal(got, tc.src))
			}
			// A smaller cap is enforced on the stored body too.
			r, err = Open(ctx, hdr, body, obs, Limits{MaxDecodedBytes: int64(len(tc.src) - 1)})
			if err == nil {
				_, err = io.ReadAll(r)
				r.Close()
			}
			if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded}) {
				t.Fatalf("cap below the size: err=%v", err)
			}
			if err := Release(ctx, obs, hdr); err != nil {
				t.Fatal(err)
			}
			if err := Release(ctx, obs, hdr); err != nil {
				t.Fatal("second Release:", err)
			}
			if _, err := Open(ctx, hdr, body, obs, Limits{}); !errors.Is(err, &Error{Code: pipeline.CodeInvalidEncoding, Reason: ReasonClaimNotFound}) {
				t.Fatalf("after Release: %v", err)
			}
		})
	}
}

func TestClaimProducer(t *testing.T) {
	_, obs := startStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src := sampleJSON(2<<20, 8)
	// Already-compressed bytes from a producer: Claim labels them.
	hdr, _, err := Claim(ctx, obs, "", "", bytes.NewReader(zstdBytes(t, src)), "zstd")
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Get(wire.HeaderContentEncoding) != "zstd" || len(hdr.Get(wire.HeaderClaim)) != 32 {
		t.Fatalf("headers %v", hdr)
	}
	r, err := Open(ctx, hdr, nil, obs, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("err=%v equal=%v", err, bytes.Equal(got, src))
	}
	for _, tc := range []struct {
		name   string
		store  jetstream.ObjectStore
		enc    string
		code   pipeline.Code
		reason wire.Reason
	}{
		{"no-store", nil, "", pipeline.CodeInternal, ReasonNoStore},
		{"bad-encoding", obs, "gzip", pipeline.CodeInvalidEncoding, ReasonUnknownEncoding},
	} {
		if _, _, err := Claim(ctx, tc.store, "", "", bytes.NewReader(src), tc.enc); !errors.Is(err, &Error{Code: tc.code, Reason: tc.reason}) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// A claim on a bucket other than the configured one.
	if _, err := Open(ctx, hdr, nil, obs, Limits{Bucket: "other"}); !errors.Is(err, &Error{Code: pipeline.CodeInvalidEncoding, Reason: ReasonClaimBucket}) {
		t.Fatalf("other bucket: %v", err)
	}
	// A cancelled context is a TIMEOUT, and errors.Is sees the context error.
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	_, err = Open(cctx, hdr, nil, obs, Limits{})
	if !errors.Is(err, &Error{Code: pipeline.CodeTimeout}) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if pe, _ := AsError(err); !pe.Temporary() {
		t.Fatal("TIMEOUT not temporary")
	}
}

// TestClaimBoundedMemory reads a 128 MiB stored body through a *Store while sampling the
// live heap (after a GC, every 4 MiB read): the object is streamed chunk by
// chunk, never held whole. The embedded server runs in this process, so
// its block cache counts too.
func TestClaimBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("128 MiB through the Object Store")
	}
	_, obs := startStore(t)
	// Streaming 128 MiB takes about 50 s under -race on a loaded 2-core
	// machine: no wall-clock guess, the test's own deadline bounds it.
	ctx := testnats.Context(t)
	const size = 128 << 20
	gen := io.LimitReader(&patternReader{}, size)
	hdr, body, err := Claim(ctx, obs, "", "big", gen, "")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	r, err := Open(ctx, hdr, body, obs, Limits{MaxDecodedBytes: size})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var peak uint64
	buf := make([]byte, 64<<10)
	var n int64
	for i := 0; ; i++ {
		k, err := r.Read(buf)
		n += int64(k)
		if i%64 == 0 { // every 4 MiB: what is live, garbage collected
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n != size {
		t.Fatalf("read %d bytes", n)
	}
	if grew := int64(peak) - int64(base); grew > 48<<20 {
		t.Fatalf("heap in use grew by %d MiB while streaming a 128 MiB object", grew>>20)
	}
	t.Logf("heap in use grew by at most %d KiB", (int64(peak)-int64(base))>>10)
}

// patternReader yields an endless, cheap, non-repeating-looking stream.
type patternReader struct{ i uint32 }

func (p *patternReader) Read(b []byte) (int, error) {
	for k := range b {
		p.i = p.i*1664525 + 1013904223
		b[k] = byte(p.i >> 24)
	}
	return len(b), nil
}

// stallingIter delivers what its iterator delivers until after chunks
// chunks, then nothing: a pull request lost between client and server (or
// nats.go skipping its refill, docs/payloads.md).
type stallingIter struct {
	jetstream.MessagesContext
	chunks int
}

func (s *stallingIter) Next(opts ...jetstream.NextOpt) (jetstream.Msg, error) {
	if s.chunks == 0 {
		// As Next with no message, until the poll's context ends.
		time.Sleep(chunkPoll)
		return nil, context.DeadlineExceeded
	}
	s.chunks--
	return s.MessagesContext.Next(opts...)
}

func TestChunkReaderResumesAfterStall(t *testing.T) {
	_, obs := startStore(t)
	st := obs.(*Store)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func(p, s time.Duration) { chunkPoll, chunkStall = p, s }(chunkPoll, chunkStall)
	// A stall is declared after chunkStall without a chunk. Under load (the
	// race suite on two cores) a real chunk can be that late too, so the
	// injected stalls are what the cases count at least: each one restarts
	// the read exactly once, and a late real chunk may add a restart, never
	// remove one.
	chunkPoll, chunkStall = 20*time.Millisecond, 600*time.Millisecond

	src := sampleJSON(1<<20+777, 9) // nine chunks of 128 KiB
	if _, err := obs.PutBytes(ctx, "stall", src); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		after       []int // chunks delivered before each stall
		wantErr     bool
		wantRestart int
	}{
		{"first chunk", []int{0}, false, 1},
		{"middle", []int{3}, false, 1},
		{"twice", []int{2, 4}, false, 2},
		{"at the end", []int{8}, false, 1},
		// Never a chunk again: the read fails after chunkStalls stalls
		// rather than wait for its context.
		{"gone", []int{5, 0, 0}, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.after
			testHookIter = func(it jetstream.MessagesContext) jetstream.MessagesContext {
				if len(plan) == 0 {
					return it
				}
				n := plan[0]
				plan = plan[1:]
				return &stallingIter{MessagesContext: it, chunks: n}
			}
			defer func() { testHookIter = nil }()
			c, e := st.open(ctx, "stall")
			if e != nil {
				t.Fatal(e)
			}
			defer c.Close()
			got, err := io.ReadAll(c)
			if tc.wantErr {
				if !errors.Is(err, &Error{Code: pipeline.CodeInternal, Reason: ReasonClaimStore}) {
					t.Fatalf("err %v after %d bytes", err, len(got))
				}
			} else if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("err %v, %d of %d bytes, equal %v", err, len(got), len(src), bytes.Equal(got, src))
			}
			if c.restarts < tc.wantRestart {
				t.Fatalf("%d restarts, want %d", c.restarts, tc.wantRestart)
			}
			if c.restarts > tc.wantRestart {
				t.Logf("%d restarts for %d injected stalls: a real chunk came later than the stall time", c.restarts, tc.wantRestart)
			}
			if !tc.wantErr && len(plan) != 0 {
				t.Fatalf("%d injected stalls never reached", len(plan))
			}
		})
	}
}
