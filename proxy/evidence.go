package proxy

import (
	"io"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// EvidenceWriter returns an Options.Evidence that writes each record to w
// as one JSON line (pipeline.Evidence.AppendJSON), one record at a time.
// After a write fails it writes nothing more; Err reports the failure.
type EvidenceWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewEvidenceWriter writes evidence lines to w.
func NewEvidenceWriter(w io.Writer) *EvidenceWriter { return &EvidenceWriter{w: w} }

// Write writes one record; it is an Options.Evidence.
func (e *EvidenceWriter) Write(ev *pipeline.Evidence) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	e.buf = append(ev.AppendJSON(e.buf[:0]), '\n')
	_, e.err = e.w.Write(e.buf)
	if cap(e.buf) > keepBuf {
		e.buf = nil
	}
}

// Err is the first write error.
func (e *EvidenceWriter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
