package worker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// A re-scan job over a stream (docs/rescan.md, "Over a stream"): the
// messages of an archive stream in a range are shared by any number of
// processes through one durable consumer, rescan-<job>. Each message's
// result goes to MCP_RESCAN on mcp.rescan.<job> with a Nats-Msg-Id of the
// job and the archive sequence, and only then is the message
// acknowledged, so a process killed at any point loses nothing: what it
// did not acknowledge comes back to another (or to it, restarted), and a
// result published twice is dropped by the stream, or by the report,
// which counts each archive sequence once.

// Defaults of a re-scan job.
const (
	DefaultRescanAckWait   = time.Minute
	DefaultRescanResultAge = 7 * 24 * time.Hour
	rescanDuplicates       = time.Hour
)

// Consumer metadata of a job: the range it covers, fixed when the job is
// created.
const (
	jobMetaEnd      = "mcp-sanitize.rescan.end"
	jobMetaUntil    = "mcp-sanitize.rescan.until"
	jobMetaIdentity = "mcp-sanitize.rescan.identity"
)

// RescanJob configures RunRescanJob.
type RescanJob struct {
	// Job names the job: a subject token ([A-Za-z0-9_-], 64 bytes).
	Job string
	// Stream is the archive stream (default wire.StreamArchive).
	Stream string
	// Since and Until bound the messages by their stored time (zero: the
	// first, and the last stored when the job was created).
	Since, Until time.Time
	// Workers is how many messages this process handles at once (default
	// 1).
	Workers int
	// AckWait is how long a message a process took may stay
	// unacknowledged before it goes to another (default
	// DefaultRescanAckWait): longer than one message's two passes.
	AckWait time.Duration
	// Replicas of the result stream: 0 creates it with one replica and
	// keeps an existing stream's, so a run without the setting never
	// scales down a replicated stream.
	Replicas int
	// Identity names what the job compares (the policies' versions and
	// digests). It is kept with the job, and a process whose identity
	// differs is refused: results of two comparisons never mix.
	Identity string
}

// ErrJobMismatch: the job exists and compares something else.
var ErrJobMismatch = errors.New("worker: the re-scan job exists with other policies; name a new job")

// ArchivedMsg is one message of the archive.
type ArchivedMsg struct {
	Seq     uint64
	Stored  time.Time
	Subject string
	Header  nats.Header
	Data    []byte
}

// RescanFunc answers one archived message with its result record (JSON,
// one object). An error leaves the message unacknowledged: it is tried
// again after AckWait.
type RescanFunc func(ctx context.Context, m ArchivedMsg) ([]byte, error)

// JobState is where a job stands.
type JobState struct {
	// End is the last archive sequence of the job.
	End uint64
	// Done reports that every message of the range was answered.
	Done bool
	// Handled counts the messages this call answered.
	Handled int64
}

// RescanResultSubject is the subject of a job's results.
func RescanResultSubject(job string) string { return wire.Subject(wire.RescanPrefix, job) }

// RunRescanJob takes part in a job until every message of its range is
// answered or ctx ends. The first call creates the job's consumer (its
// range fixed in the consumer's metadata); later calls, here or in other
// processes, share it.
func RunRescanJob(ctx context.Context, js jetstream.JetStream, j RescanJob, fn RescanFunc) (state JobState, err error) {
	if wire.CheckToken(j.Job) != nil || len(j.Job) > 64 {
		return state, optErr("a job name is a subject token of at most 64 bytes")
	}
	if j.Stream == "" {
		j.Stream = wire.StreamArchive
	}
	if j.Workers <= 0 {
		j.Workers = 1
	}
	if j.AckWait <= 0 {
		j.AckWait = DefaultRescanAckWait
	}
	if err := ensureRescanStream(ctx, js, j.Replicas); err != nil {
		return state, err
	}
	st, serr := js.Stream(ctx, j.Stream)
	if serr != nil {
		return state, fmt.Errorf("worker: archive stream %s: %w", j.Stream, serr)
	}
	// The job's consumer is replicated like the archive: creating or
	// binding it can outlast one API request while a server catches up,
	// and several processes do it at once; a timeout or a missing leader
	// is tried again.
	var cons jetstream.Consumer
	var end uint64
	var until time.Time
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, rescanEnsureTimeout)
		cons, end, until, err = jobConsumer(actx, st, j)
		cancel()
		if err == nil || ctx.Err() != nil || attempt == rescanEnsureAttempts ||
			!(errors.Is(err, context.DeadlineExceeded) || transientPublish(err)) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	if err != nil {
		return state, err
	}
	state.End = end
	subject := RescanResultSubject(j.Job)
	jobs := make(chan jetstream.Msg)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	var handled int64
	for w := 0; w < j.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range jobs {
				md, err := m.Metadata()
				if err != nil {
					continue
				}
				seq := md.Sequence.Stream
				if seq > end || (!until.IsZero() && md.Timestamp.After(until)) {
					m.Ack() // outside the job's range
					continue
				}
				res, err := fn(ctx, ArchivedMsg{Seq: seq, Stored: md.Timestamp, Subject: m.Subject(), Header: m.Headers(), Data: m.Data()})
				if err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					continue // comes back after AckWait
				}
				rm := &nats.Msg{Subject: subject, Header: nats.Header{}, Data: res}
				rm.Header.Set(wire.HeaderMsgID, j.Job+"."+strconv.FormatUint(seq, 10))
				if _, err := js.PublishMsg(ctx, rm, jetstream.WithExpectStream(wire.StreamRescan)); err != nil {
					continue // not acknowledged: comes back
				}
				if err := m.DoubleAck(ctx); err == nil {
					mu.Lock()
					handled++
					mu.Unlock()
				}
			}
		}()
	}
	defer func() {
		close(jobs)
		wg.Wait()
		state.Handled = handled
	}()
	for ctx.Err() == nil {
		batch, err := cons.Fetch(4*j.Workers, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return state, fmt.Errorf("worker: rescan fetch: %w", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			select {
			case jobs <- m:
			case <-ctx.Done():
				return state, ctx.Err()
			}
		}
		mu.Lock()
		err = firstErr
		mu.Unlock()
		if err != nil {
			return state, err
		}
		if n > 0 {
			continue
		}
		info, err := cons.Info(ctx)
		if err != nil && transientPublish(err) && ctx.Err() == nil {
			// A replicated consumer without a leader for a moment (a
			// node restarted, an election): the loop asks again.
			continue
		}
		if err != nil {
			return state, fmt.Errorf("worker: rescan consumer: %w", err)
		}
		if info.NumAckPending != 0 {
			continue
		}
		if info.Delivered.Stream >= end {
			state.Done = true
			return state, nil
		}
		if info.NumPending == 0 {
			// Nothing pending, and the range not delivered: done when the
			// archive holds nothing of the range after what was delivered
			// (its limits removed it). The consumer's count alone is not
			// enough: a replicated consumer just created by another
			// process can report nothing pending before it has counted.
			si, err := st.Info(ctx)
			if err != nil {
				return state, fmt.Errorf("worker: archive stream: %w", err)
			}
			if si.State.Msgs == 0 || si.State.FirstSeq > end || si.State.LastSeq <= info.Delivered.Stream {
				state.Done = true
				return state, nil
			}
		}
	}
	return state, ctx.Err()
}

