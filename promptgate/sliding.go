package promptgate

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// The completion budget is a sliding window, not a fixed one: with
// windows aligned on multiples of their length, a principal could spend a
// whole budget at the end of one window and another at the start of the
// next, twice the limit in far less than a window. A Window instead keeps
// the charges of the last SlidingSlots+1 slots (a slot is a
// SlidingSlots-th of the window) and grants a charge only while all of
// them together hold fewer than the limit. The slots counted always cover
// at least a whole window before now, so in no interval of one window's
// length are more than limit charges granted, wherever the interval
// starts. The price is that a charge may be refused up to one slot
// (window/16) longer than a strict log of timestamps would; the state is
// 17 counters whatever the limit.

// SlidingSlots is the number of slots of a budget window.
const SlidingSlots = 16

// Window is the budget state of one principal: Counts[0] is the charges of
// slot Slot (the newest), Counts[i] those of slot Slot-i.
type Window struct {
	Slot   int64
	Counts [SlidingSlots + 1]int64
}

// slotOf is the slot of now for a window of the given length.
func slotOf(now time.Time, window time.Duration) int64 {
	w := int64(window) / SlidingSlots
	if w <= 0 {
		w = 1
	}
	return now.UnixNano() / w
}

// advance moves the window to the slot of now. A slot older than the
// newest (another worker's clock ahead of this one's) charges the newest:
// the counted span then only grows, which refuses earlier, never later.
func (w *Window) advance(now time.Time, window time.Duration) {
	s := slotOf(now, window)
	d := s - w.Slot
	switch {
	case d <= 0:
		return
	case d > SlidingSlots:
		w.Counts = [SlidingSlots + 1]int64{}
	default:
		copy(w.Counts[d:], w.Counts[:SlidingSlots+1-d])
		clear(w.Counts[:d])
	}
	w.Slot = s
}

// Used is what the window counts against the limit at now.
func (w *Window) Used(now time.Time, window time.Duration) int64 {
	c := *w
	c.advance(now, window)
	var n int64
	for _, x := range c.Counts {
		n += x
	}
	return n
}

// Charge moves the window to now and takes one unit when fewer than limit
// were taken in the slots it counts; it reports whether it took one.
func (w *Window) Charge(now time.Time, limit int64, window time.Duration) bool {
	w.advance(now, window)
	var n int64
	for _, x := range w.Counts {
		n += x
	}
	if n >= limit {
		return false
	}
	w.Counts[0]++
	return true
}

// Stale reports whether no charge of the window is counted any more at
// now (a store may forget it).
func (w *Window) Stale(now time.Time, window time.Duration) bool {
	return w.Used(now, window) == 0
}

// windowTag starts the text form of a Window.
const windowTag = "sw1:"

// ErrWindowText is what UnmarshalText returns for a text that is not a
// Window's.
var ErrWindowText = errors.New("promptgate: not a budget window")

// MarshalText writes "sw1:<slot>:<c0>,<c1>,...", trailing zero counts
// left out (what KV stores: a few dozen bytes).
func (w Window) MarshalText() ([]byte, error) {
	b := append([]byte(windowTag), strconv.FormatInt(w.Slot, 10)...)
	b = append(b, ':')
	last := len(w.Counts) - 1
	for last > 0 && w.Counts[last] == 0 {
		last--
	}
	for i := 0; i <= last; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, w.Counts[i], 10)
	}
	return b, nil
}

// UnmarshalText reads what MarshalText wrote; anything else (a negative
// count, too many counts, stray bytes) is ErrWindowText, never a reset.
func (w *Window) UnmarshalText(b []byte) error {
	s, ok := strings.CutPrefix(string(b), windowTag)
	if !ok || len(b) > 512 {
		return ErrWindowText
	}
	slot, counts, ok := strings.Cut(s, ":")
	if !ok {
		return ErrWindowText
	}
	var nw Window
	var err error
	if nw.Slot, err = strconv.ParseInt(slot, 10, 64); err != nil || nw.Slot < 0 {
		return ErrWindowText
	}
	parts := strings.Split(counts, ",")
	if len(parts) > len(nw.Counts) {
		return ErrWindowText
	}
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 || p != strconv.FormatInt(n, 10) {
			return ErrWindowText
		}
		nw.Counts[i] = n
	}
	*w = nw
	return nil
}
