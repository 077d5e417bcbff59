package worker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// msgDeadline is the context of one message's deadline (the message
// timeout) without a timer for the common case: a pass only asks Err,
// which compares the clock with the deadline. A timer exists only once
// something waits on Done (a resolver, an Object Store read or write):
// the first Done call derives a context.WithDeadline from the parent, and
// from then on every method answers from it, so Done and Err agree. A
// context.WithTimeout per message cost a timer started and stopped, the
// parent's lock to register and remove the child, and four allocations
// (docs/benchmarks.md).
type msgDeadline struct {
	parent   context.Context
	deadline time.Time
	once     sync.Once
	real     atomic.Pointer[deadlineCtx]
}

type deadlineCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// newMsgDeadline returns the context of a deadline d from now under
// parent, and the function that releases it (as a CancelFunc does; the
// message's context must not be used after it).
func newMsgDeadline(parent context.Context, d time.Duration) (*msgDeadline, func()) {
	md := startMsgDeadline(parent, d)
	return md, md.release
}

// startMsgDeadline is newMsgDeadline without the release function as a
// value (an allocation a message): the caller calls release itself.
func startMsgDeadline(parent context.Context, d time.Duration) *msgDeadline {
	md := &msgDeadline{parent: parent, deadline: time.Now().Add(d)}
	if pd, ok := parent.Deadline(); ok && pd.Before(md.deadline) {
		md.deadline = pd
	}
	return md
}

func (d *msgDeadline) Deadline() (time.Time, bool) { return d.deadline, true }

// Done returns the channel closed at the deadline or when the parent is
// done; the first call starts the timer.
func (d *msgDeadline) Done() <-chan struct{} {
	return d.derived().ctx.Done()
}

func (d *msgDeadline) derived() *deadlineCtx {
	d.once.Do(func() {
		ctx, cancel := context.WithDeadline(d.parent, d.deadline)
		d.real.Store(&deadlineCtx{ctx: ctx, cancel: cancel})
	})
	return d.real.Load()
}

// Err is the parent's error, else context.DeadlineExceeded once the
// deadline has passed, else nil (from the derived context once Done was
// asked).
func (d *msgDeadline) Err() error {
	if r := d.real.Load(); r != nil {
		return r.ctx.Err()
	}
	if err := d.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(d.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value answers from the derived context once there is one, so that a
// context derived from this one finds its cancellation and does not
// need a goroutine of its own to follow it.
func (d *msgDeadline) Value(key any) any {
	if r := d.real.Load(); r != nil && r != &releasedCtx {
		return r.ctx.Value(key)
	}
	return d.parent.Value(key)
}

// release stops the timer, if one was started, and ends the derived
// context; without one it starts none. Afterwards Err is
// context.Canceled and Done a closed channel, as for a cancelled
// context.WithDeadline.
func (d *msgDeadline) release() {
	d.once.Do(func() { d.real.Store(&releasedCtx) })
	d.real.Load().cancel()
}

// releasedCtx is the derived context of a msgDeadline released before
// anything asked for Done: cancelled once, shared.
var releasedCtx = func() deadlineCtx {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return deadlineCtx{ctx: ctx, cancel: cancel}
}()
