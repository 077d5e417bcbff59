package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// fakeLDMConn is a connection whose server the test decides. A move
// (ForceReconnect) records what the handling had outstanding at that
// moment and runs onMove, which plays the reconnection.
type fakeLDMConn struct {
	s      *Service
	mu     sync.Mutex
	id     string
	looks  int // ConnectedServerId calls
	moves  int
	busy   []string // "pulling" or "inFlight" at a move, if so
	onMove func(n int)
}

func (f *fakeLDMConn) ConnectedServerId() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	return f.id
}

// waitLooks waits until the handling has asked for the server n times.
func (f *fakeLDMConn) waitLooks(t *testing.T, n int) {
	t.Helper()
	checkFor(t, time.Minute, func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.looks < n {
			return fmt.Errorf("%d looks at the server", f.looks)
		}
		return nil
	})
}

func (f *fakeLDMConn) FlushWithContext(context.Context) error { return nil }

func (f *fakeLDMConn) ForceReconnect() error {
	f.mu.Lock()
	f.moves++
	n := f.moves
	if f.s.pulling.Load() {
		f.busy = append(f.busy, "pulling")
	}
	if f.s.inFlight.Load() > 0 {
		f.busy = append(f.busy, "inFlight")
	}
	on := f.onMove
	f.mu.Unlock()
	if on != nil {
		on(n)
	}
	return nil
}

func (f *fakeLDMConn) set(id string) {
	f.mu.Lock()
	f.id = id
	f.mu.Unlock()
}

func (f *fakeLDMConn) counts() (int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.moves, append([]string(nil), f.busy...)
}

// ldmService is a durable service on a fake connection to server "A". Its
// FetchWait is an hour, so the wait for the pull outstanding never times
// out in the test: it ends only by what the test does.
func ldmService(t *testing.T) (*Service, *fakeLDMConn) {
	s := &Service{cfg: serveConfig{durable: true, fetchWait: time.Hour}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s.hardCtx, s.hardStop = context.WithCancel(context.Background())
	s.stopDur = make(chan struct{})
	s.ready.Store(true)
	t.Cleanup(s.hardStop)
	f := &fakeLDMConn{s: s, id: "A"}
	s.ldmNC = f
	return s, f
}

// TestLameDuckHandling: the pull loop stays paused from the notice until
// the handling ends; the connection is moved only once its pull has
// ended and the messages received are finished, and never when the
// server closed it first and the client is already on another server (a
// move then would cut the deliveries of a pull sent there); a server that
// announces lame-duck mode while the handling runs is left in turn.
func TestLameDuckHandling(t *testing.T) {
	tests := []struct {
		name      string
		run       func(t *testing.T, s *Service, f *fakeLDMConn)
		wantMoves int
	}{{
		name: "moves once the pull ended and the messages finished",
		run: func(t *testing.T, s *Service, f *fakeLDMConn) {
			f.onMove = func(int) { f.set("B"); s.health.signalReconnect() }
			s.inFlight.Store(1)
			s.pulling.Store(true)
			s.LameDuck()
			s.inFlight.Store(0) // the message finishes; the pull is still out
			s.pulling.Store(false)
		},
		wantMoves: 1,
	}, {
		name: "the server closed the connection first",
		run: func(t *testing.T, s *Service, f *fakeLDMConn) {
			s.pulling.Store(true)
			s.inFlight.Store(3)
			s.LameDuck()
			// The handling drains on A: the notice, the handling's own
			// look, and one of its waits have asked for the server.
			f.waitLooks(t, 3)
			// The grace period ended: the server closed the connection and
			// the client reconnected to B by itself, with the pull and the
			// messages still in the worker's hands.
			f.set("B")
			s.health.signalReconnect()
		},
		wantMoves: 0,
	}, {
		name: "the next server enters lame-duck mode during the handling",
		run: func(t *testing.T, s *Service, f *fakeLDMConn) {
			f.onMove = func(n int) {
				if n == 1 {
					f.set("B")
					s.LameDuck() // B's notice, before the handling looks again
				} else {
					f.set("C")
				}
				s.health.signalReconnect()
			}
			s.LameDuck()
		},
		wantMoves: 2,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := ldmService(t)
			paused := make(chan bool, 1)
			tc.run(t, s, f)
			go func() { paused <- s.waitLameDuck() }()
			select {
			case ok := <-paused:
				if !ok {
					t.Fatal("waitLameDuck reported a stop")
				}
			case <-time.After(time.Minute):
				t.Fatal("pulling did not resume")
			}
			if s.lameDuck.Load() {
				t.Error("lame-duck handling still on after the pull loop resumed")
			}
			moves, busy := f.counts()
			if moves != tc.wantMoves {
				t.Errorf("%d moves of the connection, want %d", moves, tc.wantMoves)
			}
			if len(busy) > 0 {
				t.Errorf("moved with %v outstanding", busy)
			}
		})
	}
}

// TestLameDuckNotStarted: a notice before the service is ready (serve
// hands notices on from the connection's creation) is ignored.
func TestLameDuckNotStarted(t *testing.T) {
	s := &Service{cfg: serveConfig{durable: true}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s.ldmNC = &fakeLDMConn{s: s, id: "A"}
	s.LameDuck()
	if s.lameDuck.Load() {
		t.Error("a service not started handles lame-duck mode")
	}
}

// TestLameDuckStop: a service that stops while lame-duck mode is handled
// ends its pull loop.
func TestLameDuckStop(t *testing.T) {
	s, _ := ldmService(t)
	s.pulling.Store(true)
	s.LameDuck()
	close(s.stopDur)
	if s.waitLameDuck() {
		t.Error("waitLameDuck let the pull loop go on after Stop")
	}
}
