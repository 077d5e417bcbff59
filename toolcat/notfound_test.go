package toolcat

import (
	"errors"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/testnats"
)

// TestNotFoundCached: an absent tool is remembered while the watch runs
// (a tool no tools/list stored is asked for on every one of its results),
// and a later Put of it is served once the watch reports it.
func TestNotFoundCached(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	a, err := Open(ctx, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := 0; i < 2; i++ {
		if _, err := b.Get(ctx, "srv", "late"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of an absent tool = %v, want ErrNotFound", err)
		}
	}
	key, _ := Key("srv", "late")
	b.mu.Lock()
	e, cached := b.cache[key]
	b.mu.Unlock()
	if !cached || e != nil {
		t.Fatalf("the absence is not cached (cached %v, entry %v)", cached, e)
	}
	if _, err := a.Put(ctx, "srv", []byte(`{"tools":[{"name":"late","inputSchema":{"type":"object"}}]}`)); err != nil {
		t.Fatal(err)
	}
	testnats.CheckFor(t, 5*time.Second, 10*time.Millisecond, func() error {
		e, err := b.Get(ctx, "srv", "late")
		if err != nil {
			return err
		}
		if e.Name != "late" {
			return errors.New("wrong entry")
		}
		return nil
	})
	// Without a watch nothing is cached: every Get reads the bucket.
	c, err := Open(ctx, js, Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Get(ctx, "srv", "never"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get = %v", err)
	}
	if len(c.cache) != 0 {
		t.Fatalf("cached without a watch: %v", c.cache)
	}
}

// TestCacheBound: absences count against MaxCached like entries.
func TestCacheBound(t *testing.T) {
	js := testJS(t)
	ctx := ctxT(t)
	c, err := Open(ctx, js, Options{MaxCached: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		if _, err := c.Get(ctx, "srv", n); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(%s) = %v", n, err)
		}
	}
	c.mu.Lock()
	n := len(c.cache)
	c.mu.Unlock()
	if n != 3 {
		t.Fatalf("cache holds %d, want MaxCached 3", n)
	}
}
