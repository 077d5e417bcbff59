package records

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
)

// record is one input line and its place in the stream.
type record struct {
	seq     int
	line    []byte
	tooLong bool
	blank   bool     // the line holds nothing but whitespace
	big     *bigLine // a line over MemRecordBytes, in a file (line is nil)
	failed  error    // the line could not be put in its file (skipped)
	size    int      // what the record holds in the window
}

// outcome is the sanitized line and evidence of one record.
type outcome struct {
	seq      int
	size     int             // input bytes the record holds in the window
	head     []byte          // the line up to the result
	line     []byte          // the rest of the line
	spool    *pipeline.Spool // a big record's result, in place of line
	evidence []byte
	err      error
}

// Defaults of Options.
const (
	// DefaultMaxRecordBytes is the longest record line accepted.
	DefaultMaxRecordBytes = 64 << 20
	// MinMaxRecordBytes is the smallest MaxRecordBytes accepted.
	MinMaxRecordBytes = 1024
	// DefaultTimeout bounds the pass over one record.
	DefaultTimeout = 30 * time.Second
	// DefaultMemRecordBytes is the longest record line held in memory
	// (pipeline.DefaultSpoolMemBytes, the memory of a single message's
	// spool in scan).
	DefaultMemRecordBytes = pipeline.DefaultSpoolMemBytes
	// DefaultInFlightBytes bounds the input bytes of the records in flight
	// beyond the first 2*Workers.
	DefaultInFlightBytes = 8 << 20
	// MaxInFlightExtra is the most records in flight beyond the first
	// 2*Workers.
	MaxInFlightExtra = 128
	// maxPooledBuf is the largest line buffer kept for reuse, and
	// maxPooledBytes the capacity each free list keeps.
	maxPooledBuf   = 1 << 20
	maxPooledBytes = 8 << 20
)

// Options configures Run. The zero value runs GOMAXPROCS passes, accepts
// records up to DefaultMaxRecordBytes, gives each DefaultTimeout and writes
// no evidence.
type Options struct {
	// Kind is the message kind of every record's result.
	Kind pipeline.Kind
	// Framing is the framing of every record's result that does not say
	// its own (a record member "framing"); "" means pipeline.FramingAuto.
	Framing pipeline.Framing
	// Guard is the guards' request context of every record, with the
	// hooks (authorization, completion budget); a record's "context"
	// member replaces its principal, scopes and request params
	// (context.go). nil: none (guarded kinds are refused, fail closed).
	Guard *pipeline.GuardInput
	// Workers is the number of parallel passes; 0 means GOMAXPROCS.
	Workers int
	// MaxRecordBytes caps one input line (MinMaxRecordBytes at least); a
	// longer line is not held but answered with BOUND_EXCEEDED
	// (record-too-long). 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int
	// MemRecordBytes is the longest record line held in memory; a longer
	// one goes to an unlinked temporary file in SpoolDir and its output
	// through a pipeline.Spool, so the memory of one record is bounded like
	// a single message's whatever its size (bigrecord.go). 0 means
	// DefaultMemRecordBytes.
	MemRecordBytes int
	// SpoolDir is the directory of those files; "" means os.TempDir().
	SpoolDir string
	// Timeout bounds the pass over one record; 0 means DefaultTimeout.
	Timeout time.Duration
	// InFlightBytes bounds the input bytes of the records in flight (read
	// and not yet written) beyond the first 2*Workers, which are admitted
	// whatever their size; at most MaxInFlightExtra records more are in
	// flight. 0 means DefaultInFlightBytes.
	InFlightBytes int
	// Evidence receives one evidence record (JSON) a line, in input order;
	// nil means none.
	Evidence io.Writer
	// Flush writes each record's line out (bufio flush) as soon as it and
	// every line before it are answered and no other answer waits, so a
	// reader of a pipe sees it before the next record arrives; without it
	// the output is written in large blocks (for a file).
	Flush bool
	// Report, if set, receives each error Run reports, in order: the first
	// failed record (*RecordError), the first failed evidence write and a
	// failed output write (*WriteError), a failed read (*ReadError).
	Report func(error)
}

// ErrOptions is returned by Run for an invalid option.
var ErrOptions = errors.New("records: invalid options")

// RecordError is a record that could not be answered (the engine's output
// or the record's file failed; a record that is merely bad gets an error
// result on its line instead). Its line gets an INTERNAL error result
// (internal-fault) all the same, and later records are still processed.
type RecordError struct {
	Record int // 1-based: the line of the input
	Err    error
}

func (e *RecordError) Error() string { return fmt.Sprintf("record %d: %v", e.Record, e.Err) }
func (e *RecordError) Unwrap() error { return e.Err }

// WriteError is a failed write of the output or the evidence.
type WriteError struct {
	What string // "output" or "evidence"
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("writing %s: %v", e.What, e.Err) }
func (e *WriteError) Unwrap() error { return e.Err }

// ReadError is a failed read of the input (or the context ended).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return fmt.Sprintf("reading input: %v", e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }

