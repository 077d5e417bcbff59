package testnats

import (
	"context"
	"testing"
	"time"
)

// noDeadline is the time left when the test binary runs without -timeout
// (go test -timeout 0): long enough for any run under load, short enough
// that a hang still ends.
const noDeadline = 10 * time.Minute

// Left is the time a test may still wait for something that must happen
// eventually (a message processed, an object released, a stream read):
// up to shortly before the test binary's own deadline (go test -timeout),
// so that how loaded the machine is never decides the outcome, and a real
// hang is still reported as this test's failure, with its message, rather
// than as the binary's timeout panic. The grace before the deadline is a
// twentieth of what is left, at least 5 s, for cleanups and the report.
func Left(t testing.TB) time.Duration {
	d, ok := deadline(t)
	if !ok {
		return noDeadline
	}
	left := time.Until(d)
	grace := max(left/20, 5*time.Second)
	if left-grace < time.Second {
		return time.Second
	}
	return left - grace
}

// Context is a context that ends after Left(t), cancelled when the test
// ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Left(t))
	t.Cleanup(cancel)
	return ctx
}

// Eventually is CheckFor with Left(t) as the total: for a condition the
// code under test guarantees to reach, however long the machine takes.
func Eventually(t testing.TB, interval time.Duration, f func() error) {
	t.Helper()
	CheckFor(t, Left(t), interval, f)
}

func deadline(t testing.TB) (time.Time, bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}
