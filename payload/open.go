package payload

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Open returns the body of a message as a stream: data itself, or, when
// hdr carries Mcp-Claim, the object it names in store (whose bucket must be
// lim.Bucket), decoded per Content-Encoding ("zstd", "s2", "identity" or
// absent; anything else is INVALID_ENCODING). The decoded body is capped at
// lim.MaxDecodedBytes while it streams.
//
// Errors found before any byte is read (an unknown encoding, a claim on
// another bucket, a missing object, no store) are returned by Open; errors
// found while reading (corrupt or truncated data, a crossed bound, a failed
// chunk) are returned by Read, as *Error, and Failure reports them
// afterwards. The caller must Close the reader: it returns the decoder to
// its free list and ends the Object Store read. data is read, never kept
// after Close and never modified. ctx bounds the Object Store read.
func Open(ctx context.Context, hdr nats.Header, data []byte, store jetstream.ObjectStore, lim Limits) (io.ReadCloser, error) {
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	enc, perr := encodingOf(hdr.Values(wire.HeaderContentEncoding))
	if perr != nil {
		return nil, perr
	}
	maxEncoded := lim.MaxDecodedBytes + lim.MaxDecodedBytes/64 + encodedSlack
	names := hdr.Values(wire.HeaderClaim)
	if len(names) == 0 {
		if int64(len(data)) > maxEncoded {
			return nil, newErr(wire.CodeBoundExceeded, ReasonEncodedBytes)
		}
		if enc == wire.EncodingIdentity || enc == "" {
			// A plain body in the message: read in place (memBody), and
			// no Reader allocated for it.
			return &memBody{data: data, max: lim.MaxDecodedBytes}, nil
		}
	}
	r := &Reader{max: lim.MaxDecodedBytes}
	var src io.Reader
	if len(names) > 0 {
		obj, perr := openClaim(ctx, hdr, names, store, lim.Bucket, maxEncoded)
		if perr != nil {
			return nil, perr
		}
		r.obj = obj
		src = &sourceReader{r: obj, ctx: ctx, owner: r}
	} else {
		// A bytes.Reader, never a bytes.Buffer: the zstd decoder decodes a
		// whole *bytes.Buffer in memory at Reset instead of streaming it.
		src = bytes.NewReader(data)
	}
	r.src = &countReader{r: src, max: maxEncoded, owner: r}
	switch enc {
	case wire.EncodingZstd:
		d, err := getZstdDec(r.src, lim.MaxWindowBytes)
		if err != nil {
			r.Close()
			return nil, r.classify(err)
		}
		r.zd, r.dec = d, d
	case wire.EncodingS2:
		d := getS2Dec(r.src)
		r.sd, r.dec = d, d
	default:
		r.dec = r.src
	}
	return r, nil
}

// Failure returns the *Error that ended reading r, when r came from Open
// and a Read failed; nil otherwise.
func Failure(r io.Reader) *Error {
	switch pr := r.(type) {
	case *Reader:
		return pr.err
	case *memBody:
		return pr.err
	}
	return nil
}

// memBody is what Open returns for a plain body carried in the message:
// the bytes of the message are read in place. As an io.WriterTo it hands
// them to the writer without a copy (pipeline.Engine.Sanitize feeds its
// lexer from them), within the same bound as Reader.Read: at most the
// decoded-bytes limit, then the error.
type memBody struct {
	data   []byte
	pos    int
	max    int64
	err    *Error
	closed bool
}

// Read implements io.Reader as Reader.Read does.
func (m *memBody) Read(p []byte) (int, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	if m.pos == len(m.data) {
		return 0, io.EOF
	}
	n := copy(p, m.data[m.pos:m.allowed()])
	return m.advance(n)
}

// WriteTo implements io.WriterTo: the rest of the body, in one Write.
func (m *memBody) WriteTo(w io.Writer) (int64, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	end, over := len(m.data), false
	if int64(end) > m.max {
		// The bytes up to the bound, then the error: what Read gives.
		end, over = int(m.max), true
	}
	if m.pos == end && !over {
		return 0, nil
	}
	n, err := w.Write(m.data[m.pos:end])
	m.pos += n
	if err != nil {
		return int64(n), err
	}
	if over {
		m.err = newErr(wire.CodeBoundExceeded, ReasonDecodedBytes)
		return int64(n), m.err
	}
	return int64(n), nil
}

func (m *memBody) check() error {
	if m.err != nil {
		return m.err
	}
	if m.closed {
		return newErr(wire.CodeInternal, ReasonClosed)
	}
	return nil
}

// allowed is the end of what may be read: the body, or one byte past the
// bound, so that crossing it is seen.
func (m *memBody) allowed() int {
	if int64(len(m.data)) > m.max {
		return int(m.max) + 1
	}
	return len(m.data)
}