// Run sanitizes a stream of records, one JSON object
// {"tool","outputSchema","result"} a line, on Workers parallel passes and
// writes one sanitized record a line to out, in input order: line N of the
// output answers line N of the input, a blank line included (an error
// result, INVALID_JSON / empty-input). Each line is written as soon as it
// and every line before it are answered (with Options.Flush, flushed too). Records in
// flight are 2*Workers records of any size up to MaxRecordBytes and, while
// their input bytes stay under InFlightBytes, at most MaxInFlightExtra
// more, so memory is bounded by the limits, not the stream length. It returns nil when every record was
// answered and written, else the first error reported (see Options.Report).
func Run(ctx context.Context, eng *pipeline.Engine, in io.Reader, out io.Writer, o Options) error {
	if _, ok := pipeline.ParseFraming(string(o.Framing)); !ok {
		return ErrOptions
	}
	if eng == nil || o.Workers < 0 || o.Timeout < 0 || o.InFlightBytes < 0 || o.MemRecordBytes < 0 || (o.MaxRecordBytes != 0 && o.MaxRecordBytes < MinMaxRecordBytes) {
		return ErrOptions
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxRecordBytes == 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.InFlightBytes == 0 {
		o.InFlightBytes = DefaultInFlightBytes
	}
	if o.MemRecordBytes == 0 {
		o.MemRecordBytes = DefaultMemRecordBytes
	}
	var first error
	report := func(err error) {
		if first == nil {
			first = err
		}
		if o.Report != nil {
			o.Report(err)
		}
	}
	evw := o.Evidence
	if evw == nil {
		evw = io.Discard
	}
	win := newWindow(2*o.Workers, 2*o.Workers+MaxInFlightExtra, o.InFlightBytes)
	stopWake := context.AfterFunc(ctx, win.wake)
	defer stopWake()
	// Line buffers go round: reader → worker → reader, and worker → writer
	// → worker, so a long stream does not allocate two buffers a record.
	inBufs := &bufPool{maxBuf: maxPooledBuf, maxKeep: maxPooledBytes}
	outBufs := &bufPool{maxBuf: maxPooledBuf, maxKeep: maxPooledBytes}
	withEvidence := evw != io.Discard
	// One cache for all workers: a tool's schema is compiled once, keyed by
	// the digest of its canonical form.
	schemas := schema.NewCache(0, schema.Limits{})
	var readErr error
	bw := bufio.NewWriterSize(out, 256<<10)
	// The evidence lines are buffered too (one write a record was a
	// system call a record); they go out with the output's flushes and at
	// the end, the evidence of a line never after the line.
	var evb *bufio.Writer
	if withEvidence {
		evb = bufio.NewWriterSize(evw, 64<<10)
	}
	pending := map[int]outcome{}
	nextSeq := 0
	failed := false
	evFailed := false  // an evidence write failed: nothing more is written
	outFailed := false // a flush failed: nothing more is written
	unflushed := false // lines written to bw since its last flush
	writeEvidence := func(b []byte) {
		if evFailed {
			return
		}
		if _, err := evb.Write(b); err != nil {
			evFailed = true
			if !failed {
				report(&WriteError{What: "evidence", Err: err})
				failed = true
			}
		}
	}
	flushEvidence := func() {
		if evb == nil || evFailed {
			return
		}
		if err := evb.Flush(); err != nil {
			evFailed = true
			if !failed {
				report(&WriteError{What: "evidence", Err: err})
				failed = true
			}
		}
	}
	// deliver takes one answer and writes every line that is then next in
	// order.
	deliver := func(res outcome) {
		pending[res.seq] = res
		for {
			r, ok := pending[nextSeq]
			if !ok {
				break
			}
			delete(pending, nextSeq)
			nextSeq++
			win.release(r.size)
			if r.err != nil {
				if !failed {
					report(&RecordError{Record: r.seq + 1, Err: r.err})
				}
				failed = true
				if r.head == nil {
					continue // not even an error result could be made
				}
			}
			if !outFailed {
				bw.Write(r.head)
				if r.spool != nil {
					if err := r.spool.Commit(bw); err != nil {
						report(&WriteError{What: "output", Err: causeOf(err)})
						failed, outFailed = true, true
					}
				}
				bw.Write(r.line)
				bw.WriteByte('\n')
				unflushed = true
			}
			if r.spool != nil {
				r.spool.Close()
			}
			outBufs.put(r.head)
			outBufs.put(r.line)
			if r.evidence != nil {
				writeEvidence(r.evidence)
			}
			outBufs.put(r.evidence)
		}
	}
	// flushLive: once every line that can be written is, and no answer
	// is waiting to be looked at (more is false), the lines go out; a
	// burst of ready lines costs one write.
	flushLive := func(more bool) {
		if o.Flush && unflushed && !outFailed && !more {
			unflushed = false
			flushEvidence()
			if err := bw.Flush(); err != nil {
				report(&WriteError{What: "output", Err: causeOf(err)})
				failed, outFailed = true, true
			}
		}
	}
	newWorker := func() *recordWorker {
		return &recordWorker{eng: eng, kind: o.Kind, framing: o.Framing, timeout: o.Timeout, evidence: withEvidence, outBufs: outBufs, schemas: schemas,
			memRecord: o.MemRecordBytes, spoolDir: o.SpoolDir, guard: o.Guard}
	}
	if o.Workers == 1 {
		// One pass: read, sanitize and write on this goroutine, in turn.
		// The hand-offs of the parallel form (reader, worker and writer
		// on three goroutines, two channel operations and a scheduler
		// wake-up a record) would buy no parallelism. A line is flushed
		// (Options.Flush) when no complete record is waiting in the
		// input, so a reader that waits for an answer before it writes
		// the next record always gets it.
		ws := newWorker()
		readErr = readRecords(ctx, in, o.MaxRecordBytes, o.MemRecordBytes, o.SpoolDir, win, inBufs, o.Flush, func(r record, more bool) {
			res := ws.sanitize(ctx, r)
			res.size = r.size
			inBufs.put(r.line)
			deliver(res)
			flushLive(more)
		})
	} else {
		jobs := make(chan record, o.Workers)
		results := make(chan outcome, o.Workers)
		go func() {
			defer close(jobs)
			readErr = readRecords(ctx, in, o.MaxRecordBytes, o.MemRecordBytes, o.SpoolDir, win, inBufs, false, func(r record, _ bool) { jobs <- r })
		}()
		var wg sync.WaitGroup
		for w := 0; w < o.Workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws := newWorker()
				for r := range jobs {
					res := ws.sanitize(ctx, r)
					res.size = r.size
					inBufs.put(r.line)
					results <- res
				}
			}()
		}
		go func() { wg.Wait(); close(results) }()
		for res := range results {
			deliver(res)
			flushLive(len(results) > 0)
		}
	}
	flushEvidence()
	if outFailed {
		return first
	}
	if err := bw.Flush(); err != nil {
		report(&WriteError{What: "output", Err: causeOf(err)})
		return first
	}
	if readErr != nil {
		report(&ReadError{Err: readErr})
	}
	return first
}