// jobInfoTries bounds the attempts to read a job consumer that does not
// answer yet (a second apart).
const jobInfoTries = 30

// jobConsumer creates the job's consumer, or binds it when it exists,
// and returns it with the job's range.
func jobConsumer(ctx context.Context, st jetstream.Stream, j RescanJob) (jetstream.Consumer, uint64, time.Time, error) {
	name := "rescan-" + j.Job
	if c, err := st.Consumer(ctx, name); err == nil {
		info, err := c.Info(ctx)
		for tries := 0; err != nil && transientPublish(err) && ctx.Err() == nil && tries < jobInfoTries; tries++ {
			// Another process created it a moment ago: its replicas may
			// not answer yet.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			info, err = c.Info(ctx)
		}
		if err != nil {
			return nil, 0, time.Time{}, fmt.Errorf("worker: rescan consumer: %w", err)
		}
		end, err := strconv.ParseUint(info.Config.Metadata[jobMetaEnd], 10, 64)
		if err != nil {
			return nil, 0, time.Time{}, errors.New("worker: rescan consumer " + name + " is not a job's (no range in its metadata)")
		}
		if info.Config.Metadata[jobMetaIdentity] != j.Identity {
			return nil, 0, time.Time{}, ErrJobMismatch
		}
		var until time.Time
		if u := info.Config.Metadata[jobMetaUntil]; u != "" {
			until, _ = time.Parse(time.RFC3339Nano, u)
		}
		return c, end, until, nil
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, 0, time.Time{}, fmt.Errorf("worker: rescan consumer: %w", err)
	}
	si, err := st.Info(ctx)
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("worker: archive stream: %w", err)
	}
	end := si.State.LastSeq
	cfg := jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "mcp-sanitize: re-scan job " + j.Job,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       j.AckWait,
		MaxAckPending: 1024,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		Metadata:      map[string]string{jobMetaEnd: strconv.FormatUint(end, 10), jobMetaIdentity: j.Identity},
	}
	if !j.Since.IsZero() {
		since := j.Since
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	if !j.Until.IsZero() {
		cfg.Metadata[jobMetaUntil] = j.Until.UTC().Format(time.RFC3339Nano)
	}
	c, err := st.CreateConsumer(ctx, cfg)
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("worker: rescan consumer: %w", err)
	}
	return c, end, j.Until, nil
}

// ensureRescanStream creates MCP_RESCAN, or updates it when replicas is
// set. Creating a replicated stream waits for its replicas to elect a
// leader, which can outlast one API request's timeout while a server
// catches up, and several processes of a job create it at once: the
// request is made again, up to rescanEnsureAttempts times.
func ensureRescanStream(ctx context.Context, js jetstream.JetStream, replicas int) error {
	if replicas == 0 {
		if _, err := js.Stream(ctx, wire.StreamRescan); err == nil {
			return nil
		}
	}
	cfg := jetstream.StreamConfig{
		Name: wire.StreamRescan, Description: "mcp-sanitize: results of re-scan jobs (mcp.rescan.<job>)",
		Subjects: []string{wire.RescanPrefix + ".>"}, Retention: jetstream.LimitsPolicy, MaxAge: DefaultRescanResultAge,
		MaxMsgs: -1, MaxBytes: -1, Discard: jetstream.DiscardOld, Storage: jetstream.FileStorage,
		Replicas: max(replicas, 1), Duplicates: rescanDuplicates,
	}
	var err error
	for range rescanEnsureAttempts {
		actx, cancel := context.WithTimeout(ctx, rescanEnsureTimeout)
		_, err = js.CreateOrUpdateStream(actx, cfg)
		cancel()
		if err == nil || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	if err != nil {
		return fmt.Errorf("worker: rescan result stream: %w", err)
	}
	return nil
}

// Attempts and the timeout of each of ensureRescanStream.
const (
	rescanEnsureAttempts = 4
	rescanEnsureTimeout  = 20 * time.Second
)
