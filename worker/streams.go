package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// This file creates or updates the four streams and the durable consumer
// at start. Every worker of a fleet runs it; CreateOrUpdate with the same
// configuration is a no-op, so the order in which workers start does not
// matter. The reasons for each setting are in docs/nats.md.

// Defaults of the streams.
const (
	DefaultRawMaxAge      = 24 * time.Hour
	DefaultCleanMaxAge    = 24 * time.Hour
	DefaultEvidenceMaxAge = 30 * 24 * time.Hour
	DefaultDLQMaxAge      = 14 * 24 * time.Hour
	// DefaultDuplicates is the deduplication window of MCP_CLEAN,
	// MCP_EVIDENCE and MCP_DLQ. It must outlast the longest time between
	// two deliveries of one input (the largest BackOff step plus the
	// message deadline), or a redelivery could publish a second copy.
	DefaultDuplicates = 5 * time.Minute
)

// StreamsConfig configures the streams of the service.
type StreamsConfig struct {
	// Replicas of every stream: 1 (default) on one server, 3 in a cluster.
	Replicas int
	// Storage of every stream (default file).
	Storage jetstream.StorageType
	// RawRetention is the retention of MCP_RAW: WorkQueuePolicy (default:
	// a message is deleted once acknowledged) or LimitsPolicy (messages are
	// kept until RawMaxAge/RawMaxBytes, so they can be re-scanned later by
	// a new consumer; see docs/nats.md). A stream's retention cannot be
	// changed in place.
	RawRetention jetstream.RetentionPolicy
	// Max ages and sizes (0 bytes: unlimited).
	RawMaxAge, CleanMaxAge, EvidenceMaxAge, DLQMaxAge         time.Duration
	RawMaxBytes, CleanMaxBytes, EvidenceMaxBytes, DLQMaxBytes int64
	// Duplicates is the deduplication window of the output streams.
	Duplicates time.Duration
	// MaxMsgSize caps one message of every stream (0: the server's
	// max_payload).
	MaxMsgSize int32
	// EvidencePersist is MCP_EVIDENCE's persist mode (nats-server 2.12 or
	// later for async). jetstream.DefaultPersistMode (the default, the
	// zero value) writes every record to the stream's file before the
	// server acknowledges it, so an acknowledged record survives a crash
	// of the server process. jetstream.AsyncPersistMode acknowledges a
	// record once it is in the server's memory and writes records in
	// batches a few milliseconds later: records acknowledged in the last
	// milliseconds before a crash of the server (not a clean shutdown)
	// are lost, though the durable path has acknowledged their inputs.
	// It spares the server a write a record (docs/benchmarks.md, "Issue
	// 35, inline"). Only with file storage and one replica (a replicated
	// stream already writes in batches behind its log). The server does
	// not change the mode of an existing stream: EnsureStreams then fails
	// (recreate the stream, or keep its mode).
	EvidencePersist jetstream.PersistModeType
}

// DefaultStreamsConfig returns the defaults: one replica, file storage,
// work-queue MCP_RAW, the Default* ages, unlimited bytes.
func DefaultStreamsConfig() StreamsConfig {
	return StreamsConfig{
		Replicas:       1,
		Storage:        jetstream.FileStorage,
		RawRetention:   jetstream.WorkQueuePolicy,
		RawMaxAge:      DefaultRawMaxAge,
		CleanMaxAge:    DefaultCleanMaxAge,
		EvidenceMaxAge: DefaultEvidenceMaxAge,
		DLQMaxAge:      DefaultDLQMaxAge,
		Duplicates:     DefaultDuplicates,
	}
}

// ErrConfig reports an invalid stream, consumer or service configuration.
var ErrConfig = errors.New("worker: invalid configuration")

