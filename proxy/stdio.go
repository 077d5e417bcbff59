package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DefaultCloseGrace is how long the server has to exit once its standard
// input is closed, and again after SIGTERM, before it is killed.
const DefaultCloseGrace = 5 * time.Second

// headBytes is how much of a message over the bound is kept to find its
// id and method.
const headBytes = 64 << 10

// Stdio relays between a client on a pair of streams (the proxy's own
// standard input and output) and a server run as a child process speaking
// MCP's stdio transport: one JSON-RPC message per line.
type Stdio struct {
	Proxy *Proxy
	// Cmd is the server. Run sets its Stdin and Stdout; its Stderr is the
	// caller's (the proxy's standard error, in the command).
	Cmd *exec.Cmd
	// CloseGrace overrides DefaultCloseGrace.
	CloseGrace time.Duration
}

// Run starts the server and relays until it exits: server messages through
// the Session's FromServer, at most Options.MaxInFlight at once and
// delivered by the ordering rule (order.go), client messages through
// FromClient, one after the other. When in
// ends, the server's standard input is closed, and the server is sent
// SIGTERM and then killed if it does not exit within CloseGrace each (the
// MCP stdio shutdown sequence). Run returns the server's exit status (128 +
// the signal's number when a signal ended it) once the server has exited
// and everything it wrote has been relayed. An error means the server could
// not be started, or out failed.
//
// A read of in that is blocked when the server exits is left behind: the
// caller, which owns in, ends it (the command exits).
func (s *Stdio) Run(ctx context.Context, in io.Reader, out io.Writer) (int, error) {
	grace := s.CloseGrace
	if grace <= 0 {
		grace = DefaultCloseGrace
	}
	childIn, err := s.Cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	childOut, err := s.Cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := s.Cmd.Start(); err != nil {
		return 0, err
	}
	sess := s.Proxy.NewSession()
	clientGone := make(chan struct{})
	toClient := &lineWriter{w: out, failedCh: clientGone}
	toServer := &lineWriter{w: childIn}
	max := s.Proxy.o.MaxMessageBytes
	log := s.Proxy.o.Log

	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		defer childIn.Close()
		lr := newLineReader(in, max)
		for {
			line, over, n, err := lr.next()
			if over {
				deliver(sess.TooLarge(false, line, n), toClient, toServer)
			} else if line != nil {
				deliver(sess.FromClient(line), toClient, toServer)
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					log.Info("client input ended", "error", "read failed")
				}
				return
			}
		}
	}()

	// Server messages are sanitized concurrently and delivered by the
	// ordering rule (order.go); serverDone closes once the server's
	// output has ended and every message read has been delivered.
	q := newOrderer(s.Proxy.o, func(r Routed) { deliver(r, toClient, toServer) })
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		defer q.wait()
		lr := newLineReader(childOut, max)
		for {
			line, over, n, err := lr.next()
			switch {
			case over:
				head := bytes.Clone(line)
				q.submit(true, len(head), func() Routed { return sess.TooLarge(true, head, n) })
			case line == nil:
			case isBatch(line):
				for _, m := range splitBatch(line) {
					q.submitServer(ctx, sess, bytes.Clone(m))
				}
			default:
				q.submitServer(ctx, sess, bytes.Clone(line))
			}
			if err != nil {
				return
			}
		}
	}()

	// The server ends on its own, or once the client is gone.
	go func() {
		select {
		case <-serverDone:
			return
		case <-clientDone:
		case <-clientGone:
			childIn.Close()
		case <-ctx.Done():
			childIn.Close()
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-serverDone:
			return
		case <-t.C:
		}
		s.Cmd.Process.Signal(syscall.SIGTERM)
		t.Reset(grace)
		select {
		case <-serverDone:
		case <-t.C:
			s.Cmd.Process.Kill()
		}
	}()

	<-serverDone
	werr := s.Cmd.Wait()
	if toClient.failed() != nil {
		log.Info("client output failed: the server was ended")
	}
	return exitStatus(s.Cmd, werr), nil
}

