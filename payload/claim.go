package payload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// DefaultClaimTTL is how long EnsureBucket's bucket keeps a claimed object when its
// reader never releases it: long enough for a durable message to wait out
// a fleet restart, short enough that orphans do not pile up.
const DefaultClaimTTL = 24 * time.Hour

// ClaimBody is the JSON body of a message sent by reference. Readers go by
// the headers (Mcp-Claim, Mcp-Claim-Bucket, Content-Encoding); the body
// repeats them for people and tools that look at the message.
type ClaimBody struct {
	Claim struct {
		Bucket   string `json:"bucket"`
		Name     string `json:"name"`
		Encoding string `json:"encoding"`
		// Size is the length of the body before encoding; -1 if unknown.
		Size int64 `json:"size"`
	} `json:"mcpClaim"`
}

// Claim puts the body read from r into store (whose bucket is named
// bucket, "" meaning wire.BucketPayloads) under name ("" meaning 32 random
// hex digits) and returns the headers and the small body of a message that
// refers to it. Chunks are the library's 128 KiB, so the server's max
// payload must be larger (its default is 1 MiB). encoding says how r's bytes are encoded ("" or identity for
// plain, zstd, s2) and goes into Content-Encoding. r is streamed in chunks,
// never held whole. Producers use it to send a message larger than the
// server's max payload; a Sink uses it for large outputs.
func Claim(ctx context.Context, store jetstream.ObjectStore, bucket, name string, r io.Reader, encoding string) (nats.Header, []byte, error) {
	enc, perr := encodingOf([]string{encoding})
	if perr != nil {
		return nil, nil, perr
	}
	if store == nil {
		return nil, nil, newErr(wire.CodeInternal, ReasonNoStore)
	}
	if len(name) > MaxClaimName {
		return nil, nil, newErr(wire.CodeInvalidEncoding, ReasonClaimName)
	}
	if bucket == "" {
		bucket = wire.BucketPayloads
	}
	return putClaim(ctx, store, bucket, name, r, wire.EncodingIdentity, enc, -1, 0)
}

// putClaim stores r under name, encoded with apply while streaming; label
// is the Content-Encoding of what is stored (apply, or the encoding r's
// bytes already have when apply is identity). chunk is the Object Store
// chunk size (0: the library's 128 KiB); it must fit the max payload.
func putClaim(ctx context.Context, store jetstream.ObjectStore, bucket, name string, r io.Reader, apply, label string, size int64, chunk uint32) (nats.Header, []byte, error) {
	if name == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, nil, newErr(wire.CodeInternal, ReasonClaimStore)
		}
		name = hex.EncodeToString(b[:])
	}
	src := r
	var wg sync.WaitGroup
	var pr *io.PipeReader
	var encErr error
	if apply != wire.EncodingIdentity {
		var pw *io.PipeWriter
		pr, pw = io.Pipe()
		src = pr
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCompressor(apply, pw)
			_, err := io.Copy(c, r)
			if err != nil {
				c.abort()
			} else {
				err = c.Close()
			}
			encErr = err
			pw.CloseWithError(err)
		}()
	}
	meta := jetstream.ObjectMeta{Name: name}
	if chunk > 0 {
		meta.Opts = &jetstream.ObjectMetaOptions{ChunkSize: chunk}
	}
	_, err := store.Put(ctx, meta, src)
	if pr != nil {
		pr.CloseWithError(errOverflow) // stops the encoder if Put gave up early
		wg.Wait()
	}
	if err != nil {
		if encErr != nil && !errors.Is(encErr, io.ErrClosedPipe) && !errors.Is(encErr, errOverflow) {
			return nil, nil, newErr(wire.CodeInternal, ReasonSpool)
		}
		return nil, nil, ctxErr(ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	hdr := nats.Header{}
	hdr.Set(wire.HeaderClaim, name)
	hdr.Set(wire.HeaderClaimBucket, bucket)
	if label != wire.EncodingIdentity {
		hdr.Set(wire.HeaderContentEncoding, label)
	}
	var cb ClaimBody
	cb.Claim.Bucket, cb.Claim.Name, cb.Claim.Encoding, cb.Claim.Size = bucket, name, label, size
	body, err := json.Marshal(cb)
	if err != nil {
		return nil, nil, newErr(wire.CodeInternal, ReasonEncode)
	}
	return hdr, body, nil
}

// IsClaim reports whether hdr sends its body by reference.
func IsClaim(hdr nats.Header) bool { return len(hdr.Values(wire.HeaderClaim)) > 0 }

// Release deletes the object a claim header names, once its reader is
// done with it. A header without a claim, or an object already gone, is
// not an error.
func Release(ctx context.Context, store jetstream.ObjectStore, hdr nats.Header) error {
	name := hdr.Get(wire.HeaderClaim)
	if name == "" {
		return nil
	}
	if store == nil {
		return newErr(wire.CodeInternal, ReasonNoStore)
	}
	if err := store.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return ctxErr(ctx, err, newErr(wire.CodeInternal, ReasonClaimStore))
	}
	return nil
}

// EnsureBucket creates the Object Store bucket of claims, or updates it,
// idempotently: bucket "" means wire.BucketPayloads and ttl 0 means
// DefaultClaimTTL (objects older than that are removed by the server).
func EnsureBucket(ctx context.Context, js jetstream.JetStream, bucket string, ttl time.Duration) (*Store, error) {
	return EnsureReplicatedBucket(ctx, js, bucket, ttl, 1)
}

// EnsureReplicatedBucket is EnsureBucket with the bucket's replicas
// (1..5; 3 in a cluster). An existing bucket is updated to them.
func EnsureReplicatedBucket(ctx context.Context, js jetstream.JetStream, bucket string, ttl time.Duration, replicas int) (*Store, error) {
	if replicas < 1 || replicas > 5 {
		return nil, errors.New("payload: bucket replicas must be 1..5")
	}
	if bucket == "" {
		bucket = wire.BucketPayloads
	}
	if ttl <= 0 {
		ttl = DefaultClaimTTL
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      bucket,
		Description: "mcp-sanitize: message bodies sent by reference (claim checks)",
		TTL:         ttl,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	})
	if err != nil {
		return nil, err
	}
	return &Store{ObjectStore: obs, js: js, bucket: bucket}, nil
}
