package payload

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Defaults of Limits and SinkOptions. All defaults live here.
const (
	// DefaultMaxDecodedBytes caps a decoded body: 64 MiB, the default
	// record bound of sanitize-worker scan, well above any tool result a
	// model can use and small enough that a bomb costs little.
	DefaultMaxDecodedBytes = 64 << 20
	// DefaultMaxWindowBytes caps the zstd window (and so a decoder's
	// history buffer): 8 MiB, what zstd uses up to level 19 without --long.
	DefaultMaxWindowBytes = 8 << 20
	// DefaultCompressAbove: outputs larger than this are compressed. Below
	// 256 KiB compression costs more CPU than it saves on a LAN.
	DefaultCompressAbove = 256 << 10
	// DefaultMaxPayload is the NATS server's default max_payload (1 MiB).
	DefaultMaxPayload = 1 << 20
	// HeaderReserve is the part of MaxPayload left for headers: an inline
	// body is at most MaxPayload-HeaderReserve bytes.
	HeaderReserve = 8 << 10
	// DefaultMemoryLimit is what a Sink keeps in memory before it spools
	// to a temporary file.
	DefaultMemoryLimit = 4 << 20
	// DefaultEncoding compresses outputs above CompressAbove: s2, which
	// encoded generated tool results 3 to 4 times faster than zstd's
	// fastest level here, for outputs 25-35% larger (docs/payloads.md).
	// The worker pays for encoding on its hot path; zstd is the choice
	// when bandwidth matters more than CPU.
	DefaultEncoding = wire.EncodingS2
	// MaxClaimName caps the object name of a claim.
	MaxClaimName = 256
	// encodedSlack is what the encoded stream may exceed the decoded cap
	// by (frame headers, incompressible blocks).
	encodedSlack = 1 << 20
)

// Limits bound what Open decodes. The zero value means the defaults.
type Limits struct {
	// MaxDecodedBytes caps the decoded body (default
	// DefaultMaxDecodedBytes). Crossing it is BOUND_EXCEEDED, reason
	// "decoded-bytes", found while streaming.
	MaxDecodedBytes int64
	// MaxWindowBytes caps the zstd window (default DefaultMaxWindowBytes,
	// at least 1 KiB). A frame asking for more is BOUND_EXCEEDED, reason
	// "zstd-window".
	MaxWindowBytes int
	// Bucket is the only Object Store bucket a claim may name (default
	// wire.BucketPayloads); it must be the bucket of the store given to
	// Open.
	Bucket string
}

// ErrLimits reports negative or too small limits.
var ErrLimits = errors.New("payload: invalid limits (negative, or a zstd window under 1 KiB)")

// withDefaults validates l and fills its defaults.
func (l Limits) withDefaults() (Limits, error) {
	if l.MaxDecodedBytes < 0 || l.MaxWindowBytes < 0 || (l.MaxWindowBytes > 0 && l.MaxWindowBytes < 1024) {
		return l, ErrLimits
	}
	if l.MaxDecodedBytes == 0 {
		l.MaxDecodedBytes = DefaultMaxDecodedBytes
	}
	if l.MaxWindowBytes == 0 {
		l.MaxWindowBytes = DefaultMaxWindowBytes
	}
	if l.Bucket == "" {
		l.Bucket = wire.BucketPayloads
	}
	return l, nil
}

// Validate reports whether l would be accepted by Open.
func (l Limits) Validate() error {
	_, err := l.withDefaults()
	return err
}
