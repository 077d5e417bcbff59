package schema

import (
	"container/list"
	"sync"
)

// DefaultCacheEntries is the capacity NewCache uses when maxEntries <= 0.
const DefaultCacheEntries = 1024

// Cache holds compiled schemas keyed by Digest, least recently used first
// out. It is safe for concurrent use. Compile errors are not cached.
type Cache struct {
	lim Limits
	max int

	mu    sync.Mutex
	ll    *list.List // of *Schema, most recent at the front
	items map[string]*list.Element

	hits, misses uint64
}

// NewCache returns a cache of at most maxEntries compiled schemas
// (DefaultCacheEntries when maxEntries <= 0) that compiles with lim.
func NewCache(maxEntries int, lim Limits) *Cache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	return &Cache{lim: lim.withDefaults(), max: maxEntries, ll: list.New(), items: map[string]*list.Element{}}
}

// Compile returns the compiled schema of raw from the cache, compiling it
// (outside the lock) on a miss. Two schema texts with the same canonical
// form share one entry.
func (c *Cache) Compile(raw []byte) (*Schema, error) {
	doc, digest, err := prepare(raw, c.lim)
	if err != nil {
		return nil, err
	}
	if s := c.get(digest); s != nil {
		return s, nil
	}
	js, err := compileDoc(doc, c.lim, nil)
	if err != nil {
		return nil, err
	}
	return c.put(newSchema(js, doc, c.lim, digest, len(raw))), nil
}

// Get returns the cached schema with this digest, or nil.
func (c *Cache) Get(digest string) *Schema { return c.get(digest) }

// Len returns the number of cached schemas.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Stats returns the hit and miss counts since the cache was made.
func (c *Cache) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

func (c *Cache) get(digest string) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[digest]; ok {
		c.ll.MoveToFront(e)
		c.hits++
		return e.Value.(*Schema)
	}
	c.misses++
	return nil
}

// put stores s unless another goroutine stored the same digest first, in
// which case that one is returned, so callers share one compiled schema.
func (c *Cache) put(s *Schema) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[s.digest]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*Schema)
	}
	c.items[s.digest] = c.ll.PushFront(s)
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*Schema).digest)
	}
	return s
}
