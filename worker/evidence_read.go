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
	// A read that fails (a consumer that cannot be created or a fetch
	// that errs while a replicated stream changes leader) starts again
	// after the last message handed to fn, up to readAttempts times in a
	// row without progress.
	var next uint64 // the next stream sequence wanted; 0: from since
	for fails := 0; ; {
		cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
		if subject != "" {
			cfg.FilterSubjects = []string{subject}
		}
		switch {
		case next != 0:
			cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
			cfg.OptStartSeq = next
		case !since.IsZero():
			cfg.DeliverPolicy = jetstream.DeliverByStartTimePolicy
			cfg.OptStartTime = &since
		}
		done, progressed, err := readOrdered(ctx, st, cfg, last, until, &next, fn)
		if done || errors.Is(err, errFn) {
			return errors.Unwrap(err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if progressed {
			fails = 0
		}
		if fails++; fails >= readAttempts {
			return ErrEvidenceRead
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(fails) * 250 * time.Millisecond):
		}
	}
}

// readAttempts bounds the reads in a row that fail without progress.
const readAttempts = 5

// errFn wraps an error of the caller's fn.
var errFn = errors.New("fn")

type fnError struct{ err error }

func (e fnError) Error() string   { return e.err.Error() }
func (e fnError) Unwrap() error   { return e.err }
func (e fnError) Is(t error) bool { return t == errFn }

// readOrdered reads through one ordered consumer. done: the read reached
// its end (err nil) or fn failed (err an fnError); otherwise err says why
// the consumer failed and next is where to start again.
func readOrdered(ctx context.Context, st jetstream.Stream, cfg jetstream.OrderedConsumerConfig, last uint64, until time.Time, next *uint64,
	fn func(seq uint64, stored time.Time, data []byte) error) (done, progressed bool, err error) {
	cons, err := st.OrderedConsumer(ctx, cfg)
	if err != nil {
		return false, false, ErrEvidenceRead
	}
	for {
		if err := ctx.Err(); err != nil {
			return false, progressed, err
		}
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return false, progressed, ErrEvidenceRead
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return false, progressed, ErrEvidenceRead
			}
			if md.Sequence.Stream > last || (!until.IsZero() && md.Timestamp.After(until)) {
				return true, progressed, nil
			}
			if err := fn(md.Sequence.Stream, md.Timestamp, m.Data()); err != nil {
				return true, progressed, fnError{err}
			}
			*next, progressed = md.Sequence.Stream+1, true
			if md.Sequence.Stream == last {
				return true, progressed, nil
			}
		}
		if batch.Error() != nil && !errors.Is(batch.Error(), jetstream.ErrNoMessages) && !errors.Is(batch.Error(), context.DeadlineExceeded) {
			return false, progressed, ErrEvidenceRead
		}
		if n == 0 {
			// Nothing within the wait: done when the consumer has nothing
			// pending (the messages up to last were removed meanwhile, by
			// limits, or none matches the filter); otherwise a replicated
			// stream was slow to deliver, and the read starts again.
			if ci, err := cons.Info(ctx); err == nil && ci.NumPending == 0 {
				return true, progressed, nil
			}
			return false, progressed, ErrEvidenceRead
		}
	}
}
