package payload

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// SinkOptions configures a Sink. The zero value is usable: outputs above
// DefaultCompressAbove are compressed with DefaultEncoding (s2), and outputs that do not
// fit in DefaultMaxPayload fail with BOUND_EXCEEDED / "max-payload"
// because no Store is set.
type SinkOptions struct {
	// CompressAbove: outputs longer than this many bytes are compressed
	// (default DefaultCompressAbove; negative: never).
	CompressAbove int
	// Encoding: wire.EncodingS2 (default, DefaultEncoding),
	// wire.EncodingZstd, or wire.EncodingIdentity to never compress.
	Encoding string
	// MaxPayload is the NATS server's max_payload (default
	// DefaultMaxPayload). An inline body is at most MaxPayload minus
	// HeaderReserve; a longer one goes to Store. Must exceed HeaderReserve.
	MaxPayload int
	// Store receives outputs that do not fit inline. Nil: such outputs
	// fail with BOUND_EXCEEDED / "max-payload".
	Store jetstream.ObjectStore
	// Bucket is the name of Store's bucket, written into the claim header
	// (default wire.BucketPayloads).
	Bucket string
	// ObjectName names the stored object (default: 32 random hex digits).
	// A name derived from the input makes a retried publish overwrite the
	// same object rather than leave a second one.
	ObjectName string
	// SpoolDir holds the spool file (default os.TempDir()). The file is
	// unlinked as soon as it is created.
	SpoolDir string
	// MemoryLimit is what the Sink keeps in memory before it spools to a
	// file (default DefaultMemoryLimit).
	MemoryLimit int
	// Reuse lets the Sink take its memory from a process-wide pool and
	// give it back on Close (buffers up to MaxReusedMemory). Set it only
	// when nothing reads the body returned by Finish after Close: true for
	// a body published with nats.Conn.PublishMsg, which copies it before it
	// returns; false for a JetStream asynchronous publish, which keeps the
	// message to send it again.
	Reuse bool
}

// MaxReusedMemory is the largest buffer a Sink with Reuse gives back to
// the pool; a larger one is left to the garbage collector, so the pool
// never pins more than this per concurrent message.
const MaxReusedMemory = 1 << 20

// sinkMem holds Sink buffers for reuse (*[]byte, length 0).
var sinkMem sync.Pool

// ErrSinkOptions reports SinkOptions that a Sink refuses.
var ErrSinkOptions = errors.New("payload: invalid sink options (unknown encoding, negative size, MaxPayload not above HeaderReserve, or ObjectName too long)")

func (o SinkOptions) withDefaults() (SinkOptions, error) {
	if o.MaxPayload < 0 || o.MemoryLimit < 0 || (o.MaxPayload > 0 && o.MaxPayload <= HeaderReserve) || len(o.ObjectName) > MaxClaimName {
		return o, ErrSinkOptions
	}
	enc, perr := checkEncoding(o.Encoding)
	if perr != nil {
		return o, ErrSinkOptions
	}
	o.Encoding = enc
	if o.CompressAbove == 0 {
		o.CompressAbove = DefaultCompressAbove
	}
	if o.MaxPayload == 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	if o.Bucket == "" {
		o.Bucket = wire.BucketPayloads
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	return o, nil
}

// Validate reports whether NewSink accepts o.
func (o SinkOptions) Validate() error {
	_, err := o.withDefaults()
	return err
}

// Sink is a pipeline.Output that holds one output in bounded memory (up to
// MemoryLimit, then an unlinked spool file) and turns it into what to
// publish with Finish. It is not safe for concurrent use.
type Sink struct {
	o      SinkOptions
	optErr error
	mem    []byte
	file   *os.File
	n      int64
}

// NewSink returns a Sink. Options that Validate refuses make every Write
// and Finish fail with ErrSinkOptions.
func NewSink(o SinkOptions) *Sink {
	o2, err := o.withDefaults()
	s := &Sink{o: o2, optErr: err}
	if o2.Reuse {
		if b, ok := sinkMem.Get().(*[]byte); ok {
			s.mem = (*b)[:0]
		}
	}
	return s
}

// AppendBuffer implements pipeline.AppendOutput: while the output is in
// memory and n more bytes stay within MemoryLimit, it returns the free room
// after it (grown to n bytes if needed), and a Write of what was appended
// there takes it in place.
func (s *Sink) AppendBuffer(n int) []byte {
	if s.optErr != nil || s.file != nil || len(s.mem)+n > s.o.MemoryLimit {
		return nil
	}
	if cap(s.mem)-len(s.mem) < n {
		s.mem = append(make([]byte, 0, max(2*cap(s.mem), len(s.mem)+n)), s.mem...)
	}
	return s.mem[len(s.mem):len(s.mem)]
}

// Write implements io.Writer.
func (s *Sink) Write(b []byte) (int, error) {
	if s.optErr != nil {
		return 0, s.optErr
	}
	if s.file == nil && len(s.mem)+len(b) <= s.o.MemoryLimit {
		if k := len(s.mem); len(b) > 0 && cap(s.mem)-k >= len(b) && &s.mem[k:cap(s.mem)][0] == &b[0] {
			// Appended to the room AppendBuffer gave: already in place.
			s.mem = s.mem[:k+len(b)]
		} else {
			s.mem = append(s.mem, b...)
		}
		s.n += int64(len(b))
		return len(b), nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.o.SpoolDir, "mcp-sanitize-sink-*")
		if err != nil {
			return 0, newErr(wire.CodeInternal, ReasonSpool)
		}
		os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
		s.file = f
		if _, err := f.Write(s.mem); err != nil {
			return 0, newErr(wire.CodeInternal, ReasonSpool)
		}
		s.mem = s.mem[:0]
	}
	n, err := s.file.Write(b)
	s.n += int64(n)
	if err != nil {
		return n, newErr(wire.CodeInternal, ReasonSpool)
	}
	return n, nil
}

