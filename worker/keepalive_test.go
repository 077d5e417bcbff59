package worker

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// progressMsg is a durable message that counts its InProgress calls.
type progressMsg struct {
	jetstream.Msg
	n atomic.Int64
}

func (m *progressMsg) InProgress() error { m.n.Add(1); return nil }

// TestKeepAlive: a message kept alive gets InProgress again and again
// while it is processed, and none once the keep-alive is stopped.
func TestKeepAlive(t *testing.T) {
	s := &Service{cfg: serveConfig{consumer: ConsumerConfig{BackOff: []time.Duration{30 * time.Millisecond, time.Minute}}}}
	m := &progressMsg{}
	stop := s.keepAlive(m)
	// At least three keep-alives, however late the timer runs.
	checkFor(t, 30*time.Second, func() error {
		if n := m.n.Load(); n < 3 {
			return fmt.Errorf("%d keep-alives", n)
		}
		return nil
	})
	stop()
	n := m.n.Load()
	time.Sleep(100 * time.Millisecond) // ten periods
	if got := m.n.Load(); got != n {
		t.Errorf("%d keep-alives after stop, want none", got-n)
	}

	// Stopped before the first is due (a minute's step: 20 s): none.
	slow := &Service{cfg: serveConfig{consumer: ConsumerConfig{BackOff: []time.Duration{time.Minute}}}}
	m2 := &progressMsg{}
	slow.keepAlive(m2)()
	time.Sleep(50 * time.Millisecond)
	if got := m2.n.Load(); got != 0 {
		t.Errorf("%d keep-alives for a message stopped at once", got)
	}
}