// Validate checks the configuration.
func (c StreamsConfig) Validate() error {
	switch {
	case c.Replicas < 1 || c.Replicas > 5:
		return fmt.Errorf("%w: stream replicas must be 1..5", ErrConfig)
	case c.RawRetention != jetstream.WorkQueuePolicy && c.RawRetention != jetstream.LimitsPolicy:
		return fmt.Errorf("%w: raw retention must be workqueue or limits", ErrConfig)
	case c.RawMaxAge < 0 || c.CleanMaxAge < 0 || c.EvidenceMaxAge < 0 || c.DLQMaxAge < 0:
		return fmt.Errorf("%w: negative max age", ErrConfig)
	case c.RawMaxBytes < 0 || c.CleanMaxBytes < 0 || c.EvidenceMaxBytes < 0 || c.DLQMaxBytes < 0:
		return fmt.Errorf("%w: negative max bytes", ErrConfig)
	case c.Duplicates < time.Second:
		return fmt.Errorf("%w: the duplicates window must be at least 1s", ErrConfig)
	case c.MaxMsgSize < 0:
		return fmt.Errorf("%w: negative max message size", ErrConfig)
	case c.EvidencePersist != jetstream.DefaultPersistMode && c.EvidencePersist != jetstream.AsyncPersistMode:
		return fmt.Errorf("%w: evidence persist mode must be default or async", ErrConfig)
	case c.EvidencePersist == jetstream.AsyncPersistMode && (c.Storage != jetstream.FileStorage || c.Replicas > 1):
		return fmt.Errorf("%w: async evidence persistence needs file storage and one replica", ErrConfig)
	}
	return nil
}

// StreamConfigs returns the four stream configurations.
func (c StreamsConfig) StreamConfigs() []jetstream.StreamConfig {
	maxBytes := func(n int64) int64 {
		if n == 0 {
			return -1
		}
		return n
	}
	msgSize := c.MaxMsgSize
	if msgSize == 0 {
		msgSize = -1
	}
	base := func(name, desc string, subj string, age time.Duration, bytes int64) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name:        name,
			Description: desc,
			Subjects:    []string{subj + ".>"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      age,
			MaxBytes:    maxBytes(bytes),
			MaxMsgs:     -1,
			MaxMsgSize:  msgSize,
			Storage:     c.Storage,
			Replicas:    c.Replicas,
			Discard:     jetstream.DiscardOld,
			Duplicates:  c.Duplicates,
		}
	}
	raw := base(wire.StreamRaw, "mcp-sanitize: raw MCP outputs awaiting sanitization (mcp.raw.<tenant>.<server>.<kind>)", wire.RawPrefix, c.RawMaxAge, c.RawMaxBytes)
	raw.Retention = c.RawRetention
	// A full input stream refuses new messages rather than dropping
	// unsanitized ones: producers see the error and can retry.
	raw.Discard = jetstream.DiscardNew
	// Producers may set Nats-Msg-Id; a short window suffices for them.
	raw.Duplicates = 2 * time.Minute
	if raw.Duplicates > c.Duplicates {
		raw.Duplicates = c.Duplicates
	}
	clean := base(wire.StreamClean, "mcp-sanitize: sanitized MCP outputs (mcp.clean.<tenant>.<server>.<kind>)", wire.CleanPrefix, c.CleanMaxAge, c.CleanMaxBytes)
	ev := base(wire.StreamEvidence, "mcp-sanitize: evidence records (mcp.evidence.<tenant>)", wire.EvidencePrefix, c.EvidenceMaxAge, c.EvidenceMaxBytes)
	ev.PersistMode = c.EvidencePersist
	dlq := base(wire.StreamDLQ, "mcp-sanitize: sanitized error results of messages that kept failing (mcp.dlq.<tenant>)", wire.DLQPrefix, c.DLQMaxAge, c.DLQMaxBytes)
	return []jetstream.StreamConfig{raw, clean, ev, dlq}
}

// EnsureStreams creates or updates the four streams.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, c StreamsConfig) error {
	if js == nil {
		return fmt.Errorf("%w: no JetStream context", ErrConfig)
	}
	if err := c.Validate(); err != nil {
		return err
	}
	for _, sc := range c.StreamConfigs() {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("worker: stream %s: %w", sc.Name, err)
		}
	}
	return nil
}

