package payload

import (
	"io"
	"runtime"
	"strings"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Codec state is expensive to build (a zstd decoder allocates its tables,
// an encoder its hash tables), so idle ones are kept on bounded free lists
// rather than a sync.Pool: at most GOMAXPROCS of each kind. A zstd decoder
// keeps a history ring of its last frame's window, so what the list pins is
// bounded by GOMAXPROCS x Limits.MaxWindowBytes; an encoder by GOMAXPROCS x
// its 1 MiB window and tables.
var (
	freeZstdDec = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0))
	freeS2Dec   = make(chan *s2.Reader, runtime.GOMAXPROCS(0))
	freeZstdEnc = make(chan *zstd.Encoder, runtime.GOMAXPROCS(0))
	freeS2Enc   = make(chan *s2.Writer, runtime.GOMAXPROCS(0))
)

// encoderWindow is the zstd window of what this package writes: small
// enough for any decoder's default bound, large enough for JSON.
const encoderWindow = 1 << 20

// s2MaxBlock is the largest s2 block accepted (and written): s2's own
// maximum, 4 MiB, bounds the reader's buffer.
const s2MaxBlock = 4 << 20

// encodingOf reads Content-Encoding: "" means identity.
func encodingOf(values []string) (string, *Error) {
	switch len(values) {
	case 0:
		return wire.EncodingIdentity, nil
	case 1:
	default:
		return "", newErr(wire.CodeInvalidEncoding, ReasonMultipleEncodings)
	}
	switch e := strings.ToLower(strings.TrimSpace(values[0])); e {
	case "", wire.EncodingIdentity:
		return wire.EncodingIdentity, nil
	case wire.EncodingZstd, wire.EncodingS2:
		return e, nil
	}
	return "", newErr(wire.CodeInvalidEncoding, ReasonUnknownEncoding)
}

// checkEncoding validates an encoding a caller asks to write.
func checkEncoding(e string) (string, *Error) {
	if e == "" {
		return DefaultEncoding, nil
	}
	return encodingOf([]string{e})
}

func getZstdDec(r io.Reader, window int) (*zstd.Decoder, error) {
	opts := []zstd.DOption{zstd.WithDecoderMaxWindow(uint64(window)), zstd.WithDecoderMaxMemory(uint64(window))}
	select {
	case d := <-freeZstdDec:
		if err := d.ResetWithOptions(r, opts...); err != nil {
			d.Close()
			return nil, err
		}
		return d, nil
	default:
		return zstd.NewReader(r, append(opts, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))...)
	}
}

func putZstdDec(d *zstd.Decoder) {
	if d.Reset(nil) != nil {
		d.Close()
		return
	}
	select {
	case freeZstdDec <- d:
	default:
		d.Close()
	}
}

func getS2Dec(r io.Reader) *s2.Reader {
	select {
	case d := <-freeS2Dec:
		d.Reset(r)
		return d
	default:
		return s2.NewReader(r, s2.ReaderMaxBlockSize(s2MaxBlock))
	}
}

func putS2Dec(d *s2.Reader) {
	d.Reset(nil)
	select {
	case freeS2Dec <- d:
	default:
	}
}

func getZstdEnc(w io.Writer) *zstd.Encoder {
	select {
	case e := <-freeZstdEnc:
		e.Reset(w)
		return e
	default:
		e, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(encoderWindow))
		if err != nil {
			// The options are constants that the library accepts.
			panic("payload: zstd encoder options: " + err.Error())
		}
		return e
	}
}

func putZstdEnc(e *zstd.Encoder) {
	e.Reset(nil)
	select {
	case freeZstdEnc <- e:
	default:
	}
}

func getS2Enc(w io.Writer) *s2.Writer {
	select {
	case e := <-freeS2Enc:
		e.Reset(w)
		return e
	default:
		return s2.NewWriter(w, s2.WriterConcurrency(1), s2.WriterBlockSize(1<<20))
	}
}

func putS2Enc(e *s2.Writer) {
	e.Reset(nil)
	select {
	case freeS2Enc <- e:
	default:
	}
}

// compressor is a stream encoder taken from a free list.
type compressor struct {
	z *zstd.Encoder
	s *s2.Writer
}

func newCompressor(encoding string, w io.Writer) *compressor {
	if encoding == wire.EncodingS2 {
		return &compressor{s: getS2Enc(w)}
	}
	return &compressor{z: getZstdEnc(w)}
}

func (c *compressor) Write(p []byte) (int, error) {
	if c.s != nil {
		return c.s.Write(p)
	}
	return c.z.Write(p)
}

// Close ends the stream and returns the encoder to its free list.
func (c *compressor) Close() error {
	var err error
	if c.s != nil {
		err = c.s.Close()
		putS2Enc(c.s)
	} else {
		err = c.z.Close()
		putZstdEnc(c.z)
	}
	c.s, c.z = nil, nil
	return err
}

// abort returns the encoder without finishing the stream.
func (c *compressor) abort() {
	if c.s != nil {
		putS2Enc(c.s)
	} else if c.z != nil {
		putZstdEnc(c.z)
	}
	c.s, c.z = nil, nil
}

// compressBytes appends the encoding of src to dst.
func compressBytes(encoding string, dst, src []byte) ([]byte, error) {
	if encoding == wire.EncodingZstd {
		e := getZstdEnc(nil)
		dst = e.EncodeAll(src, dst)
		putZstdEnc(e)
		return dst, nil
	}
	w := &appendWriter{b: dst}
	c := newCompressor(encoding, w)
	if _, err := c.Write(src); err != nil {
		c.abort()
		return nil, err
	}
	if err := c.Close(); err != nil {
		return nil, err
	}
	return w.b, nil
}

type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
