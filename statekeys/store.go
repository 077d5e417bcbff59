package statekeys

import (
	"context"
	"sync"
	"time"
)

// Store enforces single use of a flow id across every verifier that shares
// it.
type Store interface {
	// Consume records flowID as used and reports whether this call was the
	// first to do so. It must be atomic across all verifiers sharing the
	// store: of any number of concurrent calls with the same flowID, at most
	// one returns true, ever, while the record lives. The record must live
	// at least ttl. On error the caller rejects the request (fails closed)
	// and reports CodeUnavailable; the flow is then in an unknown state and
	// may or may not be consumed.
	Consume(ctx context.Context, flowID string, ttl time.Duration) (bool, error)
}

// MemoryStore is an in-process Store for tests and single-process use. It
// forgets a flow id once its ttl has passed. The zero value is ready to use.
type MemoryStore struct {
	mu    sync.Mutex
	until map[string]time.Time
	// Now defaults to time.Now.
	Now func() time.Time
}

// Consume implements Store.
func (s *MemoryStore) Consume(_ context.Context, flowID string, ttl time.Duration) (bool, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.until == nil {
		s.until = make(map[string]time.Time)
	}
	if exp, ok := s.until[flowID]; ok && t.Before(exp) {
		return false, nil
	}
	// Sweep expired records now and then, bounded by the map size.
	if len(s.until) > 0 && len(s.until)%1024 == 0 {
		for k, exp := range s.until {
			if !t.Before(exp) {
				delete(s.until, k)
			}
		}
	}
	s.until[flowID] = t.Add(ttl)
	return true, nil
}
