package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// KVBudget is the completion budget of the whole fleet (seed G004): one
// sliding window per principal (promptgate.Window: the charges of the last
// 17 sixteenths of a window) in a JetStream KV bucket, taken by
// compare-and-set, so that every worker connected to the bucket draws on
// the same budget and no interval of one window's length grants more
// than the limit, wherever it starts (a fixed window would grant twice
// the limit across a window's edge).
//
// Charge reads the window of key (slots are multiples of window/16 since
// the Unix epoch, so every worker agrees on them up to its clock's skew;
// a worker whose clock is behind charges the newest slot, which refuses
// earlier, never later), takes one unit when it can and writes the window
// back with the revision it read (Update; Create when the key does not
// exist yet). When another worker wrote in between, the write fails with
// a revision mismatch and Charge reads again, up to MaxAttempts times. A
// window at the limit refuses without writing. JetStream orders the
// writes of a key, so the limit holds exactly across the fleet however
// many workers charge at once. While the bucket's stream has no leader
// (just created, or electing one after a server was lost) a read or write
// is tried again within the request's deadline; any other failure, or one
// that outlasts the deadline, or a value that is not a window, is an
// error, which the guard turns into a refusal (fail closed).
//
// A principal's key is rewritten on each charge and left to the bucket's
// MaxAge once idle.
type KVBudget struct {
	kv          jetstream.KeyValue
	maxAttempts int
	now         func() time.Time

	// Lazy opening (NewKVBudget): the bucket is created or looked up on
	// the first charge, and again after a failure.
	mu   sync.Mutex
	js   jetstream.JetStream
	opts KVBudgetOptions
}

// KVBudgetOptions configure the bucket.
type KVBudgetOptions struct {
	// Bucket is the KV bucket (wire.BucketBudgets).
	Bucket string
	// Replicas of the bucket (1).
	Replicas int
	// MaxAge of a counter (DefaultBudgetMaxAge); at least the longest
	// budget window of any policy.
	MaxAge time.Duration
	// MaxAttempts of the compare-and-set loop under contention
	// (DefaultBudgetAttempts).
	MaxAttempts int
}

// Defaults of KVBudgetOptions.
const (
	DefaultBudgetMaxAge   = 25 * time.Hour
	DefaultBudgetAttempts = 64
)

// ErrBudgetContention is returned when MaxAttempts writes in a row lost
// to other workers; the guard refuses the request.
var ErrBudgetContention = errors.New("worker: completion budget under contention")

var _ promptgate.Budget = (*KVBudget)(nil)

// OpenKVBudget creates the bucket if needed and returns the budget.
func OpenKVBudget(ctx context.Context, js jetstream.JetStream, o KVBudgetOptions) (*KVBudget, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	kv, err := openBudgetBucket(ctx, js, o)
	if err != nil {
		return nil, err
	}
	return &KVBudget{kv: kv, maxAttempts: o.MaxAttempts, now: time.Now}, nil
}

// NewKVBudget returns a budget that opens its bucket on the first charge
// (and again after a failure, which refuses that charge): a worker whose
// policies have no completions never creates the bucket, and one that
// receives such a policy later needs no restart.
func NewKVBudget(js jetstream.JetStream, o KVBudgetOptions) (*KVBudget, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if js == nil {
		return nil, optErr("budget: nil JetStream context")
	}
	return &KVBudget{js: js, opts: o, maxAttempts: o.MaxAttempts, now: time.Now}, nil
}

// bucket returns the KV bucket, opening it if needed.
func (b *KVBudget) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kv != nil {
		return b.kv, nil
	}
	kv, err := openBudgetBucket(ctx, b.js, b.opts)
	if err != nil {
		return nil, err
	}
	b.kv = kv
	return kv, nil
}

func (o KVBudgetOptions) withDefaults() (KVBudgetOptions, error) {
	if o.Bucket == "" {
		o.Bucket = wire.BucketBudgets
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultBudgetMaxAge
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultBudgetAttempts
	}
	if o.MaxAge < time.Second || o.MaxAttempts < 1 || o.Replicas < 1 {
		return o, optErr("budget: max age at least 1s, attempts and replicas at least 1")
	}
	return o, nil
}

func openBudgetBucket(ctx context.Context, js jetstream.JetStream, o KVBudgetOptions) (jetstream.KeyValue, error) {
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      o.Bucket,
		Description: "mcp-sanitize: completion budgets, sliding windows keyed s.<principal digest>",
		History:     1,
		TTL:         o.MaxAge,
		Replicas:    o.Replicas,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = js.KeyValue(ctx, o.Bucket)
	}
	if err != nil {
		return nil, fmt.Errorf("worker: budget bucket: %w", err)
	}
	return kv, nil
}

// Charge implements promptgate.Budget.
func (b *KVBudget) Charge(ctx context.Context, key string, limit int64, window time.Duration) (bool, error) {
	if window <= 0 || limit <= 0 {
		return false, nil
	}
	kv, err := b.bucket(ctx)
	if err != nil {
		return false, err
	}
	k := "s." + key
	pause := budgetRetryFirst
	for attempt := 0; attempt < b.maxAttempts; {
		ok, retry, err := b.try(ctx, kv, k, limit, window)
		switch {
		case err == nil && !retry:
			return ok, nil
		case err == nil:
			attempt++ // lost to another worker's write
			continue
		case !transientPublish(err):
			return false, err
		}
		// The bucket's stream has no leader (just created, or an election
		// after a server was lost): wait and try again while the
		// request's deadline lasts. A write whose acknowledgement was
		// lost may have been stored: the retry then charges once more,
		// which refuses earlier, never later.
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, err
		case <-t.C:
		}
		pause = min(2*pause, budgetRetryMax)
	}
	return false, ErrBudgetContention
}

// Pauses between attempts of a charge while the bucket has no leader.
const (
	budgetRetryFirst = 25 * time.Millisecond
	budgetRetryMax   = 400 * time.Millisecond
)

// try makes one attempt of a charge: ok is the verdict, retry says the
// write lost to another worker's.
func (b *KVBudget) try(ctx context.Context, kv jetstream.KeyValue, k string, limit int64, window time.Duration) (ok, retry bool, err error) {
	now := b.now()
	var w promptgate.Window
	e, err := kv.Get(ctx, k)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		e = nil
	case err != nil:
		return false, false, err
	default:
		if w.UnmarshalText(e.Value()) != nil {
			// Not ours to repair: refuse rather than reset a budget.
			return false, false, fmt.Errorf("worker: budget value is not a window")
		}
	}
	if !w.Charge(now, limit, window) {
		return false, false, nil
	}
	v, _ := w.MarshalText()
	if e == nil {
		_, err = kv.Create(ctx, k, v)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return false, true, nil
		}
		return err == nil, false, err
	}
	_, err = kv.Update(ctx, k, v, e.Revision())
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return false, true, nil
	}
	return err == nil, false, err
}