// advance moves past n bytes just read and fails at the bound, as
// Reader.Read does: the bytes up to the bound are returned with the error.
func (m *memBody) advance(n int) (int, error) {
	m.pos += n
	if int64(m.pos) > m.max {
		n -= m.pos - int(m.max)
		m.pos = int(m.max)
		m.err = newErr(wire.CodeBoundExceeded, ReasonDecodedBytes)
		return n, m.err
	}
	return n, nil
}

// Close implements io.Closer.
func (m *memBody) Close() error {
	m.closed = true
	return nil
}

// Reader is the stream Open returns.
type Reader struct {
	src *countReader
	dec io.Reader
	zd  *zstd.Decoder
	sd  *s2.Reader
	obj io.ReadCloser

	n, max int64
	err    *Error
	// srcErr is the *Error a source reader produced (a bound on encoded
	// bytes, a failed chunk), preferred to what a decoder made of it.
	srcErr *Error
	closed bool
}

// Read implements io.Reader. A failure is returned as *Error, and every
// later Read returns it again.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.closed {
		return 0, newErr(wire.CodeInternal, ReasonClosed)
	}
	// Ask for at most one byte past the cap, so crossing it is seen
	// without decoding further.
	if room := r.max - r.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.dec.Read(p)
	r.n += int64(n)
	if r.n > r.max {
		n -= int(r.n - r.max)
		r.n = r.max
		r.err = newErr(wire.CodeBoundExceeded, ReasonDecodedBytes)
		return n, r.err
	}
	if err == nil || err == io.EOF {
		return n, err
	}
	r.err = r.classify(err)
	return n, r.err
}

// classify turns a decoder or source error into an *Error.
func (r *Reader) classify(err error) *Error {
	if r.srcErr != nil {
		return r.srcErr
	}
	var pe *Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newErr(wire.CodeInvalidEncoding, ReasonTruncated)
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return newErr(wire.CodeBoundExceeded, ReasonZstdWindow)
	}
	return newErr(wire.CodeInvalidEncoding, ReasonCorrupt)
}

// Close releases the decoder and the Object Store read. It is safe to call
// more than once.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.zd != nil {
		putZstdDec(r.zd)
		r.zd = nil
	}
	if r.sd != nil {
		putS2Dec(r.sd)
		r.sd = nil
	}
	r.dec = nil
	if r.obj != nil {
		r.obj.Close()
		r.obj = nil
	}
	return nil
}

// countReader caps the encoded bytes read.
type countReader struct {
	r     io.Reader
	n     int64
	max   int64
	owner *Reader
}

func (c *countReader) Read(p []byte) (int, error) {
	if room := c.max - c.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.owner.srcErr = newErr(wire.CodeBoundExceeded, ReasonEncodedBytes)
		return 0, c.owner.srcErr
	}
	return n, err
}

// sourceReader maps the errors of an Object Store read.
type sourceReader struct {
	r     io.Reader
	ctx   context.Context
	owner *Reader
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == nil || err == io.EOF {
		return n, err
	}
	var pe *Error
	switch {
	case errors.Is(err, jetstream.ErrDigestMismatch):
		pe = newErr(wire.CodeInvalidEncoding, ReasonClaimDigest)
	default:
		pe = ctxErr(s.ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	s.owner.srcErr = pe
	return n, pe
}

// openClaim starts the Object Store read of a claim.
func openClaim(ctx context.Context, hdr nats.Header, names []string, store jetstream.ObjectStore, bucket string, maxEncoded int64) (io.ReadCloser, *Error) {
	if len(names) != 1 || names[0] == "" || len(names[0]) > MaxClaimName {
		return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimName)
	}
	b := hdr.Values(wire.HeaderClaimBucket)
	switch {
	case len(b) == 0:
		b = []string{wire.BucketPayloads}
	case len(b) > 1:
		return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimBucket)
	}
	if b[0] != bucket {
		return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimBucket)
	}
	if store == nil {
		return nil, newErr(wire.CodeInternal, ReasonNoStore)
	}
	if st, ok := store.(*Store); ok {
		if st.bucket != bucket {
			return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimBucket)
		}
		c, perr := st.open(ctx, names[0])
		if perr != nil {
			return nil, perr
		}
		if int64(c.size) > maxEncoded {
			c.Close()
			return nil, newErr(wire.CodeBoundExceeded, ReasonEncodedBytes)
		}
		return c, nil
	}
	obj, err := store.Get(ctx, names[0])
	if err != nil {
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimNotFound)
		}
		return nil, ctxErr(ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	info, err := obj.Info()
	if err != nil {
		obj.Close()
		return nil, newErr(wire.CodeInternal, ReasonClaimStore)
	}
	if int64(info.Size) > maxEncoded {
		obj.Close()
		return nil, newErr(wire.CodeBoundExceeded, ReasonEncodedBytes)
	}
	return obj, nil
}
