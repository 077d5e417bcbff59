package promptgate

import (
	"errors"
	"math"
	"strconv"
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
// count, too many counts, a leading zero, stray bytes) is ErrWindowText,
// never a reset. It does not allocate.
func (w *Window) UnmarshalText(b []byte) error {
	if len(b) > 512 || len(b) < len(windowTag) || string(b[:len(windowTag)]) != windowTag {
		return ErrWindowText
	}
	rest := b[len(windowTag):]
	var nw Window
	var ok bool
	if nw.Slot, rest, ok = parseCount(rest); !ok || len(rest) == 0 || rest[0] != ':' {
		return ErrWindowText
	}
	rest = rest[1:]
	for i := 0; ; i++ {
		if i == len(nw.Counts) {
			return ErrWindowText
		}
		if nw.Counts[i], rest, ok = parseCount(rest); !ok {
			return ErrWindowText
		}
		if len(rest) == 0 {
			break
		}
		if rest[0] != ',' {
			return ErrWindowText
		}
		rest = rest[1:]
	}
	*w = nw
	return nil
}

// parseCount reads a non-negative decimal int64 without a leading zero
// (but "0") or sign from the start of b.
func parseCount(b []byte) (int64, []byte, bool) {
	i := 0
	var n int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if i == 1 && b[0] == '0' || n > (math.MaxInt64-9)/10 {
			return 0, nil, false
		}
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 {
		return 0, nil, false
	}
	return n, b[i:], true
}