// exitStatus is the child's exit code, 128 + the signal that ended it.
func exitStatus(cmd *exec.Cmd, err error) int {
	st := cmd.ProcessState
	if st == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// deliver writes a Routed's messages.
func deliver(r Routed, toClient, toServer *lineWriter) {
	if r.Expired != nil {
		deliver(*r.Expired, toClient, toServer)
	}
	if r.Server != nil {
		toServer.write(r.Server)
	}
	if r.Client != nil {
		toClient.write(r.Client)
	}
}

// lineWriter writes one message a line, from several goroutines. After the
// first failure it writes nothing more and keeps the error.
type lineWriter struct {
	mu       sync.Mutex
	w        io.Writer
	err      error
	buf      []byte
	failedCh chan struct{} // closed at the first failure, when not nil
}

func (l *lineWriter) write(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	l.buf = append(append(l.buf[:0], msg...), '\n')
	_, l.err = l.w.Write(l.buf)
	if l.err != nil && l.failedCh != nil {
		close(l.failedCh)
	}
	if cap(l.buf) > keepBuf {
		l.buf = nil
	}
}

func (l *lineWriter) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// lineReader reads one message a line, each bounded by max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int64
	buf []byte
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return newLineReaderSize(r, max, 64<<10)
}

// newLineReaderSize is newLineReader with a read buffer of size bytes (a
// line longer than it is gathered in fragments).
func newLineReaderSize(r io.Reader, max int64, size int) *lineReader {
	if max+2 < int64(size) {
		size = int(max + 2)
	}
	return &lineReader{r: bufio.NewReaderSize(r, size), max: max}
}

// next returns the next line without its line end; nil for an empty line.
// A line longer than max is read to its end and discarded: over is true,
// line holds its first headBytes and n its length. err is the read error
// that ended the input (io.EOF at the end), returned with the last line.
func (l *lineReader) next() (line []byte, over bool, n int64, err error) {
	return l.nextLine(true)
}

func (l *lineReader) nextLine(trim bool) (line []byte, over bool, n int64, err error) {
	if cap(l.buf) > keepBuf {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		n += int64(len(frag))
		if !over {
			if n > l.max+2 { // the line end is not the message's
				over = true
				room := headBytes - len(l.buf)
				l.buf = append(l.buf, frag[:min(max(room, 0), len(frag))]...)
			} else {
				l.buf = append(l.buf, frag...)
			}
		} else if len(l.buf) < headBytes {
			l.buf = append(l.buf, frag[:min(headBytes-len(l.buf), len(frag))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			return l.buf, true, n, err
		}
		line = trimEOL(l.buf)
		if trim {
			line = trimSpace(line)
		}
		if len(line) > 0 && int64(len(line)) > l.max {
			return line, true, int64(len(line)), err
		}
		if len(line) == 0 {
			line = nil
		}
		return line, false, int64(len(line)), err
	}
}

// nextRaw is next for SSE: a blank line is an empty, non-nil line (it ends
// an event), and leading white space is kept.
func (l *lineReader) nextRaw() (line []byte, over bool, n int64, err error) {
	line, over, n, err = l.nextLine(false)
	if line == nil && !over {
		line = l.buf[:0]
	}
	return line, over, n, err
}

func trimEOL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// splitBatch returns the items of a JSON array of messages (a batch of an
// older revision); an item that cannot be delimited ends the list and
// is returned as is, so that it is refused rather than lost silently.
func splitBatch(b []byte) [][]byte {
	var out [][]byte
	i := skipWS(b, 0) + 1
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] == ']' {
			return out
		}
		end, ok := skipValue(b, i)
		if !ok {
			return append(out, b[i:])
		}
		out = append(out, b[i:end])
		i = skipWS(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}
