package payload

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

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
			return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimNotFound)
		}
		return nil, ctxErr(ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	// Links are not followed: a claim names the object itself.
	if info.Opts != nil && info.Opts.Link != nil || info.NUID == "" {
		return nil, newErr(wire.CodeInvalidEncoding, ReasonClaimName)
	}
	c := &chunkReader{ctx: ctx, size: info.Size, digest: info.Digest, h: sha256.New()}
	if info.Size == 0 {
		return c, nil
	}
	c.js, c.stream, c.subject = s.js, "OBJ_"+s.bucket, "$O."+s.bucket+".C."+info.NUID
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

// How a claimed object's read waits for its next chunk. nats.go (v1.55.0)
// sends the next pull request of a Messages iterator from a goroutine of
// its own and skips the refill while that goroutine has not yet marked its
// previous request sent; a Next that skipped it and then finds no chunk
// buffered waits for two missed heartbeats (10 s) before the ordered
// consumer resets (how often that was seen, and under what load, is in
// docs/payloads.md, "A stalled chunk read"). So Next waits at most
// chunkPoll at a time, and each new call checks the refill again; and if
// no chunk comes for chunkStall, the read starts a new ordered consumer at
// the chunk after the last one read, which also stands in for the
// iterator's own heartbeat check (a Next that returns early never reaches
// it).
//
// A read that stalls chunkStalls times in a row without a chunk fails
// (ReasonClaimStore): the object's chunks are gone, or the server does not
// serve them.
var (
	chunkPoll   = 200 * time.Millisecond
	chunkStall  = 5 * time.Second
	chunkStalls = 3
	// testHookIter, set by tests only, wraps each iterator started.
	testHookIter func(jetstream.MessagesContext) jetstream.MessagesContext
)

// chunkReader reads an object's chunks in order and checks its size and
// SHA-256 digest at the end.
type chunkReader struct {
	ctx     context.Context
	js      jetstream.JetStream
	stream  string // OBJ_<bucket>
	subject string // the object's chunk subject
	it      jetstream.MessagesContext
	seq     uint64        // stream sequence of the last chunk read
	waited  time.Duration // waited for the next chunk
	stalls  int           // stalls since the last chunk
	// restarts counts the ordered consumers started after a stall.
	restarts int
	size     uint64
	n        uint64
	digest   string
	h        hash.Hash
	cur      []byte
	err      error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	for len(c.cur) == 0 {
		if c.n == c.size {
			want := "SHA-256=" + base64.URLEncoding.EncodeToString(c.h.Sum(nil))
			if c.digest != want {
				c.err = newErr(wire.CodeInvalidEncoding, ReasonClaimDigest)
			} else {
				c.err = io.EOF
			}
			return 0, c.err
		}
		msg, err := c.next()
		if err != nil {
			c.err = err
			return 0, c.err
		}
		d := msg.Data()
		c.n += uint64(len(d))
		if c.n > c.size {
			c.err = newErr(wire.CodeInvalidEncoding, ReasonClaimDigest)
			return 0, c.err
		}
		c.h.Write(d)
		c.cur = d
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

// start begins (or, after a stall, resumes) the read with an ordered
// consumer from the chunk after c.seq, keeping at most ReadAheadChunks
// chunks in flight.
func (c *chunkReader) start() *Error {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{c.subject}}
	if c.seq > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = c.seq + 1
	}
	cons, err := c.js.OrderedConsumer(c.ctx, c.stream, cfg)
	if err != nil {
		return ctxErr(c.ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(ReadAheadChunks))
	if err != nil {
		return ctxErr(c.ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	if testHookIter != nil {
		it = testHookIter(it)
	}
	c.it = it
	return nil
}

// next returns the next chunk, waiting chunkPoll at a time and restarting
// the consumer after chunkStall without one.
func (c *chunkReader) next() (jetstream.Msg, *Error) {
	for {
		wctx, cancel := context.WithTimeout(c.ctx, chunkPoll)
		t0 := time.Now()
		msg, err := c.it.Next(jetstream.NextContext(wctx))
		cancel()
		if err == nil {
			meta, merr := msg.Metadata()
			if merr != nil {
				return nil, newErr(wire.CodeInternal, ReasonClaimStore)
			}
			c.seq, c.waited, c.stalls = meta.Sequence.Stream, 0, 0
			return msg, nil
		}
		if c.ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return nil, ctxErr(c.ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
		}
		if c.waited += time.Since(t0); c.waited < chunkStall {
			continue
		}
		c.it.Stop()
		c.it, c.waited = nil, 0
		if c.stalls++; c.stalls >= chunkStalls {
			return nil, newErr(wire.CodeInternal, ReasonClaimStore)
		}
		c.restarts++
		if err := c.start(); err != nil {
			return nil, err
		}
	}
}

// Close stops the consumer.
func (c *chunkReader) Close() error {
	if c.it != nil {
		c.it.Stop()
		c.it = nil
	}
	return nil
}
