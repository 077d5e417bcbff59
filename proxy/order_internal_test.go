package proxy

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// orderRun submits a sequence of messages, each letter one ('N' ordered:
// a notification or server request; 'R' a response), whose passes finish
// only when the test releases them, and records the order of delivery.
type orderRun struct {
	t     *testing.T
	seq   string
	q     *orderer
	gates []chan struct{}
	mu    sync.Mutex
	got   []int
}

func newOrderRun(t *testing.T, seq string) *orderRun {
	r := &orderRun{t: t, seq: seq}
	// Room for all, so that no submit waits (and never 1, which runs the
	// pass on the submitting goroutine).
	r.q = newOrderer(Options{MaxInFlight: len(seq) + 1, MaxInFlightBytes: 1 << 20}, func(rt Routed) {
		i, _ := strconv.Atoi(string(rt.Client))
		r.mu.Lock()
		r.got = append(r.got, i)
		r.mu.Unlock()
	})
	for i := range seq {
		g := make(chan struct{})
		r.gates = append(r.gates, g)
		r.q.submit(seq[i] == 'N', 1, func() Routed {
			<-g
			return Routed{Client: []byte(strconv.Itoa(i))}
		})
	}
	return r
}

// settle waits until each of the n released passes is delivered or waits
// for an earlier ordered message: nothing more moves until the next
// release.
func (r *orderRun) settle(n int) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.q.mu.Lock()
		done := r.q.done+r.q.waiting == n
		r.q.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: %d released passes did not settle", r.seq, n)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// want is the rule's delivered set once the passes of released have
// finished: every released message before the first ordered message that
// is not released.
func (r *orderRun) want(released []bool) []int {
	var w []int
	for i := range r.seq {
		if r.seq[i] == 'N' && !released[i] {
			break
		}
		if released[i] {
			w = append(w, i)
		}
	}
	return w
}

// run releases the passes in the order given and checks, after each
// release, that exactly what the rule allows has been delivered, and at
// the end that no message came before an ordered one written before it.
func (r *orderRun) run(release []int) {
	r.t.Helper()
	released := make([]bool, len(r.seq))
	for n, i := range release {
		released[i] = true
		close(r.gates[i])
		r.settle(n + 1)
		r.mu.Lock()
		got := slices.Sorted(slices.Values(r.got))
		r.mu.Unlock()
		if want := r.want(released); !slices.Equal(got, want) {
			r.t.Fatalf("%s released %v: delivered %v, want %v", r.seq, release[:n+1], got, want)
		}
	}
	r.q.wait()
	pos := map[int]int{}
	for p, i := range r.got {
		pos[i] = p
	}
	for i := range r.seq {
		for j := 0; j < i; j++ {
			if r.seq[j] == 'N' && pos[j] > pos[i] {
				r.t.Errorf("%s released %v: %d (%c) was delivered before the ordered %d: %v", r.seq, release, i, r.seq[i], j, r.got)
			}
		}
	}
}

// TestOrderRule: ordered messages (notifications, server requests) are
// delivered in the order written; a response waits for every ordered
// message written before it, and for nothing else.
func TestOrderRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seq     string
		release []int
	}{
		{"slow result does not hold back what follows", "RNRNRR", []int{1, 2, 3, 4, 5, 0}},
		{"a result waits for the notification before it", "NR", []int{1, 0}},
		{"notifications keep their order", "NNN", []int{2, 1, 0}},
		{"results overtake each other", "RRR", []int{2, 0, 1}},
		{"a notification overtakes a slow result before it", "RN", []int{1, 0}},
		{"a result behind two notifications", "NNR", []int{2, 1, 0}},
		{"mixed", "NRNRRN", []int{5, 3, 1, 4, 2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newOrderRun(t, tc.seq).run(tc.release)
		})
	}
}

// TestOrderRuleRandom: the rule over random sequences and random orders
// in which the passes finish (a fixed seed: the same cases every run).
func TestOrderRuleRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for k := 0; k < 200; k++ {
		n := 1 + rng.IntN(8)
		seq := make([]byte, n)
		for i := range seq {
			seq[i] = "NR"[rng.IntN(2)]
		}
		newOrderRun(t, string(seq)).run(rng.Perm(n))
	}
}

// TestOrderBound: no more passes run at once than MaxInFlight, and no more
// bytes than MaxInFlightBytes (one message alone always runs); the reader
// waits for room.
func TestOrderBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxN     int
		maxBytes int64
		size     int
		want     int // passes at once
	}{
		{"count", 3, 1 << 20, 10, 3},
		{"bytes", 100, 100, 40, 2},
		{"one message over the bytes runs alone", 100, 10, 40, 1},
		{"one at a time", 1, 1 << 20, 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const total = 10
			q := newOrderer(Options{MaxInFlight: tc.maxN, MaxInFlightBytes: tc.maxBytes}, func(Routed) {})
			var running, peak atomic.Int32
			gates := make([]chan struct{}, total)
			for i := range gates {
				gates[i] = make(chan struct{})
			}
			submitted := make(chan struct{})
			go func() {
				defer close(submitted)
				for i := 0; i < total; i++ {
					q.submit(i%2 == 0, tc.size, func() Routed {
						c := running.Add(1)
						for p := peak.Load(); c > p && !peak.CompareAndSwap(p, c); p = peak.Load() {
						}
						<-gates[i]
						running.Add(-1)
						return Routed{}
					})
				}
			}()
			for i := 0; i < total; i++ {
				want := int32(min(tc.want, total-i))
				deadline := time.Now().Add(20 * time.Second)
				for running.Load() != want {
					if time.Now().After(deadline) {
						t.Fatalf("before release %d: %d passes running, want %d", i, running.Load(), want)
					}
					time.Sleep(50 * time.Microsecond)
				}
				close(gates[i]) // the oldest admitted one
			}
			<-submitted
			q.wait()
			if p := peak.Load(); p != int32(tc.want) {
				t.Errorf("at most %d passes ran at once, want %d", p, tc.want)
			}
		})
	}
}
