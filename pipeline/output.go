package pipeline

import (
	"bytes"
	"io"
	"os"
)

// Buffer is an Output that keeps the message in memory, for transports that
// carry whole messages (a NATS reply). Its size is bounded by the
// output-bytes limit of the policy.
type Buffer struct{ bytes.Buffer }

// Discard forgets what was written.
func (b *Buffer) Discard() error { b.Reset(); return nil }

// Spool is an Output that keeps up to MemBytes in memory and spills the rest
// to a temporary file, so a large message can be withheld on failure
// without holding it in memory. Commit copies the result to its destination.
type Spool struct {
	MemBytes int    // memory kept before spilling; default 4 MiB
	Dir      string // directory of the spill file; default os.TempDir()

	mem  []byte
	file *os.File
	n    int64
}

// Write implements io.Writer.
func (s *Spool) Write(b []byte) (int, error) {
	max := s.MemBytes
	if max <= 0 {
		max = 4 << 20
	}
	if s.file == nil && len(s.mem)+len(b) <= max {
		s.mem = append(s.mem, b...)
		s.n += int64(len(b))
		return len(b), nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.Dir, "mcp-sanitize-spool-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
		s.file = f
		if _, err := f.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = s.mem[:0]
	}
	n, err := s.file.Write(b)
	s.n += int64(n)
	return n, err
}

// Discard forgets what was written.
func (s *Spool) Discard() error {
	s.mem = s.mem[:0]
	s.n = 0
	if s.file != nil {
		err := s.file.Close()
		s.file = nil
		return err
	}
	return nil
}

// Len returns the bytes held.
func (s *Spool) Len() int64 { return s.n }

// Commit copies everything held to w and empties the spool.
func (s *Spool) Commit(w io.Writer) error {
	defer s.Discard()
	if s.file == nil {
		_, err := w.Write(s.mem)
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.file)
	return err
}

// Close releases the spill file.
func (s *Spool) Close() error { return s.Discard() }

// Discarder is an Output that only counts bytes; benchmarks use it.
type Discarder struct{ N int64 }

func (d *Discarder) Write(b []byte) (int, error) { d.N += int64(len(b)); return len(b), nil }
func (d *Discarder) Discard() error              { d.N = 0; return nil }
