package pipeline

import (
	"bytes"
	"io"

	"github.com/mcp-sanitize/mcp-sanitize/internal/spool"
)

// Buffer is an Output that keeps the message in memory, for transports that
// carry whole messages (a NATS reply). Its size is bounded by the
// output-bytes limit of the policy.
type Buffer struct{ bytes.Buffer }

// Discard forgets what was written.
func (b *Buffer) Discard() error { b.Reset(); return nil }

// Spool is an Output that keeps up to MemBytes in memory and spills the rest
// to a temporary file (unlinked at once, package internal/spool), so a large
// message can be withheld on failure without holding it in memory. Commit
// copies the result to its destination.
type Spool struct {
	MemBytes int    // memory kept before spilling; default DefaultSpoolMemBytes
	Dir      string // directory of the spill file; default os.TempDir()

	s spool.Spool
}

// DefaultSpoolMemBytes is the memory a Spool keeps when MemBytes is not
// positive.
const DefaultSpoolMemBytes = 4 << 20

// Write implements io.Writer.
func (s *Spool) Write(b []byte) (int, error) {
	s.s.Limit = s.MemBytes
	if s.s.Limit <= 0 {
		s.s.Limit = DefaultSpoolMemBytes
	}
	s.s.Dir = s.Dir
	return s.s.Write(b)
}

// Discard forgets what was written.
func (s *Spool) Discard() error { return s.s.Discard() }

// Len returns the bytes held.
func (s *Spool) Len() int64 { return s.s.Len() }

// Commit copies everything held to w and empties the spool.
func (s *Spool) Commit(w io.Writer) error { return s.s.Commit(w) }

// Close releases the spill file.
func (s *Spool) Close() error { return s.s.Discard() }

// Discarder is an Output that only counts bytes; benchmarks use it.
type Discarder struct{ N int64 }

func (d *Discarder) Write(b []byte) (int, error) { d.N += int64(len(b)); return len(b), nil }
func (d *Discarder) Discard() error              { d.N = 0; return nil }
