package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The archive (docs/rescan.md, "The archive stream"): off by default. With
// WithArchive the service keeps every raw input it delivered a result for
// in MCP_ARCHIVE, on mcp.archive.<tenant>.<server>.<kind>, with the
// headers a re-scan needs: tool, server, tenant, kind, framing, the
// Content-Encoding of the body, and the version of the policy that
// produced the delivered result (HeaderArchivePolicy). The stream keeps
// messages by limits only (age and bytes, the oldest dropped first).
// Retaining raw outputs is itself a risk: they hold every secret the
// sanitizer removed.

// ArchiveBodiesBucket is the Object Store bucket of the archived copies
// of claimed bodies: an archived input sent by claim is a claim of this
// bucket (Mcp-Claim, Mcp-Claim-Bucket), so a re-scan opens it as any
// claim, bounded like the archive stream (age and bytes).
const ArchiveBodiesBucket = "mcp-archive-bodies"

// HeaderArchivePolicy names the policy version that produced the
// delivered result of an archived input (a re-scan's default baseline).
const HeaderArchivePolicy = "Mcp-Policy-Version"

// Defaults of the archive.
const (
	DefaultArchiveMaxAge   = 72 * time.Hour
	DefaultArchiveMaxBytes = 10 << 30
	// DefaultArchiveMaxClaimBytes is the largest claimed body copied
	// into the archive.
	DefaultArchiveMaxClaimBytes = 64 << 20
)

// ArchiveConfig configures the archive stream.
type ArchiveConfig struct {
	// MaxAge and MaxBytes bound what the stream keeps (defaults
	// DefaultArchiveMaxAge, DefaultArchiveMaxBytes); both must be set.
	MaxAge   time.Duration
	MaxBytes int64
	Replicas int
	// MaxClaimBytes is the largest claimed body copied into
	// ArchiveBodiesBucket (0: DefaultArchiveMaxClaimBytes; negative:
	// claimed bodies are not archived). The bucket is bounded by MaxAge
	// and MaxBytes too.
	MaxClaimBytes int64
}

// Validate checks the bounds: an archive is never unbounded.
func (c ArchiveConfig) Validate() error {
	if c.MaxAge <= 0 || c.MaxAge > 366*24*time.Hour || c.MaxBytes < 1<<20 || c.Replicas < 0 || c.Replicas > 5 || c.MaxClaimBytes > c.MaxBytes {
		return optErr("archive max age must be in (0, 366d], max bytes at least 1 MiB, replicas 0..5")
	}
	return nil
}

// EnsureArchiveStream creates or updates MCP_ARCHIVE.
func EnsureArchiveStream(ctx context.Context, js jetstream.JetStream, c ArchiveConfig) (jetstream.Stream, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        wire.StreamArchive,
		Description: "mcp-sanitize: raw MCP outputs kept for re-scans (secret: holds what the sanitizer removed)",
		Subjects:    []string{wire.ArchivePrefix + ".>"},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      c.MaxAge,
		MaxBytes:    c.MaxBytes,
		MaxMsgs:     -1,
		Discard:     jetstream.DiscardOld,
		Storage:     jetstream.FileStorage,
		Replicas:    max(c.Replicas, 1),
		Duplicates:  2 * time.Minute,
		Compression: jetstream.S2Compression,
	})
	if err != nil {
		return nil, fmt.Errorf("worker: archive stream: %w", err)
	}
	if c.MaxClaimBytes >= 0 {
		if _, err := ensureArchiveBodies(ctx, js, c); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// ensureArchiveBodies creates or updates ArchiveBodiesBucket.
func ensureArchiveBodies(ctx context.Context, js jetstream.JetStream, c ArchiveConfig) (jetstream.ObjectStore, error) {
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      ArchiveBodiesBucket,
		Description: "mcp-sanitize: claimed raw MCP outputs kept for re-scans (secret: holds what the sanitizer removed)",
		TTL:         c.MaxAge,
		MaxBytes:    c.MaxBytes,
		Storage:     jetstream.FileStorage,
		Replicas:    max(c.Replicas, 1),
		Compression: true,
	})
	if err != nil {
		return nil, fmt.Errorf("worker: archive bodies bucket: %w", err)
	}
	return obs, nil
}

// WithArchive keeps raw inputs in MCP_ARCHIVE (Start creates or updates
// the stream when it manages streams).
func WithArchive(c ArchiveConfig) ServeOption {
	return func(sc *serveConfig) error {
		if err := c.Validate(); err != nil {
			return err
		}
		sc.archive = &c
		sc.archiveRT = &archiveRuntime{sem: make(chan struct{}, archiveFollowed)}
		return nil
	}
}

