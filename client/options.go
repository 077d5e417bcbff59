package client

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Defaults. All of them live here.
const (
	// DefaultTimeout bounds a Sanitize call for tools without their own
	// timeout: the worker's own deadline per message is 30 s, so a client
	// waits a little longer than that.
	DefaultTimeout = 35 * time.Second
	// DefaultMaxReplyBytes caps a decoded reply: payload's default cap.
	DefaultMaxReplyBytes = payload.DefaultMaxDecodedBytes
)

// Option configures a Client.
type Option func(*options) error

type options struct {
	timeout       time.Duration
	toolTimeouts  map[string]time.Duration
	compressAbove int
	encoding      string
	bucket        string
	maxReply      int64
	store         jetstream.ObjectStore
}

func defaults() options {
	return options{
		timeout:       DefaultTimeout,
		compressAbove: payload.DefaultCompressAbove,
		encoding:      payload.DefaultEncoding,
		bucket:        wire.BucketPayloads,
		maxReply:      DefaultMaxReplyBytes,
	}
}

// WithTimeout sets the timeout of tools without their own (default
// DefaultTimeout). It must be positive.
func WithTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: timeout %s", ErrOptions, d)
		}
		o.timeout = d
		return nil
	}
}

// WithToolTimeouts sets timeouts by tool name: slow tools get more, the
// rest keep the default. Every value must be positive; the map is copied.
func WithToolTimeouts(m map[string]time.Duration) Option {
	return func(o *options) error {
		cp := make(map[string]time.Duration, len(m))
		for k, d := range m {
			if d <= 0 {
				return fmt.Errorf("%w: timeout %s for tool %q", ErrOptions, d, k)
			}
			cp[k] = d
		}
		o.toolTimeouts = cp
		return nil
	}
}

// WithCompression sets the encoding of large bodies (wire.EncodingS2,
// the default; wire.EncodingZstd; wire.EncodingIdentity for none) and the
// size above which they are compressed (default
// payload.DefaultCompressAbove; negative: never).
func WithCompression(encoding string, above int) Option {
	return func(o *options) error {
		if err := (payload.SinkOptions{Encoding: encoding}).Validate(); err != nil {
			return fmt.Errorf("%w: encoding %q", ErrOptions, encoding)
		}
		o.encoding, o.compressAbove = encoding, above
		return nil
	}
}

// WithMaxReplyBytes caps the decoded size of a reply (default
// DefaultMaxReplyBytes). It must be positive.
func WithMaxReplyBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("%w: max reply bytes %d", ErrOptions, n)
		}
		o.maxReply = n
		return nil
	}
}

// WithObjectStore sets the claim bucket and its name, instead of binding
// wire.BucketPayloads on first use. A *payload.Store reads with a bounded
// read-ahead.
func WithObjectStore(store jetstream.ObjectStore, bucket string) Option {
	return func(o *options) error {
		if store == nil || wire.CheckToken(bucket) != nil {
			return fmt.Errorf("%w: object store and bucket name", ErrOptions)
		}
		o.store, o.bucket = store, bucket
		return nil
	}
}
