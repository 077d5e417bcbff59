package errsan

import (
	"errors"
	"fmt"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// Defaults of Options.
const (
	// DefaultMaxBytes bounds the sanitized text (the policy's public
	// messages have the same bound).
	DefaultMaxBytes = 1024
	// DefaultMaxLines bounds the lines kept.
	DefaultMaxLines = 24
	// DefaultMaxInput bounds the input read; the rest is not looked at
	// and the result is marked cut.
	DefaultMaxInput = 64 << 10
)

// Upper limits of Options: larger values are refused.
const (
	maxMaxBytes = 64 << 10
	maxMaxLines = 1024
	maxMaxInput = 1 << 20
)

// ErrOptions is wrapped by every error of New.
var ErrOptions = errors.New("errsan: invalid options")

// Options configure a Sanitizer. The zero value takes every default.
type Options struct {
	// MaxBytes bounds the result in bytes (cut at a rune boundary, with
	// CutMark appended). Default DefaultMaxBytes; at most 64 KiB.
	MaxBytes int
	// MaxLines bounds the lines kept. Default DefaultMaxLines; at most
	// 1024.
	MaxLines int
	// MaxInput bounds the bytes of input looked at. Default
	// DefaultMaxInput; at most 1 MiB.
	MaxInput int
	// SecretMarker is the literal prefix of the marker a redaction already
	// put into the text ("[REDACTED:" for the scanners' default): such
	// markers are kept and counted as KindSecret. Empty: none.
	SecretMarker string
	// Redactor, when set, redacts the secrets of the scanners' catalog
	// before anything else. The text should be normalized as the
	// Redactor expects (scanners.Normalizer); a Sanitizer with a Redactor
	// is not safe for concurrent use.
	Redactor *scanners.Redactor
}

// CutMark ends a result that was cut by a bound.
const CutMark = " [...]"

func (o *Options) fill() error {
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLines == 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.MaxInput == 0 {
		o.MaxInput = DefaultMaxInput
	}
	switch {
	case o.MaxBytes < 32 || o.MaxBytes > maxMaxBytes:
		return fmt.Errorf("%w: MaxBytes must be between 32 and %d", ErrOptions, maxMaxBytes)
	case o.MaxLines < 1 || o.MaxLines > maxMaxLines:
		return fmt.Errorf("%w: MaxLines must be between 1 and %d", ErrOptions, maxMaxLines)
	case o.MaxInput < 64 || o.MaxInput > maxMaxInput:
		return fmt.Errorf("%w: MaxInput must be between 64 and %d", ErrOptions, maxMaxInput)
	case len(o.SecretMarker) > 64:
		return fmt.Errorf("%w: SecretMarker longer than 64 bytes", ErrOptions)
	}
	return nil
}
