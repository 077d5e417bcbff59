package worker

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
)

// drainSubs drains each subscription in turn: no new message is delivered,
// the messages already delivered are handled, then the subscription
// closes. A subscription still open when ctx ends is unsubscribed, dropping
// what it had not delivered (a durable consumer redelivers it after its
// AckWait; a request's caller times out). It returns the first error, not
// counting a connection or subscription already closed, which leave
// nothing to drain.
func drainSubs(ctx context.Context, subs []*nats.Subscription) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubscription) {
			first = err
		}
	}
	for _, sub := range subs {
		closed := sub.StatusChanged(nats.SubscriptionClosed)
		if err := sub.Drain(); err != nil {
			keep(err)
			continue
		}
		select {
		case <-closed:
		case <-ctx.Done():
			keep(sub.Unsubscribe())
		}
	}
	return first
}
