package payload

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/internal/spool"
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
	sp     spool.Spool
	// box is the pool's *[]byte the memory came in (Reuse): Close puts
	// the memory back in it, so that returning it allocates nothing.
	box *[]byte
}

// NewSink returns a Sink. Options that Validate refuses make every Write
// and Finish fail with ErrSinkOptions.
func NewSink(o SinkOptions) *Sink {
	o2, err := o.withDefaults()
	s := &Sink{o: o2, optErr: err}
	s.sp.Limit, s.sp.Dir = o2.MemoryLimit, o2.SpoolDir
	if o2.Reuse {
		if b, ok := sinkMem.Get().(*[]byte); ok {
			s.sp.SetMemory(*b)
			s.box = b
		}
	}
	return s
}

// AppendBuffer implements pipeline.AppendOutput: while the output is in
// memory and n more bytes stay within MemoryLimit, it returns the free room
// after it (grown to n bytes if needed), and a Write of what was appended
// there takes it in place.
func (s *Sink) AppendBuffer(n int) []byte {
	if s.optErr != nil {
		return nil
	}
	return s.sp.AppendBuffer(n)
}

// Write implements io.Writer.
func (s *Sink) Write(b []byte) (int, error) {
	if s.optErr != nil {
		return 0, s.optErr
	}
	n, err := s.sp.Write(b)
	if err != nil {
		return n, newErr(wire.CodeInternal, ReasonSpool)
	}
	return n, nil
}

// Discard forgets what was written.
func (s *Sink) Discard() error { return s.sp.Discard() }

// Len returns the bytes written since the last Discard.
func (s *Sink) Len() int64 { return s.sp.Len() }

// Close removes the spool file and drops the memory held.
func (s *Sink) Close() error {
	err := s.sp.Discard()
	mem := s.sp.Memory()
	if s.o.Reuse && mem != nil && cap(mem) <= MaxReusedMemory {
		b := s.box
		if b == nil {
			b = new([]byte)
		}
		*b = mem[:0]
		s.box = nil
		sinkMem.Put(b)
	}
	return err
}

// content returns a reader of everything written (never a *bytes.Buffer,
// see Open).
func (s *Sink) content() io.Reader { return s.sp.Reader() }

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
	n := s.sp.Len()
	compress := s.o.Encoding != wire.EncodingIdentity && s.o.CompressAbove >= 0 &&
		(n > int64(s.o.CompressAbove) || n > maxBody)
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
	if n <= maxBody {
		if !s.sp.Spilled() {
			return hdr, s.sp.Bytes(), nil
		}
		body := make([]byte, n)
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
	if !s.sp.Spilled() {
		mem := s.sp.Bytes()
		out, err := compressBytes(s.o.Encoding, make([]byte, 0, len(mem)/4+64), mem)
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
	return putClaim(ctx, s.o.Store, s.o.Bucket, s.o.ObjectName, s.content(), encoding, encoding, s.sp.Len(), uint32(min(claimChunk, s.o.MaxPayload-HeaderReserve)))
}
