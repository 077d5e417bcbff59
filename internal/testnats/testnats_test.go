package testnats

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRunServerAndConnect(t *testing.T) {
	s := RunServer(t, Options{MaxPayload: 2 << 20})
	nc, js := Connect(t, s.ClientURL())
	if got := nc.MaxPayload(); got != 2<<20 {
		t.Fatalf("max payload %d", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Fatalf("JetStream: %v", err)
	}
}

func TestCheckForPolls(t *testing.T) {
	calls := 0
	CheckFor(t, 5*time.Second, time.Millisecond, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("%d calls", calls)
	}
}

// fatalRecorder records Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (r *fatalRecorder) Helper()               {}
func (r *fatalRecorder) Fatalf(string, ...any) { r.failed = true }

func TestCheckForFailsAtDeadline(t *testing.T) {
	r := &fatalRecorder{TB: t}
	calls := 0
	start := time.Now()
	CheckFor(r, 30*time.Millisecond, 5*time.Millisecond, func() error { calls++; return errors.New("never") })
	if !r.failed || calls < 2 || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("failed %v after %d calls in %v", r.failed, calls, time.Since(start))
	}
}