// CheckStreams reports whether the four streams exist.
func CheckStreams(ctx context.Context, js jetstream.JetStream) error {
	for _, name := range []string{wire.StreamRaw, wire.StreamClean, wire.StreamEvidence, wire.StreamDLQ} {
		if _, err := js.Stream(ctx, name); err != nil {
			return fmt.Errorf("worker: stream %s: %w", name, err)
		}
	}
	return nil
}

// Defaults of the durable consumer.
const (
	DefaultMaxDeliver = 5
	// DefaultMaxAckPending bounds messages delivered and not acknowledged
	// across the fleet. At the server default (1000) a fleet whose workers
	// each hold a batch plus their in-flight messages stops receiving once
	// the sum reaches it, with no error anywhere; size it to
	// workers × (fetch batch + concurrency) with room for messages waiting
	// out their AckWait (docs/nats.md).
	DefaultMaxAckPending = 4096
	// DefaultMaxRequestBatch and DefaultMaxRequestMaxBytes cap what one pull
	// request may ask for (server-side guard on every worker's fetch).
	DefaultMaxRequestBatch    = 256
	DefaultMaxRequestMaxBytes = 16 << 20
)

// DefaultBackOff is the redelivery schedule: the first value is also the
// AckWait of the first delivery. Each step must outlast the message
// deadline plus the publishes; long messages are kept alive with
// InProgress (every AckWait/3) rather than with a long AckWait.
var DefaultBackOff = []time.Duration{45 * time.Second, time.Minute, 2 * time.Minute, 2 * time.Minute}

// ConsumerConfig configures the durable pull consumer on MCP_RAW.
type ConsumerConfig struct {
	// Durable name (default wire.ConsumerDurable).
	Durable string
	// MaxDeliver is the number of attempts before a message goes to the
	// DLQ (default DefaultMaxDeliver).
	MaxDeliver int
	// BackOff is the AckWait of each delivery and the wait after each
	// failed attempt: delivery k+1 comes BackOff[k-1] (the last value for
	// later ones) after delivery k failed or, unacknowledged, after it was
	// delivered (RetryAfter, Schedule). Default DefaultBackOff; fewer
	// values than MaxDeliver.
	BackOff []time.Duration
	// MaxAckPending (default DefaultMaxAckPending).
	MaxAckPending int
	// MaxRequestBatch and MaxRequestMaxBytes cap one pull request.
	MaxRequestBatch    int
	MaxRequestMaxBytes int
	// Replicas of the consumer state (0: the stream's).
	Replicas int
}

// DefaultConsumerConfig returns the defaults.
func DefaultConsumerConfig() ConsumerConfig {
	return ConsumerConfig{
		Durable:            wire.ConsumerDurable,
		MaxDeliver:         DefaultMaxDeliver,
		BackOff:            append([]time.Duration(nil), DefaultBackOff...),
		MaxAckPending:      DefaultMaxAckPending,
		MaxRequestBatch:    DefaultMaxRequestBatch,
		MaxRequestMaxBytes: DefaultMaxRequestMaxBytes,
	}
}

// Validate checks the configuration.
func (c ConsumerConfig) Validate() error {
	switch {
	case c.Durable == "":
		return fmt.Errorf("%w: consumer name must not be empty", ErrConfig)
	case c.MaxDeliver < 2 || c.MaxDeliver > 100:
		return fmt.Errorf("%w: max deliver must be 2..100", ErrConfig)
	case len(c.BackOff) == 0 || len(c.BackOff) >= c.MaxDeliver:
		return fmt.Errorf("%w: back-off needs 1 to max deliver - 1 values", ErrConfig)
	case c.MaxAckPending < 1:
		return fmt.Errorf("%w: max ack pending must be positive", ErrConfig)
	case c.MaxRequestBatch < 1 || c.MaxRequestMaxBytes < 1024:
		return fmt.Errorf("%w: max request batch must be positive and max request bytes at least 1 KiB", ErrConfig)
	case c.Replicas < 0 || c.Replicas > 5:
		return fmt.Errorf("%w: consumer replicas must be 0..5", ErrConfig)
	}
	for _, d := range c.BackOff {
		if d < 100*time.Millisecond {
			return fmt.Errorf("%w: every back-off step must be at least 100ms", ErrConfig)
		}
	}
	return nil
}

