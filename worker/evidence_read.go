package worker

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrEvidenceRead: the evidence stream could not be read. It carries no
// backend text.
var ErrEvidenceRead = errors.New("worker: evidence stream unavailable")

// ReadStream calls fn for each message of a stream stored from since
// (zero: the first) up to until (zero: the last message stored when the
// read began), in stream order, through an ordered consumer. It stops at
// fn's first error and returns it.
func ReadStream(ctx context.Context, js jetstream.JetStream, stream string, since, until time.Time, fn func(seq uint64, stored time.Time, data []byte) error) error {
	return ReadStreamSubject(ctx, js, stream, "", since, until, fn)
}

// ReadStreamSubject is ReadStream over the messages of one subject filter
// ("" for all).
func ReadStreamSubject(ctx context.Context, js jetstream.JetStream, stream, subject string, since, until time.Time, fn func(seq uint64, stored time.Time, data []byte) error) error {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return ErrEvidenceRead
	}
	info, err := st.Info(ctx)
	if err != nil {
		return ErrEvidenceRead
	}
	last := info.State.LastSeq
	if last == 0 || info.State.Msgs == 0 {
		return nil
	}
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if subject != "" {
		cfg.FilterSubjects = []string{subject}
	}
	if !since.IsZero() {
		cfg.DeliverPolicy = jetstream.DeliverByStartTimePolicy
		cfg.OptStartTime = &since
	}
	cons, err := st.OrderedConsumer(ctx, cfg)
	if err != nil {
		return ErrEvidenceRead
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return ErrEvidenceRead
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return ErrEvidenceRead
			}
			if md.Sequence.Stream > last || (!until.IsZero() && md.Timestamp.After(until)) {
				return nil
			}
			if err := fn(md.Sequence.Stream, md.Timestamp, m.Data()); err != nil {
				return err
			}
			if md.Sequence.Stream == last {
				return nil
			}
		}
		if batch.Error() != nil && !errors.Is(batch.Error(), jetstream.ErrNoMessages) && !errors.Is(batch.Error(), context.DeadlineExceeded) {
			return ErrEvidenceRead
		}
		if n == 0 {
			// Nothing more within the wait: the messages up to last were
			// removed meanwhile (limits).
			return nil
		}
	}
}
