package payload

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"io"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// ReadAheadChunks is how many Object Store chunks (128 KiB each by
// default) a Store read keeps in flight ahead of the reader.
const ReadAheadChunks = 4

// Store is a claim bucket whose reads are bounded. It is a
// jetstream.ObjectStore (every method passes through) that also knows its
// JetStream context and bucket name, so that Open reads a claimed object
// through an ordered pull consumer with at most ReadAheadChunks chunks in
// flight. A plain jetstream.ObjectStore works with Open too, but its Get is
// a push consumer that the server may run up to its flow-control window
// (32 MiB) ahead of a slow reader: a whole smaller object may then sit in
// the client's buffer. EnsureBucket and NewStore return a *Store.
type Store struct {
	jetstream.ObjectStore
	js     jetstream.JetStream
	bucket string
}

// NewStore binds an existing bucket ("" means wire.BucketPayloads).
func NewStore(ctx context.Context, js jetstream.JetStream, bucket string) (*Store, error) {
	if bucket == "" {
		bucket = wire.BucketPayloads
	}
	obs, err := js.ObjectStore(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return &Store{ObjectStore: obs, js: js, bucket: bucket}, nil
}

// Bucket returns the bucket name.
func (s *Store) Bucket() string { return s.bucket }

// open starts a bounded read of the object name.
func (s *Store) open(ctx context.Context, name string) (*chunkReader, *Error) {
	info, err := s.GetInfo(ctx, name)
	if err != nil {
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, newErr(pipeline.CodeInvalidEncoding, ReasonClaimNotFound)
		}
		return nil, ctxErr(ctx, err, newErr(pipeline.CodeInternal, ReasonClaimStore))
	}
	// Links are not followed: a claim names the object itself.
	if info.Opts != nil && info.Opts.Link != nil || info.NUID == "" {
		return nil, newErr(pipeline.CodeInvalidEncoding, ReasonClaimName)
	}
	c := &chunkReader{ctx: ctx, size: info.Size, digest: info.Digest, h: sha256.New()}
	if info.Size == 0 {
		return c, nil
	}
	cons, err := s.js.OrderedConsumer(ctx, "OBJ_"+s.bucket, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{"$O." + s.bucket + ".C." + info.NUID},
	})
	if err != nil {
		return nil, ctxErr(ctx, err, newErr(pipeline.CodeInternal, ReasonClaimStore))
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(ReadAheadChunks))
	if err != nil {
		return nil, ctxErr(ctx, err, newErr(pipeline.CodeInternal, ReasonClaimStore))
	}
	c.it = it
	return c, nil
}

// chunkReader reads an object's chunks in order and checks its size and
// SHA-256 digest at the end.
type chunkReader struct {
	ctx    context.Context
	it     jetstream.MessagesContext
	size   uint64
	n      uint64
	digest string
	h      hash.Hash
	cur    []byte
	err    error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	for len(c.cur) == 0 {
		if c.n == c.size {
			want := "SHA-256=" + base64.URLEncoding.EncodeToString(c.h.Sum(nil))
			if c.digest != want {
				c.err = newErr(pipeline.CodeInvalidEncoding, ReasonClaimDigest)
			} else {
				c.err = io.EOF
			}
			return 0, c.err
		}
		msg, err := c.it.Next(jetstream.NextContext(c.ctx))
		if err != nil {
			c.err = ctxErr(c.ctx, err, newErr(pipeline.CodeInternal, ReasonClaimStore))
			return 0, c.err
		}
		d := msg.Data()
		c.n += uint64(len(d))
		if c.n > c.size {
			c.err = newErr(pipeline.CodeInvalidEncoding, ReasonClaimDigest)
			return 0, c.err
		}
		c.h.Write(d)
		c.cur = d
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

// Close stops the consumer.
func (c *chunkReader) Close() error {
	if c.it != nil {
		c.it.Stop()
		c.it = nil
	}
	return nil
}