// AckWait returns the AckWait of the first delivery (BackOff[0]).
func (c ConsumerConfig) AckWait() time.Duration { return c.BackOff[0] }

// RetryAfter returns how long after a failed attempt the next delivery
// comes, after delivered deliveries: BackOff[delivered-1], the last value
// for later ones. It is also the AckWait of that delivery, so a delivery
// that is never acknowledged comes back after the same time, counted from
// its delivery (or its last InProgress).
func (c ConsumerConfig) RetryAfter(delivered uint64) time.Duration {
	i := int(delivered) - 1
	if i >= len(c.BackOff) {
		i = len(c.BackOff) - 1
	}
	if i < 0 {
		i = 0
	}
	return c.BackOff[i]
}

// nakDelay is the delay a failed attempt is handed back with so that the
// next delivery comes RetryAfter(delivered) later. The server (2.15)
// applies a NakWithDelay(d) of delivery k by setting the delivery's time
// to now - AckWait + d and then waits for BackOff[k-1] from that time, so
// the next delivery comes d - BackOff[0] + BackOff[k-1] after the nak:
// with d = BackOff[0] that is BackOff[k-1] for every k. (A delay chosen as
// the wanted wait itself, as the documentation of the server suggests,
// lengthens rising schedules and collapses falling ones to immediate
// redeliveries; TestRetrySchedule measures what the server does.)
func (c ConsumerConfig) nakDelay() time.Duration { return c.BackOff[0] }

// Schedule returns the times, from the first delivery, at which each
// delivery of an input that fails every attempt at once comes (index 0 is
// the first delivery, at 0); the DLQ decision is taken at the last one.
func (c ConsumerConfig) Schedule() []time.Duration {
	out := make([]time.Duration, c.MaxDeliver)
	for k := 1; k < c.MaxDeliver; k++ {
		out[k] = out[k-1] + c.RetryAfter(uint64(k))
	}
	return out
}

// MaxGap returns the longest time between two deliveries of one input
// whose attempts fail or are never acknowledged: the largest back-off step
// used (a pass and its publishes add at most the message and publish
// timeouts to it).
func (c ConsumerConfig) MaxGap() time.Duration {
	var m time.Duration
	for k := 1; k < c.MaxDeliver; k++ {
		m = max(m, c.RetryAfter(uint64(k)))
	}
	return m
}

// JetStreamConfig returns the consumer configuration.
func (c ConsumerConfig) JetStreamConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:            c.Durable,
		Description:        "mcp-sanitize: the fleet's durable consumer of mcp.raw.>",
		FilterSubject:      wire.RawPrefix + ".>",
		DeliverPolicy:      jetstream.DeliverAllPolicy,
		AckPolicy:          jetstream.AckExplicitPolicy,
		AckWait:            c.BackOff[0],
		MaxDeliver:         c.MaxDeliver,
		BackOff:            c.BackOff,
		MaxAckPending:      c.MaxAckPending,
		MaxRequestBatch:    c.MaxRequestBatch,
		MaxRequestMaxBytes: c.MaxRequestMaxBytes,
		ReplayPolicy:       jetstream.ReplayInstantPolicy,
		Replicas:           c.Replicas,
	}
}

// EnsureConsumer creates or updates the durable consumer on MCP_RAW.
func EnsureConsumer(ctx context.Context, js jetstream.JetStream, c ConsumerConfig) (jetstream.Consumer, error) {
	if js == nil {
		return nil, fmt.Errorf("%w: no JetStream context", ErrConfig)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, wire.StreamRaw, c.JetStreamConfig())
	if err != nil {
		return nil, fmt.Errorf("worker: consumer %s: %w", c.Durable, err)
	}
	return cons, nil
}
