package worker

import (
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The notification rate limit of the worker (the policy's notifications,
// pipeline.NotificationPolicy), applied on both paths to messages of kind
// notification: at most MaxPerWindow per server in each window. The
// proxy applies the same limit per conversation's server (proxy/session.go).
//
// A server is named within its tenant: the key is tenant and server, the
// subject tokens of the durable path or the Mcp-Tenant and Mcp-Server
// headers of the inline path, so one tenant's noisy server does not
// silence another tenant's server of the same name. Messages without a
// server (or tenant) name, or with one that is not a subject token, are
// counted under the invalid token (wire.TokenOr): together, one limit.
//
// The limit is per worker: each worker counts what it sees, so across a
// fleet of N workers a server may send up to N x MaxPerWindow in a window
// (the queue group spreads its notifications over the workers). A
// fleet-wide count would need a write to a shared store per notification,
// which costs more than the pass the limit protects.
//
// Over the limit a notification is not delivered and nothing is queued:
// inline, the reply is the sanitized error result the worker gives any
// refused notification (a notifications/message of level warning from
// logger mcp-sanitize, BOUND_EXCEEDED, notification-rate; never the
// input); durable, the input is acknowledged and no clean message is
// published. The first refused notification of a window per server gets
// an evidence record; the others of that window get none. A durable
// redelivery of a refused notification (its first attempt's evidence was
// not stored) records evidence again, under the same Nats-Msg-Id, so a
// failed publish does not lose the window's record.
//
// Memory is bounded: each policy's limits have one bounds.Window, which
// keeps at most WithNotificationKeys servers (default
// bounds.DefaultWindowKeys); when it is full, servers whose window ended
// are forgotten first, and a server that still finds no room is counted
// with the other newcomers under one shared key (so a flood of new server
// names is limited together, never given unbounded memory). At most
// maxNotifyLimitSets distinct limits are kept at once; a new one beyond
// that starts every window afresh.

// maxNotifyLimitSets bounds the distinct (max, window) limits kept: one
// per policy in use, in practice one or two.
const maxNotifyLimitSets = 16

type notifyLimits struct{ max, ms int }

// notifyLimiter holds the windows of the notification limit. Its zero
// value is ready; it is safe for concurrent use.
type notifyLimiter struct {
	maxKeys int // servers tracked per window (0: bounds.DefaultWindowKeys)

	mu      sync.Mutex
	windows map[notifyLimits]*bounds.Window
}

// allow counts one notification of key under pol at now. ok is false when
// it is over the limit; first is then true for the first refused one of
// the key's window.
func (l *notifyLimiter) allow(pol pipeline.NotificationPolicy, key string, now time.Time) (ok, first bool) {
	max, ms := pol.Limits()
	if max <= 0 {
		return true, false
	}
	lim := notifyLimits{max, ms}
	l.mu.Lock()
	w := l.windows[lim]
	if w == nil {
		if l.windows == nil || len(l.windows) >= maxNotifyLimitSets {
			l.windows = map[notifyLimits]*bounds.Window{}
		}
		w = &bounds.Window{Max: max, Width: time.Duration(ms) * time.Millisecond, MaxKeys: l.maxKeys}
		l.windows[lim] = w
	}
	l.mu.Unlock()
	ok, first, _ = w.Allow(key, now)
	return ok, first
}

// notifyKey is the limiter's key of a message: tenant and server tokens.
func notifyKey(mc *msgContext) string { return mc.tenantTok + "." + mc.serverTok }

// WithNotificationKeys bounds the servers whose notifications each worker
// counts at once (default bounds.DefaultWindowKeys, 4096; see
// notify_rate.go for what happens beyond it).
func WithNotificationKeys(n int) ServeOption {
	return func(c *serveConfig) error {
		if n < 2 || n > 1<<20 {
			return optErr("notification keys must be 2 to 1048576")
		}
		c.notifyKeys = n
		return nil
	}
}

// rateNotification applies the notification limit to a message of kind
// notification under eng's policy: nil when it may pass, else the
// refusal's result (quiet when it is not the window's first).
func (s *Service) rateNotification(eng *pipeline.Engine, mc *msgContext) *result {
	if mc.kind != pipeline.KindNotification || mc.notifyCounted {
		return nil
	}
	// Counted once per delivery: a pass run again within the attempt (a
	// resolver unavailable for a moment) is the same notification.
	mc.notifyCounted = true
	ok, first := s.notify.allow(eng.Policy().Notifications, notifyKey(mc), time.Now())
	if ok {
		return nil
	}
	res := s.reject(eng, mc, nil, pipeline.CodeBoundExceeded, string(wire.ReasonNotificationRate), false)
	res.rated = true
	res.quiet = !first && mc.deliveries <= 1
	return &res
}
