package promptgate

import (
	"context"
	"testing"
	"time"
)

// TestWindowNoBurstAtEdge: the fixed window's burst (limit at the end of
// one window, limit again at the start of the next) is refused; after a
// whole window and one slot the budget is back.
func TestWindowNoBurstAtEdge(t *testing.T) {
	const limit = 10
	window := 16 * time.Second // slots of 1s
	base := time.Unix(1_000_000*16, 0)
	cases := []struct {
		name  string
		first time.Duration // when the first limit charges are made
		then  time.Duration // when the next charge is tried
		want  bool
	}{
		{"end of an aligned window, start of the next", window - time.Millisecond, window + time.Millisecond, false},
		{"half a window later", 0, window / 2, false},
		{"just under a window later", 3 * time.Second, 3*time.Second + window - time.Millisecond, false},
		{"a window and a slot later", 3 * time.Second, 3*time.Second + window + time.Second, true},
		{"long after", 0, 10 * window, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w Window
			for i := range limit {
				if !w.Charge(base.Add(c.first), limit, window) {
					t.Fatalf("charge %d refused", i)
				}
			}
			if w.Charge(base.Add(c.first), limit, window) {
				t.Fatal("charge over the limit granted")
			}
			if got := w.Charge(base.Add(c.then), limit, window); got != c.want {
				t.Fatalf("charge at +%s: %v, want %v", c.then-c.first, got, c.want)
			}
		})
	}
}

// TestWindowAnyInterval: charges attempted every 100ms for 20 windows; in
// no interval of one window's length are more than limit granted.
func TestWindowAnyInterval(t *testing.T) {
	const limit = 5
	window := 4 * time.Second
	base := time.Unix(1_700_000_000, 0)
	var w Window
	var granted []time.Time
	for i := range 800 {
		now := base.Add(time.Duration(i) * 100 * time.Millisecond)
		if w.Charge(now, limit, window) {
			granted = append(granted, now)
		}
	}
	if len(granted) < 15 {
		t.Fatalf("only %d granted in 20 windows", len(granted))
	}
	for i := range granted {
		n := 0
		for j := i; j < len(granted) && granted[j].Sub(granted[i]) < window; j++ {
			n++
		}
		if n > limit {
			t.Fatalf("%d charges granted within one window from %s", n, granted[i].Sub(base))
		}
	}
}

// TestWindowClockBehind: a charge from a clock behind the newest slot
// counts in the newest slot (refuses earlier, never later).
func TestWindowClockBehind(t *testing.T) {
	window := 16 * time.Second
	base := time.Unix(1_000_000*16, 0)
	var w Window
	w.Charge(base.Add(10*time.Second), 2, window)
	if !w.Charge(base, 2, window) || w.Counts[0] != 2 {
		t.Fatalf("behind: %+v", w)
	}
	if w.Charge(base, 2, window) {
		t.Fatal("over the limit from a clock behind")
	}
}

func TestWindowText(t *testing.T) {
	w := Window{Slot: 123}
	w.Counts[0], w.Counts[3] = 4, 1
	b, _ := w.MarshalText()
	if string(b) != "sw1:123:4,0,0,1" {
		t.Fatalf("text %q", b)
	}
	var r Window
	if err := r.UnmarshalText(b); err != nil || r != w {
		t.Fatalf("round trip: %v %+v", err, r)
	}
	for _, bad := range []string{"", "7", "sw1:", "sw1:1", "sw1:1:", "sw1:-1:0", "sw1:1:-2", "sw1:1:01",
		"sw1:1:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", "sw1:1:1 ", "sw2:1:1"} {
		if err := r.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMemoryBudget(t *testing.T) {
	b := NewMemoryBudget(2)
	now := time.Unix(1_700_000_000, 0)
	b.now = func() time.Time { return now }
	ctx := context.Background()
	for i, want := range []bool{true, true, false} {
		if ok, err := b.Charge(ctx, "a", 2, time.Minute); err != nil || ok != want {
			t.Fatalf("charge %d: %v %v", i, ok, err)
		}
	}
	if ok, err := b.Charge(ctx, "b", 2, time.Minute); !ok || err != nil {
		t.Fatalf("b: %v %v", ok, err)
	}
	if _, err := b.Charge(ctx, "c", 2, time.Minute); err != ErrBudgetFull {
		t.Fatalf("third principal with the map full: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if ok, err := b.Charge(ctx, "c", 2, time.Minute); !ok || err != nil {
		t.Fatalf("after the others went stale: %v %v", ok, err)
	}
}

func FuzzWindowText(f *testing.F) {
	f.Add([]byte("sw1:123:4,0,0,1"))
	f.Add([]byte("sw1:0:0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var w Window
		if w.UnmarshalText(b) != nil {
			return
		}
		out, _ := w.MarshalText()
		var r Window
		if err := r.UnmarshalText(out); err != nil || r != w {
			t.Fatalf("%q -> %q: %v", b, out, err)
		}
	})
}

// BenchmarkWindowCharge: one charge with its text round trip, what
// KVBudget does per attempt besides the two KV round trips.
func BenchmarkWindowCharge(b *testing.B) {
	w := Window{}
	now := time.Unix(1_700_000_000, 0)
	text, _ := w.MarshalText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var r Window
		if err := r.UnmarshalText(text); err != nil {
			b.Fatal(err)
		}
		r.Charge(now.Add(time.Duration(i)*time.Millisecond), 1<<40, time.Minute)
		text, _ = r.MarshalText()
	}
}

func BenchmarkMemoryBudgetCharge(b *testing.B) {
	m := NewMemoryBudget(0)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m.Charge(ctx, "k", 1<<40, time.Minute)
	}
}

func TestWindowTextLimits(t *testing.T) {
	w := Window{Slot: 1_700_000_000_000_000_000}
	w.Counts[16] = 3
	b, _ := w.MarshalText()
	var r Window
	if err := r.UnmarshalText(b); err != nil || r != w {
		t.Fatalf("%s: %v", b, err)
	}
	if err := r.UnmarshalText([]byte("sw1:99999999999999999999:1")); err == nil {
		t.Fatal("a slot over int64 accepted")
	}
}
