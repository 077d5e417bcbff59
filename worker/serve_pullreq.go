package worker

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The pull requests of the durable path, sent on one inbox subscription
// that lives as long as the loop.
//
// nats.go's Fetch subscribes an inbox per request and unsubscribes it when
// the request ends for the client: at the batch's last message, at any
// status, or one second after the request's expiry even if the server has
// not answered. On an R3 consumer the server holds each delivery until the
// replicas agree and sends the request's 408 after them; when that takes
// more than the second (a loaded cluster, an election), deliveries reach an
// inbox nobody listens to and wait out their AckWait. Here the inbox stays
// subscribed, a request ends when its batch is full or the server's status
// for it arrives (a lost status only after FetchWait plus pullGrace), and a
// delivery that comes after its request ended is still processed.

// pullGrace is how long past its expiry a request waits for the server's
// status (lost only with a connection).
const pullGrace = 5 * time.Second

// pullInboxCap is the capacity of the inbox channel; nats.go drops what
// does not fit (a slow consumer), so it is far above what the requests
// ask for.
const pullInboxCap = 8192

// puller sends pull requests for the durable consumer.
type puller struct {
	nc      *nats.Conn
	subject string
	inbox   string
	sub     *nats.Subscription
	ch      chan *nats.Msg
}

func newPuller(nc *nats.Conn, durable string) (*puller, error) {
	p := &puller{
		nc:      nc,
		subject: "$JS.API.CONSUMER.MSG.NEXT." + wire.StreamRaw + "." + durable,
		inbox:   nc.NewInbox(),
		ch:      make(chan *nats.Msg, pullInboxCap),
	}
	sub, err := nc.ChanSubscribe(p.inbox, p.ch)
	if err != nil {
		return nil, err
	}
	p.sub = sub
	return p, nil
}

func (p *puller) close() { _ = p.sub.Unsubscribe() }

// pull asks for n messages waiting at most wait, and hands each delivery
// to deliver (also those beyond n that belong to an earlier request). It
// returns how many it handed over and the status that ended the request.
func (p *puller) pull(n int, wait time.Duration, deliver func(*nats.Msg)) (int, string, error) {
	body := make([]byte, 0, 64)
	body = append(body, `{"batch":`...)
	body = strconv.AppendInt(body, int64(n), 10)
	body = append(body, `,"expires":`...)
	body = strconv.AppendInt(body, wait.Nanoseconds(), 10)
	body = append(body, '}')
	if err := p.nc.PublishRequest(p.subject, p.inbox, body); err != nil {
		return 0, pullStatus(err, 0, n), err
	}
	timer := time.NewTimer(wait + pullGrace)
	defer timer.Stop()
	got := 0
	for got < n {
		select {
		case m := <-p.ch:
			st, user := statusOf(m)
			if user {
				deliver(m)
				got++
				continue
			}
			if st == "" {
				continue // heartbeat
			}
			return got, st, nil
		case <-timer.C:
			return got, PullExpired, nil
		}
	}
	return got, PullComplete, nil
}

// drain hands over deliveries already in the inbox.
func (p *puller) drain(deliver func(*nats.Msg)) {
	for {
		select {
		case m := <-p.ch:
			if _, user := statusOf(m); user {
				deliver(m)
			}
		default:
			return
		}
	}
}

// statusOf classes a message of the inbox: a delivery (user), a status that
// ends a request (its pull status), or a heartbeat ("", false).
func statusOf(m *nats.Msg) (string, bool) {
	if len(m.Data) > 0 || len(m.Header) == 0 {
		return "", true
	}
	code := m.Header.Get("Status")
	if code == "" {
		return "", true
	}
	descr := strings.ToLower(m.Header.Get("Description"))
	switch code {
	case "100":
		return "", false
	case "404", "408":
		return PullExpired, false
	case "409":
		switch {
		case strings.Contains(descr, "batch completed"):
			return PullBatchCompleted, false
		case strings.Contains(descr, "exceeds maxbytes"):
			return PullExpired, false
		case strings.Contains(descr, "leadership change"):
			return PullLeadershipChange, false
		case strings.Contains(descr, "consumer deleted"):
			return PullConsumerDeleted, false
		case strings.Contains(descr, "server shutdown"):
			return PullServerShutdown, false
		}
		return PullOther, false
	case "400":
		return PullBadRequest, false
	case "423":
		return PullPinMismatch, false
	case "503":
		return PullNoResponders, false
	}
	return PullOther, false
}

// pulledMsg is a delivery of the pull inbox as a jetstream.Msg. It
// acknowledges with nats.Msg's methods (nats.go 1.55 has no exported way
// to make a jetstream.Msg of a message received on one's own
// subscription).
type pulledMsg struct {
	m  *nats.Msg
	nc *nats.Conn
}

var _ jetstream.Msg = pulledMsg{}

func (p pulledMsg) Metadata() (*jetstream.MsgMetadata, error) {
	md, err := p.m.Metadata()
	if err != nil {
		return nil, err
	}
	return &jetstream.MsgMetadata{
		Sequence:     jetstream.SequencePair{Consumer: md.Sequence.Consumer, Stream: md.Sequence.Stream},
		NumDelivered: md.NumDelivered,
		NumPending:   md.NumPending,
		Timestamp:    md.Timestamp,
		Stream:       md.Stream,
		Consumer:     md.Consumer,
		Domain:       md.Domain,
	}, nil
}

func (p pulledMsg) Data() []byte                       { return p.m.Data }
func (p pulledMsg) Headers() nats.Header               { return p.m.Header }
func (p pulledMsg) Subject() string                    { return p.m.Subject }
func (p pulledMsg) Reply() string                      { return p.m.Reply }
func (p pulledMsg) Ack() error                         { return p.m.Ack() }
func (p pulledMsg) Nak() error                         { return p.m.Nak() }
func (p pulledMsg) InProgress() error                  { return p.m.InProgress() }
func (p pulledMsg) Term() error                        { return p.m.Term() }
func (p pulledMsg) NakWithDelay(d time.Duration) error { return p.m.NakWithDelay(d) }

func (p pulledMsg) DoubleAck(ctx context.Context) error { return p.m.AckSync(nats.Context(ctx)) }

func (p pulledMsg) TermWithReason(reason string) error {
	if p.m.Reply == "" {
		return nats.ErrMsgNoReply
	}
	return p.nc.Publish(p.m.Reply, []byte("+TERM "+reason))
}