// causeOf is the cause of a write error only: a path in the error is the
// caller's to name.
func causeOf(err error) error {
	if cause := errors.Unwrap(err); cause != nil {
		return cause
	}
	return err
}

// readRecords splits the input into lines of at most max bytes. A longer
// line is not held: it becomes a tooLong record and is skipped to its end.
// A blank line is a record too (answered with an error result), so that
// output line N answers input line N.
//
// Each record goes to emit with more: whether a complete line is already
// waiting in the input buffer (looked for only when wantMore is set).
func readRecords(ctx context.Context, in io.Reader, max, memMax int, dir string, win *window, bufs *bufPool, wantMore bool, emit func(r record, more bool)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	seq := 0
	for {
		line := bufs.get()
		var big *bigLine
		var spoolErr error // the line's file failed: the rest is skipped
		tooLong := false
		total := 0 // bytes of the line so far, its end included
		for {
			frag, err := br.ReadSlice('\n')
			if !tooLong && spoolErr == nil {
				total += len(frag)
				switch {
				case total > max+1:
					tooLong = true
					line = line[:0]
					if big != nil {
						big.close()
						big = nil
					}
				case big != nil:
					if werr := big.write(frag); werr != nil {
						big.close()
						big, spoolErr = nil, werr
					}
				case total > memMax+1:
					// Longer than a line kept in memory: on to a file.
					b, werr := newBigLine(dir, line)
					if werr == nil {
						werr = b.write(frag)
					}
					if werr != nil {
						if b != nil {
							b.close()
						}
						spoolErr = werr
					} else {
						big = b
					}
					line = line[:0]
				default:
					line = append(line, frag...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(frag) == 0 && len(line) == 0 && big == nil && !tooLong && spoolErr == nil {
					return nil
				}
				break
			}
			if err != nil {
				if big != nil {
					big.close()
				}
				return err
			}
			break
		}
		r := record{seq: seq, tooLong: tooLong, failed: spoolErr}
		if spoolErr != nil {
			r.size = memMax
		} else if big != nil {
			if err := big.trimEnd(); err != nil {
				big.close()
				return err
			}
			// What it holds in memory: its output spool at most.
			r.big, r.size = big, memMax
		} else {
			r.line = bytes.TrimRight(line, "\r\n")
			r.blank = len(bytes.TrimSpace(r.line)) == 0 && !tooLong
			r.size = len(r.line)
		}
		if err := win.acquire(ctx, r.size); err != nil {
			if big != nil {
				big.close()
			}
			return err
		}
		more := false
		if wantMore {
			if n := br.Buffered(); n > 0 {
				b, _ := br.Peek(n)
				more = bytes.IndexByte(b, '\n') >= 0
			}
		}
		emit(r, more)
		seq++
	}
}
