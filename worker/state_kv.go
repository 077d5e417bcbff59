package worker

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// JetStream KV adapters for statekeys: the single-use store and the key
// ring source.

// Defaults of the single-use bucket.
const (
	DefaultReplayBucket = "mcp_state_flows"
	// DefaultReplayMaxAge bounds every record of the bucket (stream MaxAge):
	// the longest state lifetime plus the replay margin, with room to spare.
	DefaultReplayMaxAge = statekeys.DefaultMaxTTL + statekeys.DefaultReplayMargin + time.Minute
	// DefaultReplayMarkerTTL is how long the bucket keeps the marker left
	// when a record's TTL ends (KeyValueConfig.LimitMarkerTTL). The marker
	// is not needed for single use (the state has expired by then); it only
	// has to be at least one second for per-key TTLs to be allowed.
	DefaultReplayMarkerTTL = time.Minute
	// DefaultKeyBucket and DefaultKeyRingKey name where a KV-kept ring lives.
	DefaultKeyBucket  = "mcp_state_keys"
	DefaultKeyRingKey = "ring"
)

// ReplayBucketConfig configures the single-use bucket.
type ReplayBucketConfig struct {
	Bucket    string
	Replicas  int // 0 means 1; use 3 in production clusters
	Storage   jetstream.StorageType
	MaxAge    time.Duration
	MarkerTTL time.Duration
}

// DefaultReplayBucketConfig returns the defaults: file storage, one
// replica, DefaultReplayMaxAge, DefaultReplayMarkerTTL.
func DefaultReplayBucketConfig() ReplayBucketConfig {
	return ReplayBucketConfig{
		Bucket:    DefaultReplayBucket,
		Replicas:  1,
		Storage:   jetstream.FileStorage,
		MaxAge:    DefaultReplayMaxAge,
		MarkerTTL: DefaultReplayMarkerTTL,
	}
}

// EnsureReplayBucket creates or updates the single-use bucket: history 1,
// per-key TTLs enabled (LimitMarkerTTL), records bounded by MaxAge.
func EnsureReplayBucket(ctx context.Context, js jetstream.JetStream, c ReplayBucketConfig) (jetstream.KeyValue, error) {
	if js == nil || c.Bucket == "" {
		return nil, errStateOption
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultReplayMaxAge
	}
	if c.MarkerTTL < time.Second {
		c.MarkerTTL = DefaultReplayMarkerTTL
	}
	return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         c.Bucket,
		Description:    "mcp-sanitize: single-use MRTR flow ids",
		History:        1,
		TTL:            c.MaxAge,
		Storage:        c.Storage,
		Replicas:       c.Replicas,
		LimitMarkerTTL: c.MarkerTTL,
	})
}

// KVStore is the fleet-wide statekeys.Store: Consume is a create-if-absent
// of key "f.<flow id>" with a per-key TTL, which JetStream applies
// atomically (expected last subject sequence 0), so of any number of
// workers racing on one flow id exactly one succeeds.
type KVStore struct {
	kv jetstream.KeyValue
}

// NewKVStore wraps a bucket made by EnsureReplayBucket.
func NewKVStore(kv jetstream.KeyValue) *KVStore { return &KVStore{kv: kv} }

var errStoreUnavailable = errors.New("worker: single-use store unavailable")

// Consume implements statekeys.Store. The TTL is rounded up to whole
// seconds (the JetStream minimum is one second).
func (s *KVStore) Consume(ctx context.Context, flowID string, ttl time.Duration) (bool, error) {
	if flowID == "" {
		return false, errStoreUnavailable
	}
	if r := ttl % time.Second; r != 0 {
		ttl += time.Second - r
	}
	if ttl < time.Second {
		ttl = time.Second
	}
	_, err := s.kv.Create(ctx, "f."+flowID, []byte{'1'}, jetstream.KeyTTL(ttl))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	default:
		return false, errStoreUnavailable // backend text stays out of errors
	}
}

// EnsureKeyBucket creates or updates a bucket that keeps key ring documents.
// It holds key material: restrict it with account permissions to the
// workers and the operators who rotate keys, and prefer JetStream
// encryption at rest.
func EnsureKeyBucket(ctx context.Context, js jetstream.JetStream, bucket string, replicas int) (jetstream.KeyValue, error) {
	if js == nil || bucket == "" {
		return nil, errStateOption
	}
	if replicas == 0 {
		replicas = 1
	}
	return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucket,
		Description: "mcp-sanitize: statekeys key ring (secret)",
		History:     5,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	})
}

// PutKeyRing stores ring's document under key (DefaultKeyRingKey if
// empty). Every worker watching the key swaps it in.
func PutKeyRing(ctx context.Context, kv jetstream.KeyValue, key string, ring *statekeys.Ring) error {
	if key == "" {
		key = DefaultKeyRingKey
	}
	b, err := ring.MarshalFile()
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, key, b); err != nil {
		return errStoreUnavailable
	}
	return nil
}

// KVKeySource is a statekeys.Source over one key of a KV bucket holding a
// key ring document (the same format as the key ring file).
type KVKeySource struct {
	KV jetstream.KeyValue
	// Key defaults to DefaultKeyRingKey.
	Key string
}

func (s KVKeySource) key() string {
	if s.Key == "" {
		return DefaultKeyRingKey
	}
	return s.Key
}

// Load implements statekeys.Source.
func (s KVKeySource) Load(ctx context.Context) (*statekeys.Ring, error) {
	e, err := s.KV.Get(ctx, s.key())
	if err != nil {
		return nil, statekeys.ErrKeyring
	}
	if len(e.Value()) > statekeys.DefaultMaxRingBytes {
		return nil, statekeys.ErrKeyring
	}
	return statekeys.ParseRing(e.Value())
}

// Watch loads the current ring into ring and keeps swapping in every new
// revision until ctx ends. A revision that does not parse is reported to
// onErr and the previous ring stays. It returns once the watch is set up.
func (s KVKeySource) Watch(ctx context.Context, ring *statekeys.Keyring, onErr func(error)) error {
	if onErr == nil {
		onErr = func(error) {}
	}
	w, err := s.KV.Watch(ctx, s.key(), jetstream.IgnoreDeletes())
	if err != nil {
		return statekeys.ErrKeyring
	}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil { // initial values delivered
					continue
				}
				r, err := statekeys.ParseRing(e.Value())
				if err != nil {
					onErr(err)
					continue
				}
				if _, err := ring.Swap(r); err != nil {
					onErr(err)
				}
			}
		}
	}()
	return nil
}
