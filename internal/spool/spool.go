package spool

import (
	"io"
	"os"
)

// filePattern names the file (os.CreateTemp); it is unlinked at once, so
// the name shows only while it is being created.
const filePattern = "mcp-sanitize-spool-*"

// Spool holds what is written: in memory while it fits in Limit bytes,
// else in an unlinked temporary file in Dir. The zero value with Limit 0
// spills at the first non-empty Write. It is not safe for concurrent use.
type Spool struct {
	// Limit is the most bytes kept in memory; a Write that would pass it
	// moves everything to the file.
	Limit int
	// Dir is the directory of the file (os.TempDir() when empty).
	Dir string

	mem  []byte
	file *os.File
	n    int64
}

// AppendBuffer returns the free room after the bytes held (grown to n bytes
// if needed) while the content is in memory and n more bytes stay within
// Limit, else nil. A Write of what was appended there takes it in place.
func (s *Spool) AppendBuffer(n int) []byte {
	if s.file != nil || len(s.mem)+n > s.Limit {
		return nil
	}
	if cap(s.mem)-len(s.mem) < n {
		s.mem = append(make([]byte, 0, max(2*cap(s.mem), len(s.mem)+n)), s.mem...)
	}
	return s.mem[len(s.mem):len(s.mem)]
}

// Write implements io.Writer. Its errors are those of creating and writing
// the file.
func (s *Spool) Write(b []byte) (int, error) {
	if s.file == nil && len(s.mem)+len(b) <= s.Limit {
		if k := len(s.mem); len(b) > 0 && cap(s.mem)-k >= len(b) && &s.mem[k:cap(s.mem)][0] == &b[0] {
			// Appended to the room AppendBuffer gave: already in place.
			s.mem = s.mem[:k+len(b)]
		} else {
			s.mem = append(s.mem, b...)
		}
		s.n += int64(len(b))
		return len(b), nil
	}
	return s.writeFile(b)
}

// writeFile writes b to the file, creating it (with the memory held
// first) on the first call.
func (s *Spool) writeFile(b []byte) (int, error) {
	if s.file == nil {
		f, err := os.CreateTemp(s.Dir, filePattern)
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

// Len returns the bytes written since the last Discard.
func (s *Spool) Len() int64 { return s.n }

// Spilled reports whether the content is in the file.
func (s *Spool) Spilled() bool { return s.file != nil }

// Bytes returns the content while it is in memory (nil once spilled). It
// is valid until the next Write, Discard or SetMemory.
func (s *Spool) Bytes() []byte {
	if s.file != nil {
		return nil
	}
	return s.mem
}

// Reader returns a reader of everything written. It is valid until the
// next Write or Discard. It is never a *bytes.Buffer or *bytes.Reader, whose
// whole content some decoders take at once instead of streaming it.
func (s *Spool) Reader() io.Reader {
	if s.file == nil {
		return &byteReader{b: s.mem}
	}
	return io.NewSectionReader(s.file, 0, s.n)
}

// Commit copies everything written to w, then discards it.
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

// Discard forgets what was written and closes the file; the memory is kept
// for the next message.
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

// Memory returns the memory buffer (length 0 after Discard) and drops it
// from the Spool, for a caller that pools buffers.
func (s *Spool) Memory() []byte {
	b := s.mem
	s.mem = nil
	return b
}

// SetMemory gives the Spool b (its capacity) to hold the content in. Call
// it before the first Write.
func (s *Spool) SetMemory(b []byte) { s.mem = b[:0] }

// byteReader is a minimal reader over a slice.
type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