// afterDelivery runs what follows the delivery of a message's result: the
// archive and the shadow pass.
func (s *Service) afterDelivery(mc *msgContext, hdr nats.Header, data []byte, ev *pipeline.Evidence) {
	if s.cfg.archive != nil {
		s.archiveInput(mc, hdr, data, ev)
	}
	if s.cfg.policySrc != nil {
		s.runShadow(mc, hdr, data, ev)
	}
}

// archiveInput publishes the raw input of a delivered message, without
// waiting for its acknowledgement. A body sent by claim is copied into
// ArchiveBodiesBucket first (its object goes when the input is consumed,
// and it may exceed a message): the archived message is then a claim of
// that bucket. One of an unknown kind is not archived.
func (s *Service) archiveInput(mc *msgContext, hdr nats.Header, data []byte, ev *pipeline.Evidence) {
	if !mc.kindOK || ev == nil {
		return
	}
	var claim string
	if payload.IsClaim(hdr) {
		name, ok := s.archiveClaim(hdr)
		if !ok {
			return
		}
		claim = name
	}
	h := newHeaderSet(14)
	h.set(wire.HeaderKind, string(mc.kind))
	h.token(wire.HeaderTool, mc.info.Tool)
	h.token(wire.HeaderServer, mc.info.Server)
	h.token(wire.HeaderTenant, mc.info.Tenant)
	h.token(wire.HeaderRequestID, mc.info.RequestID)
	h.token(HeaderArchivePolicy, ev.PolicyVersion)
	if f := hdr.Get(wire.HeaderFraming); f != "" {
		h.token(wire.HeaderFraming, f)
	}
	if ce := hdr.Get(wire.HeaderContentEncoding); ce != "" {
		h.token(wire.HeaderContentEncoding, ce)
	}
	// The guards' request context, as the guards read it, so that a
	// re-scan runs the resource, prompt and completion guards on the
	// input as the worker did (docs/rescan.md).
	if g := RequestContext(hdr, ""); g.Principal != "" || g.Scopes != nil || g.Request != nil {
		if g.Principal != "" {
			h.set(wire.HeaderPrincipal, g.Principal)
		}
		if g.Scopes != nil {
			h.set(wire.HeaderScopes, strings.Join(g.Scopes, " "))
		}
		if g.Request != nil {
			h.set(wire.HeaderRequestParams, string(g.Request))
		}
	}
	if claim != "" {
		h.set(wire.HeaderClaim, claim)
		h.set(wire.HeaderClaimBucket, ArchiveBodiesBucket)
	}
	if mc.msgID != "" {
		h.set(wire.HeaderMsgID, mc.msgID)
	} else {
		// An id of its own, so that a retry of a publish stored whose
		// acknowledgement was lost is a duplicate the stream drops.
		var r [12]byte
		rand.Read(r[:])
		h.set(wire.HeaderMsgID, "archive."+hex.EncodeToString(r[:]))
	}
	m := &nats.Msg{Subject: wire.Subject(wire.ArchivePrefix, mc.tenantTok, mc.serverTok, string(mc.kind)), Header: h.h, Data: data}
	f, err := s.js.PublishMsgAsync(m, expectArchive)
	rt := s.cfg.archiveRT
	select {
	case rt.sem <- struct{}{}:
	default:
		// archiveFollowed publishes are followed already (an outage):
		// the slot waits for one of them to settle (each does within
		// archiveRetryFor), which pushes back on the input, instead of
		// leaving this input unarchived. TestClusterFleet lost nine
		// inputs that way once the pass got faster.
		select {
		case rt.sem <- struct{}{}:
		case <-s.hardCtx.Done():
			if err != nil {
				s.publishFailed(wire.StreamArchive, mc, err)
			}
			return
		}
	}
	// A publish refused at once (disconnected during a node's restart,
	// too many outstanding) is made again as a failed one.
	rt.pending.Add(1)
	go s.settleArchive(f, err, m)
}

// archiveRuntime follows archive publishes: at most archiveFollowed at
// once (each holds its raw input), which Stop waits for.
type archiveRuntime struct {
	sem     chan struct{}
	pending sync.WaitGroup
}

