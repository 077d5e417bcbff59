package payload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// writeChunks writes b to s in uneven chunks.
func writeChunks(t testing.TB, s *Sink, b []byte) {
	t.Helper()
	for i, step := 0, 1; i < len(b); step = step*3 + 1 {
		j := min(len(b), i+step)
		if _, err := s.Write(b[i:j]); err != nil {
			t.Fatal(err)
		}
		i = j
	}
}

func TestSinkInline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    SinkOptions
		n       int
		wantEnc string
	}{
		{"small-plain", SinkOptions{}, 1000, ""},
		{"at-threshold-plain", SinkOptions{CompressAbove: 4096}, 4096, ""},
		{"above-threshold-default", SinkOptions{CompressAbove: 4096}, 4097, DefaultEncoding},
		{"above-threshold-zstd", SinkOptions{CompressAbove: 4096, Encoding: "zstd"}, 4097, "zstd"},
		{"above-threshold-s2", SinkOptions{CompressAbove: 4096, Encoding: "s2"}, 100 << 10, "s2"},
		{"identity-never-compresses", SinkOptions{CompressAbove: 10, Encoding: "identity"}, 100 << 10, ""},
		{"negative-never-compresses", SinkOptions{CompressAbove: -1}, 500 << 10, ""},
		{"default-threshold", SinkOptions{}, 300 << 10, DefaultEncoding},
		// Under the threshold but over the inline cap: compressed rather
		// than claim-checked.
		{"below-threshold-over-cap", SinkOptions{MaxPayload: 64 << 10}, 200 << 10, DefaultEncoding},
		{"spooled-plain", SinkOptions{MemoryLimit: 1024, CompressAbove: -1}, 200 << 10, ""},
		{"spooled-zstd", SinkOptions{MemoryLimit: 1024, CompressAbove: 1, Encoding: "zstd"}, 200 << 10, "zstd"},
		{"spooled-s2", SinkOptions{MemoryLimit: 1024, CompressAbove: 1, Encoding: "s2"}, 200 << 10, "s2"},
		// 5 MiB of compressible JSON fits in 1 MiB once compressed, even
		// though it was spooled to a file.
		{"large-compresses-inline", SinkOptions{MemoryLimit: 64 << 10, Encoding: "zstd"}, 5 << 20, "zstd"},
		{"large-compresses-inline-s2", SinkOptions{MemoryLimit: 64 << 10}, 2 << 20, "s2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.SpoolDir = t.TempDir()
			s := NewSink(tc.opts)
			defer s.Close()
			src := sampleJSON(tc.n, uint64(tc.n))
			writeChunks(t, s, src)
			if s.Len() != int64(len(src)) {
				t.Fatalf("Len = %d", s.Len())
			}
			hdr, body, err := s.Finish(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := hdr.Get(wire.HeaderContentEncoding); got != tc.wantEnc {
				t.Fatalf("Content-Encoding %q, want %q", got, tc.wantEnc)
			}
			if IsClaim(hdr) {
				t.Fatal("inline output sent as a claim")
			}
			if len(body) > DefaultMaxPayload-HeaderReserve {
				t.Fatalf("inline body of %d bytes", len(body))
			}
			if tc.wantEnc != "" && len(body) >= len(src) {
				t.Fatalf("compressed body %d >= %d", len(body), len(src))
			}
			got, err := readAll(t, hdr, body, Limits{})
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("round trip: err=%v equal=%v", err, bytes.Equal(got, src))
			}
		})
	}
}

func TestSinkTooLargeWithoutStore(t *testing.T) {
	s := NewSink(SinkOptions{CompressAbove: -1, MaxPayload: 64 << 10, SpoolDir: t.TempDir()})
	defer s.Close()
	writeChunks(t, s, sampleJSON(100<<10, 1))
	_, _, err := s.Finish(context.Background())
	if !errors.Is(err, &Error{Code: pipeline.CodeBoundExceeded, Reason: ReasonMaxPayload}) {
		t.Fatalf("err = %v", err)
	}
}

