package peertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// ProtocolVersion is the revision the Peer asks for in initialize.
const ProtocolVersion = "2025-11-25"

// maxLine caps one message a server writes (a read_media_file of a large
// image is one line of a few MiB).
const maxLine = 64 << 20

// callTimeout bounds one request.
const callTimeout = 60 * time.Second

// A Peer is an MCP server process spoken to over stdio: one JSON-RPC
// message a line each way. Notifications from the server are counted and
// dropped; requests from the server are answered with an empty result
// (ping) or method-not-found, as a client without those capabilities does.
type Peer struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex // serializes writes; guards pending, err, next
	next   int
	wait   map[string]chan []byte
	err    error
	stderr *capped
	done   chan struct{}
	// Initialize is the server's initialize response (the whole line).
	Initialize []byte
	// Notifications counts the notifications received, by method.
	notes map[string]int
	// noteLines keeps the first maxNoteLines notification lines as the
	// server wrote them.
	noteLines [][]byte
}

// maxNoteLines bounds the notification lines a Peer keeps.
const maxNoteLines = 256

// NotificationLines returns the notification lines received so far (at
// most 256), as the server wrote them.
func (p *Peer) NotificationLines() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.noteLines...)
}

// Start runs `node script args...` with the environment env (nothing of
// the test's environment is passed on, so that get-env and friends show
// only what the test planted), initializes the session with
// ProtocolVersion and sends notifications/initialized. The process is
// killed when the test ends.
func Start(t testing.TB, node, script string, env []string, args ...string) *Peer {
	t.Helper()
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Peer{t: t, cmd: cmd, stdin: stdin, wait: map[string]chan []byte{}, stderr: &capped{max: 64 << 10}, done: make(chan struct{}), notes: map[string]int{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", script, err)
	}
	go p.read(stdout)
	t.Cleanup(p.close)
	init, err := p.Call("initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcp-sanitize-peertest", "version": "1"},
	})
	if err != nil {
		t.Fatalf("initialize: %v (stderr: %s)", err, p.Stderr())
	}
	p.Initialize = init
	if err := p.Notify("notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// Message is the envelope of one JSON-RPC message with its parts kept as
// written.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Call sends a request and returns the response line as the server wrote
// it (a result or an error response). It fails only when the transport
// does: a JSON-RPC error is a response like any other.
func (p *Peer) Call(method string, params any) ([]byte, error) {
	p.mu.Lock()
	if p.err != nil {
		p.mu.Unlock()
		return nil, p.err
	}
	p.next++
	id := strconv.Itoa(p.next)
	ch := make(chan []byte, 1)
	p.wait[id] = ch
	req := map[string]any{"jsonrpc": "2.0", "id": p.next, "method": method}
	if params != nil {
		req["params"] = params
	}
	err := p.writeLocked(req)
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	select {
	case line := <-ch:
		return line, nil
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return nil, fmt.Errorf("%s: the server ended: %v", method, p.err)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no response within %v", method, callTimeout)
	}
}

// Notify sends a notification.
func (p *Peer) Notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.writeLocked(m)
}

// Notifications returns how many notifications of method arrived.
func (p *Peer) Notifications(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.notes[method]
}

// Stderr is the start of what the server wrote to its standard error.
func (p *Peer) Stderr() string { return p.stderr.String() }

func (p *Peer) writeLocked(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

func (p *Peer) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(br)
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Message
		if err = json.Unmarshal(line, &m); err != nil {
			err = fmt.Errorf("the server wrote a line that is not JSON: %w", err)
			break
		}
		switch {
		case m.Method != "" && m.ID == nil:
			p.mu.Lock()
			p.notes[m.Method]++
			if len(p.noteLines) < maxNoteLines {
				p.noteLines = append(p.noteLines, bytes.Clone(line))
			}
			p.mu.Unlock()
		case m.Method != "":
			// A request of the server: this client declares no
			// capabilities, so only ping has an answer.
			reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
			if m.Method == "ping" {
				reply["result"] = map[string]any{}
			} else {
				reply["error"] = map[string]any{"code": -32601, "message": "Method not found"}
			}
			p.mu.Lock()
			werr := p.writeLocked(reply)
			p.mu.Unlock()
			if werr != nil {
				err = werr
			}
		default:
			p.mu.Lock()
			ch := p.wait[string(m.ID)]
			delete(p.wait, string(m.ID))
			p.mu.Unlock()
			if ch != nil {
				ch <- line
			}
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	if errors.Is(err, io.EOF) {
		err = errors.New("end of output")
	}
	p.err = err
	p.mu.Unlock()
	close(p.done)
}

// readLine reads one line, at most maxLine bytes, without its newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a message longer than %d bytes", maxLine)
		}
		if err == nil {
			return bytes.TrimSuffix(line, []byte("\n")), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return line, nil
			}
			return nil, err
		}
	}
}

// close ends the process: standard input closed first, as a client that
// goes away does, then a kill if it has not ended shortly after.
func (p *Peer) close() {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	p.cmd.Wait()
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (c *capped) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