// Following archive publishes.
const (
	// archiveFollowed bounds the archive publishes followed at once, and
	// with them the raw inputs held for a retry.
	archiveFollowed = 256
	// archiveRetryFor is how long a failed archive publish is made again
	// (with its Nats-Msg-Id, so a publish stored whose acknowledgement was
	// lost is dropped as a duplicate), pausing archiveRetryPause, doubled
	// up to archiveRetryPauseMax, between attempts: an R3 stream's leader
	// election took 12 s in the cluster test with the machine loaded, and
	// an input not archived is one a re-scan never sees.
	archiveRetryFor      = 45 * time.Second
	archiveRetryPause    = 250 * time.Millisecond
	archiveRetryPauseMax = 2 * time.Second
)

// settleArchive waits for the acknowledgement of an archive publish and
// publishes it again when it failed (no stream leader during an election,
// a timeout), for up to archiveRetryFor; one that still fails is counted
// and logged: the input is not archived.
func (s *Service) settleArchive(f jetstream.PubAckFuture, err error, m *nats.Msg) {
	rt := s.cfg.archiveRT
	defer func() { <-rt.sem; rt.pending.Done() }()
	if err == nil {
		t := time.NewTimer(s.cfg.publishTimeout + time.Second)
		select {
		case <-f.Ok():
		case err = <-f.Err():
		case <-t.C:
			err = context.DeadlineExceeded
		case <-s.hardCtx.Done():
			err = context.Canceled
		}
		t.Stop()
	}
	pause, until := archiveRetryPause, time.Now().Add(archiveRetryFor)
	for err != nil && time.Now().Before(until) && s.hardCtx.Err() == nil {
		select {
		case <-s.hardCtx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, archiveRetryPauseMax)
		ctx, cancel := context.WithTimeout(s.hardCtx, s.cfg.publishTimeout)
		_, err = s.js.PublishMsg(ctx, m, expectArchive)
		cancel()
	}
	if err != nil {
		s.m.PublishFailures.WithLabelValues(wire.StreamArchive).Inc()
		s.log.Warn("input not archived", "stream", wire.StreamArchive, "error", publishErrorClass(err))
	}
}

var expectArchive = jetstream.WithExpectStream(wire.StreamArchive)

// archiveClaim copies the object a claimed input names into
// ArchiveBodiesBucket and returns the copy's name; ok false when it is
// not archived (claimed bodies off, larger than MaxClaimBytes, or the copy
// failed: counted and logged, never retried). The copy is made after
// delivery and before the claim is released, on the message's slot.
func (s *Service) archiveClaim(hdr nats.Header) (string, bool) {
	if s.archiveBodies == nil || s.store == nil {
		return "", false
	}
	fail := func(reason string) (string, bool) {
		s.m.PublishFailures.WithLabelValues(wire.StreamArchive).Inc()
		s.log.Warn("claimed body not archived", "reason", reason)
		return "", false
	}
	ctx, cancel := context.WithTimeout(s.hardCtx, s.cfg.timeout)
	defer cancel()
	src, err := s.store.Get(ctx, hdr.Get(wire.HeaderClaim))
	if err != nil {
		return fail("claim-unreadable")
	}
	defer src.Close()
	info, err := src.Info()
	if err != nil || int64(info.Size) > s.cfg.archive.maxClaimBytes() {
		return fail("claim-too-large")
	}
	var r [16]byte
	rand.Read(r[:])
	name := hex.EncodeToString(r[:])
	if _, err := s.archiveBodies.Put(ctx, jetstream.ObjectMeta{Name: name}, io.LimitReader(src, int64(info.Size)+1)); err != nil {
		return fail("copy-failed")
	}
	return name, true
}

func (c *ArchiveConfig) maxClaimBytes() int64 {
	if c.MaxClaimBytes == 0 {
		return DefaultArchiveMaxClaimBytes
	}
	return c.MaxClaimBytes
}

// ensureArchive creates or binds the archive stream at Start.
func (s *Service) ensureArchive(ctx context.Context) error {
	if s.cfg.archive == nil {
		return nil
	}
	if s.cfg.manageStreams {
		if _, err := EnsureArchiveStream(ctx, s.js, *s.cfg.archive); err != nil {
			return err
		}
	} else if _, err := s.js.Stream(ctx, wire.StreamArchive); err != nil {
		return fmt.Errorf("worker: archive stream %s: %w", wire.StreamArchive, err)
	}
	if s.cfg.archive.MaxClaimBytes < 0 || !s.cfg.claims {
		return nil
	}
	obs, err := s.js.ObjectStore(ctx, ArchiveBodiesBucket)
	if err != nil {
		return fmt.Errorf("worker: archive bodies bucket %s: %w", ArchiveBodiesBucket, err)
	}
	s.archiveBodies = obs
	return nil
}