// Discard forgets what was written.
func (s *Sink) Discard() error {
	s.mem = s.mem[:0]
	s.n = 0
	if s.file != nil {
		err := s.file.Close()
		s.file = nil
		return err
	}
	return nil
}

// Len returns the bytes written since the last Discard.
func (s *Sink) Len() int64 { return s.n }

// Close removes the spool file and drops the memory held.
func (s *Sink) Close() error {
	err := s.Discard()
	if s.o.Reuse && s.mem != nil && cap(s.mem) <= MaxReusedMemory {
		b := s.mem[:0]
		sinkMem.Put(&b)
	}
	s.mem = nil
	return err
}

// content returns a reader of everything written.
func (s *Sink) content() io.Reader {
	if s.file == nil {
		return &byteReader{b: s.mem}
	}
	return io.NewSectionReader(s.file, 0, s.n)
}

// byteReader is a minimal reader over a slice (not a *bytes.Buffer, see
// Open).
type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// Finish returns the header and body to publish for what was written:
//
//   - inline, as written, when it is at most CompressAbove bytes (or
//     compression is off: identity encoding or a negative CompressAbove)
//     and fits in MaxPayload-HeaderReserve;
//   - inline, compressed with Encoding and Content-Encoding set, when it is
//     longer than CompressAbove or does not fit as written, and its
//     compressed form fits;
//   - otherwise by reference: streamed (compressed unless compression is
//     off) into Store, and returned as a small JSON claim body
//     with Mcp-Claim, Mcp-Claim-Bucket and, when compressed,
//     Content-Encoding. Without a Store this is BOUND_EXCEEDED /
//     "max-payload".
//
// The body is valid until the next Write, Discard or Close. The header is
// new and the caller may add to it. Finish does not Discard; a stored
// object belongs to whoever reads it (see Release).
func (s *Sink) Finish(ctx context.Context) (nats.Header, []byte, error) {
	if s.optErr != nil {
		return nil, nil, s.optErr
	}
	maxBody := int64(s.o.MaxPayload - HeaderReserve)
	// Compress above the threshold, and also below it when the output
	// would not fit inline: a compressed inline body beats a claim.
	compress := s.o.Encoding != wire.EncodingIdentity && s.o.CompressAbove >= 0 &&
		(s.n > int64(s.o.CompressAbove) || s.n > maxBody)
	hdr := nats.Header{}
	if compress {
		body, fits, err := s.compressInline(maxBody)
		if err != nil {
			return nil, nil, err
		}
		if fits {
			hdr.Set(wire.HeaderContentEncoding, s.o.Encoding)
			return hdr, body, nil
		}
		return s.claim(ctx, s.o.Encoding)
	}
	if s.n <= maxBody {
		if s.file == nil {
			return hdr, s.mem, nil
		}
		body := make([]byte, s.n)
		if _, err := io.ReadFull(s.content(), body); err != nil {
			return nil, nil, newErr(wire.CodeInternal, ReasonSpool)
		}
		return hdr, body, nil
	}
	return s.claim(ctx, wire.EncodingIdentity)
}

// claimChunk is the Object Store chunk size of a Sink's claims, lowered
// to fit a smaller max payload.
const claimChunk = 128 << 10

// errOverflow stops an inline compression whose output does not fit.
var errOverflow = errors.New("payload: compressed output over the inline cap")

type capWriter struct {
	b   []byte
	max int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	if int64(len(w.b)+len(p)) > w.max {
		return 0, errOverflow
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// compressInline compresses what was written into at most maxBody bytes;
// fits is false when the compressed form is longer.
func (s *Sink) compressInline(maxBody int64) (body []byte, fits bool, err error) {
	if s.file == nil {
		out, err := compressBytes(s.o.Encoding, make([]byte, 0, len(s.mem)/4+64), s.mem)
		if err != nil {
			return nil, false, newErr(wire.CodeInternal, ReasonEncode)
		}
		return out, int64(len(out)) <= maxBody, nil
	}
	w := &capWriter{max: maxBody}
	c := newCompressor(s.o.Encoding, w)
	if _, err := io.Copy(c, s.content()); err != nil {
		c.abort()
		if errors.Is(err, errOverflow) {
			return nil, false, nil
		}
		return nil, false, newErr(wire.CodeInternal, ReasonSpool)
	}
	if err := c.Close(); err != nil {
		if errors.Is(err, errOverflow) {
			return nil, false, nil
		}
		return nil, false, newErr(wire.CodeInternal, ReasonEncode)
	}
	return w.b, true, nil
}

// claim streams what was written into the Object Store.
func (s *Sink) claim(ctx context.Context, encoding string) (nats.Header, []byte, error) {
	if s.o.Store == nil {
		return nil, nil, newErr(wire.CodeBoundExceeded, ReasonMaxPayload)
	}
	return putClaim(ctx, s.o.Store, s.o.Bucket, s.o.ObjectName, s.content(), encoding, encoding, s.n, uint32(min(claimChunk, s.o.MaxPayload-HeaderReserve)))
}
