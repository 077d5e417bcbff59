package worker

import (
	"context"
	"errors"
	"testing"
	"time"
)

type deadlineKey struct{}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestMsgDeadline(t *testing.T) {
	for _, tc := range []struct {
		name string
		// d is the message deadline; cancelParent cancels the parent
		// after start; done asks Done before waiting.
		d            time.Duration
		cancelParent bool
		done         bool
		wait         time.Duration
		want         error
	}{
		{name: "before the deadline", d: time.Hour, want: nil},
		{name: "past the deadline, Err only", d: 5 * time.Millisecond, wait: 20 * time.Millisecond, want: context.DeadlineExceeded},
		{name: "past the deadline, Done asked", d: 5 * time.Millisecond, done: true, wait: 20 * time.Millisecond, want: context.DeadlineExceeded},
		{name: "parent cancelled, Err only", d: time.Hour, cancelParent: true, want: context.Canceled},
		{name: "parent cancelled, Done asked", d: time.Hour, cancelParent: true, done: true, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.WithValue(context.Background(), deadlineKey{}, "v"))
			defer cancel()
			md, release := newMsgDeadline(parent, tc.d)
			defer release()
			var done <-chan struct{}
			if tc.done {
				done = md.Done()
			}
			if tc.cancelParent {
				cancel()
			}
			if tc.wait > 0 {
				time.Sleep(tc.wait)
			}
			if err := md.Err(); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Err = %v, want %v", err, tc.want)
			}
			if done != nil {
				if tc.want != nil {
					select {
					case <-done:
					case <-time.After(5 * time.Second):
						t.Fatal("Done not closed")
					}
				} else if closed(done) {
					t.Fatal("Done closed before the deadline")
				}
			}
			if got := md.Value(deadlineKey{}); got != "v" {
				t.Fatalf("Value = %v, want the parent's", got)
			}
			dl, ok := md.Deadline()
			if !ok || dl.After(time.Now().Add(tc.d)) {
				t.Fatalf("Deadline = %v, %v", dl, ok)
			}
		})
	}
}

func TestMsgDeadlineRelease(t *testing.T) {
	t.Run("without Done", func(t *testing.T) {
		md, release := newMsgDeadline(context.Background(), time.Hour)
		release()
		if md.real.Load() != &releasedCtx {
			t.Fatal("release started a timer")
		}
		if !errors.Is(md.Err(), context.Canceled) || !closed(md.Done()) {
			t.Fatalf("after release: Err %v, Done closed %v", md.Err(), closed(md.Done()))
		}
		release() // a second release is harmless
	})
	t.Run("with Done", func(t *testing.T) {
		md, release := newMsgDeadline(context.Background(), time.Hour)
		done := md.Done()
		release()
		if !closed(done) || !errors.Is(md.Err(), context.Canceled) {
			t.Fatalf("after release: Err %v, Done closed %v", md.Err(), closed(done))
		}
	})
}

// A context derived from a message deadline ends with it: at the
// deadline, at the parent's cancellation and at release.
func TestMsgDeadlineChild(t *testing.T) {
	for _, end := range []string{"deadline", "parent", "release"} {
		t.Run(end, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			d := time.Hour
			if end == "deadline" {
				d = 5 * time.Millisecond
			}
			md, release := newMsgDeadline(parent, d)
			defer release()
			child, ccancel := context.WithCancel(md)
			defer ccancel()
			switch end {
			case "parent":
				cancel()
			case "release":
				release()
			}
			select {
			case <-child.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("child not cancelled")
			}
		})
	}
}

// The parent's earlier deadline is the message's.
func TestMsgDeadlineParentEarlier(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pd, _ := parent.Deadline()
	md, release := newMsgDeadline(parent, time.Hour)
	defer release()
	if dl, _ := md.Deadline(); !dl.Equal(pd) {
		t.Fatalf("Deadline = %v, want the parent's %v", dl, pd)
	}
}