func TestSinkDiscardAndSpoolRemoved(t *testing.T) {
	dir := t.TempDir()
	s := NewSink(SinkOptions{MemoryLimit: 10, SpoolDir: dir})
	if err := s.Discard(); err != nil {
		t.Fatal("Discard of an empty sink:", err)
	}
	writeChunks(t, s, []byte(`{"a":"a long enough value to spool"}`))
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("spool file left visible: %d entries", len(ents))
	}
	if err := s.Discard(); err != nil || s.Len() != 0 {
		t.Fatalf("Discard: %v, Len %d", err, s.Len())
	}
	if _, err := s.Write([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	_, body, err := s.Finish(context.Background())
	if err != nil || string(body) != `{}` {
		t.Fatalf("after Discard: %q %v", body, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSinkOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o  SinkOptions
		ok bool
	}{
		{SinkOptions{}, true},
		{SinkOptions{Encoding: "s2", MaxPayload: 64 << 10}, true},
		{SinkOptions{Encoding: "gzip"}, false},
		{SinkOptions{MaxPayload: -1}, false},
		{SinkOptions{MaxPayload: HeaderReserve}, false},
		{SinkOptions{MemoryLimit: -5}, false},
		{SinkOptions{ObjectName: string(make([]byte, MaxClaimName+1))}, false},
	} {
		if got := tc.o.Validate() == nil; got != tc.ok {
			t.Errorf("%+v: valid=%v, want %v", tc.o, got, tc.ok)
		}
		s := NewSink(tc.o)
		_, werr := s.Write([]byte("x"))
		_, _, ferr := s.Finish(context.Background())
		if !tc.ok && (!errors.Is(werr, ErrSinkOptions) || !errors.Is(ferr, ErrSinkOptions)) {
			t.Errorf("%+v: Write %v, Finish %v", tc.o, werr, ferr)
		}
	}
}

// TestSinkAsPipelineOutput runs a real pass into a Sink, with a failure
// midway (so the pass Discards and writes an error result).
func TestSinkAsPipelineOutput(t *testing.T) {
	eng, err := pipeline.NewEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"valid", []byte(`{"content":[{"type":"text","text":"hello"}]}`), true},
		{"invalid", append(sampleJSON(300<<10, 9), []byte(`,,,`)...), false},
	} {
		s := NewSink(SinkOptions{MemoryLimit: 16 << 10, CompressAbove: 1024, SpoolDir: t.TempDir()})
		ev, err := eng.Sanitize(context.Background(), bytes.NewReader(tc.in), s, pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if (ev.Code == "") != tc.ok {
			t.Fatalf("%s: code %q", tc.name, ev.Code)
		}
		hdr, body, err := s.Finish(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), hdr, body, nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		r.Close()
		if err != nil || !json.Valid(out) {
			t.Fatalf("%s: output not valid JSON after the round trip (%v)", tc.name, err)
		}
		s.Close()
	}
}

// TestSinkReuse checks that Sinks sharing pooled memory each return what
// was written to them: a shorter body after a longer one carries nothing
// of it, and a body above MaxReusedMemory works as any other.
func TestSinkReuse(t *testing.T) {
	sizes := []int{48 << 10, 100, 64 << 10, 1, MaxReusedMemory + 1, 10 << 10, 0, 300}
	for round := range 3 {
		for i, n := range sizes {
			want := bytes.Repeat([]byte{byte('a' + (i+round)%26)}, n)
			s := NewSink(SinkOptions{CompressAbove: -1, MaxPayload: 4 << 20, Reuse: true})
			// Two writes, as the pass writes in pieces.
			if _, err := s.Write(want[:n/2]); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Write(want[n/2:]); err != nil {
				t.Fatal(err)
			}
			_, body, err := s.Finish(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("round %d size %d: body of %d bytes differs from what was written", round, n, len(body))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSinkAppendBuffer checks the in-place protocol the pass uses
// (pipeline.AppendOutput): bytes appended to the room AppendBuffer gives are
// taken without a copy, other bytes are copied, there is no room past
// MemoryLimit or once spooled, and the body is what was written either way.
func TestSinkAppendBuffer(t *testing.T) {
	s := NewSink(SinkOptions{CompressAbove: -1, MaxPayload: 8 << 20, MemoryLimit: 100 << 10, SpoolDir: t.TempDir()})
	defer s.Close()
	var want []byte
	b := s.AppendBuffer(1000)
	if b == nil || cap(b) < 1000 || len(b) != 0 {
		t.Fatalf("AppendBuffer(1000) = len %d cap %d", len(b), cap(b))
	}
	b = append(b, "in place"...)
	want = append(want, "in place"...)
	if _, err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	if &s.sp.Bytes()[0] != &b[0] {
		t.Fatal("bytes appended to the room were copied")
	}
	foreign := []byte(", copied")
	want = append(want, foreign...)
	if _, err := s.Write(foreign); err != nil {
		t.Fatal(err)
	}
	if s.AppendBuffer(100<<10) != nil {
		t.Fatal("room past MemoryLimit")
	}
	// Grown room, then past the limit: the Sink spools.
	b = s.AppendBuffer(60 << 10)
	b = append(b, bytes.Repeat([]byte("x"), 60<<10)...)
	want = append(want, b...)
	if _, err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("y"), 50<<10)
	want = append(want, big...)
	if _, err := s.Write(big); err != nil {
		t.Fatal(err)
	}
	if s.AppendBuffer(10) != nil {
		t.Fatal("room once spooled")
	}
	_, body, err := s.Finish(context.Background())
	if err != nil || !bytes.Equal(body, want) {
		t.Fatalf("body of %d bytes (%v), want %d", len(body), err, len(want))
	}
}

// TestSanitizeIntoSink runs documents from 1 KiB to 1.5 MiB through the
// pass into a Sink (which lends its memory, pipeline.AppendOutput) and into
// a pipeline.Buffer (which does not), with pooled memory and with a small
// MemoryLimit that spools: the outputs are the same.
func TestSanitizeIntoSink(t *testing.T) {
	pol := pipeline.DefaultPolicy()
	pol.Limits = map[string]int64{"text-chars": 64 << 20, "string-chars": 64 << 20, "output-bytes": 64 << 20}
	eng, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	info := pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "t"}
	for _, n := range []int{1 << 10, 100 << 10, 300 << 10, 1500 << 10} {
		doc := sampleJSON(n, uint64(n))
		var ref pipeline.Buffer
		if _, err := eng.Sanitize(context.Background(), bytes.NewReader(doc), &ref, info); err != nil {
			t.Fatal(err)
		}
		for _, o := range []SinkOptions{
			{CompressAbove: -1, MaxPayload: 8 << 20, Reuse: true},
			{CompressAbove: -1, MaxPayload: 8 << 20, MemoryLimit: 200 << 10, SpoolDir: t.TempDir()},
		} {
			s := NewSink(o)
			if _, err := eng.Sanitize(context.Background(), bytes.NewReader(doc), s, info); err != nil {
				t.Fatal(err)
			}
			_, body, err := s.Finish(context.Background())
			if err != nil || !bytes.Equal(body, ref.Bytes()) {
				t.Fatalf("%d bytes, memory limit %d: the Sink holds %d bytes (%v), the Buffer %d", n, o.MemoryLimit, len(body), err, ref.Len())
			}
			s.Close()
		}
	}
}
