package pipeline

import "fmt"

// NotificationPolicy bounds the notifications of one server: at most
// MaxPerWindow in each window of WindowMillis. Over it, notifications are
// dropped, never queued, with one evidence record per window
// (bounds.Window counts; the worker and the proxy apply it, since the pass
// sees one message at a time).
type NotificationPolicy struct {
	// MaxPerWindow is the notifications a server may send in one window.
	// Default DefaultNotificationsPerWindow; negative: no limit.
	MaxPerWindow int `json:"maxPerWindow,omitempty"`
	// WindowMillis is the window's length. Default 1000.
	WindowMillis int `json:"windowMillis,omitempty"`
}

// Defaults of NotificationPolicy: a server that logs or reports progress
// more than 200 times a second floods a client's context.
const (
	DefaultNotificationsPerWindow = 200
	DefaultNotificationWindowMs   = 1000
)

// Limits returns the policy with its defaults applied: max 0 means no
// limit.
func (n NotificationPolicy) Limits() (max int, windowMillis int) {
	max, w := n.MaxPerWindow, n.WindowMillis
	if max == 0 {
		max = DefaultNotificationsPerWindow
	}
	if max < 0 {
		max = 0
	}
	if w == 0 {
		w = DefaultNotificationWindowMs
	}
	return max, w
}

func (n NotificationPolicy) validate() error {
	if n.WindowMillis < 0 || n.WindowMillis > 3_600_000 {
		return fmt.Errorf("%w: notifications.windowMillis must be 1 to 3600000", ErrPolicy)
	}
	if n.MaxPerWindow > 1_000_000 {
		return fmt.Errorf("%w: notifications.maxPerWindow must be at most 1000000", ErrPolicy)
	}
	return nil
}
