package promptgate

import (
	"context"
	"errors"
	"sync"
	"time"
)

// MemoryBudget is a Budget of one process: the sliding window of each
// principal (Window) in a map. It is what `sanitize-worker proxy` and
// `scan` use without NATS; it holds per process only, so a fleet of
// processes needs worker.KVBudget instead. The map is bounded: a new
// principal beyond MaxKeys first makes room by forgetting windows with
// nothing counted any more, and is refused (an error, so the guard
// refuses) when none can be forgotten.
type MemoryBudget struct {
	mu   sync.Mutex
	m    map[string]*Window
	max  int
	now  func() time.Time
	last time.Duration // the longest window charged, for forgetting
}

// DefaultMemoryBudgetKeys is MemoryBudget's default bound on principals.
const DefaultMemoryBudgetKeys = 65536

// ErrBudgetFull is returned for a new principal when the budget holds
// MaxKeys principals with charges still counted.
var ErrBudgetFull = errors.New("promptgate: in-process budget full")

// NewMemoryBudget returns a budget of at most maxKeys principals
// (DefaultMemoryBudgetKeys when 0).
func NewMemoryBudget(maxKeys int) *MemoryBudget {
	if maxKeys <= 0 {
		maxKeys = DefaultMemoryBudgetKeys
	}
	return &MemoryBudget{m: map[string]*Window{}, max: maxKeys, now: time.Now}
}

var _ Budget = (*MemoryBudget)(nil)

// Charge implements Budget.
func (b *MemoryBudget) Charge(ctx context.Context, key string, limit int64, window time.Duration) (bool, error) {
	if window <= 0 || limit <= 0 {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = max(b.last, window)
	w, ok := b.m[key]
	if !ok {
		if len(b.m) >= b.max {
			for k, x := range b.m {
				if x.Stale(now, b.last) {
					delete(b.m, k)
				}
			}
			if len(b.m) >= b.max {
				return false, ErrBudgetFull
			}
		}
		w = &Window{}
		b.m[key] = w
	}
	return w.Charge(now, limit, window), nil
}
