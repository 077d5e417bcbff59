package worker

import (
	"context"
	"fmt"
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

// HeaderArchivePolicy names the policy version that produced the
// delivered result of an archived input (a re-scan's default baseline).
const HeaderArchivePolicy = "Mcp-Policy-Version"

// Defaults of the archive.
const (
	DefaultArchiveMaxAge   = 72 * time.Hour
	DefaultArchiveMaxBytes = 10 << 30
)

// ArchiveConfig configures the archive stream.
type ArchiveConfig struct {
	// MaxAge and MaxBytes bound what the stream keeps (defaults
	// DefaultArchiveMaxAge, DefaultArchiveMaxBytes); both must be set.
	MaxAge   time.Duration
	MaxBytes int64
	Replicas int
}

// Validate checks the bounds: an archive is never unbounded.
func (c ArchiveConfig) Validate() error {
	if c.MaxAge <= 0 || c.MaxAge > 366*24*time.Hour || c.MaxBytes < 1<<20 || c.Replicas < 0 || c.Replicas > 5 {
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
	return st, nil
}

// WithArchive keeps raw inputs in MCP_ARCHIVE (Start creates or updates
// the stream when it manages streams).
func WithArchive(c ArchiveConfig) ServeOption {
	return func(sc *serveConfig) error {
		if err := c.Validate(); err != nil {
			return err
		}
		sc.archive = &c
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
// waiting for its acknowledgement. A body sent by claim is not archived
// (the object goes when the input is consumed; copying it could exceed a
// message) and neither is one of an unknown kind.
func (s *Service) archiveInput(mc *msgContext, hdr nats.Header, data []byte, ev *pipeline.Evidence) {
	if payload.IsClaim(hdr) || !mc.kindOK || ev == nil {
		return
	}
	h := newHeaderSet(9)
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
	if mc.msgID != "" {
		h.set(wire.HeaderMsgID, mc.msgID)
	}
	m := &nats.Msg{Subject: wire.Subject(wire.ArchivePrefix, mc.tenantTok, mc.serverTok, string(mc.kind)), Header: h.h, Data: data}
	if _, err := s.js.PublishMsgAsync(m, expectArchive); err != nil {
		s.publishFailed(wire.StreamArchive, mc, err)
	}
}

var expectArchive = jetstream.WithExpectStream(wire.StreamArchive)

// ensureArchive creates or binds the archive stream at Start.
func (s *Service) ensureArchive(ctx context.Context) error {
	if s.cfg.archive == nil {
		return nil
	}
	if s.cfg.manageStreams {
		_, err := EnsureArchiveStream(ctx, s.js, *s.cfg.archive)
		return err
	}
	if _, err := s.js.Stream(ctx, wire.StreamArchive); err != nil {
		return fmt.Errorf("worker: archive stream %s: %w", wire.StreamArchive, err)
	}
	return nil
}
