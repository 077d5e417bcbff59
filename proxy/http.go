package proxy

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// DefaultMaxSessions bounds the HTTP sessions (Mcp-Session-Id) whose
// routing state the relay keeps; the least recently used is forgotten
// first.
const DefaultMaxSessions = 1024

// Header names of MCP's Streamable HTTP transport.
const (
	headerSessionID   = "Mcp-Session-Id"
	headerProtocol    = "Mcp-Protocol-Version"
	headerLastEventID = "Last-Event-ID"
)

// sseReadBuffer is the read buffer of one SSE stream.
const sseReadBuffer = 4 << 10

// maxHeaderValue bounds the session id and protocol version relayed back
// to the client (visible ASCII only).
const maxHeaderValue = 256

// HTTP relays MCP's Streamable HTTP transport (revisions 2025-11-25 and
// 2026-07-28) between clients and the Upstream URL: POST with a JSON or an
// SSE response, GET SSE streams, DELETE. Client messages go through
// Session.FromClient; every server message, the JSON body of a response
// or each SSE event on its own (a stream is never held whole), goes
// through Session.FromServer. A server request refused by its pass is
// answered to the upstream with an error in a POST of its own.
//
// Request headers relayed upstream: Accept, Content-Type, Authorization,
// Last-Event-ID and every Mcp-* header (Mcp-Session-Id,
// Mcp-Protocol-Version, 2026-07-28's Mcp-Method, Mcp-Name, Mcp-Param-*),
// then Header, which wins. Response headers relayed back: Mcp-Session-Id
// and Mcp-Protocol-Version (visible ASCII, at most 256 bytes), and
// WWW-Authenticate on a 401. SSE event ids and types are relayed when they
// are made of [A-Za-z0-9._:/+=-] and at most 256 bytes, else left out.
type HTTP struct {
	Proxy    *Proxy
	Upstream *url.URL
	// Header is added to every upstream request (the upstream's
	// authorization); its values are never logged.
	Header http.Header
	// Client makes the upstream requests; nil means one without an
	// overall or response-header timeout (SSE streams last, tool calls
	// answered with JSON take their time) but with connect and TLS
	// handshake timeouts.
	Client *http.Client
	// MaxSessions overrides DefaultMaxSessions.
	MaxSessions int
	// Loopback refuses requests whose Origin header names a host that is
	// not a loopback address (DNS rebinding), as a proxy listening on
	// loopback should.
	Loopback bool

	once     sync.Once
	mu       sync.Mutex
	sessions map[string]*httpSession
	tick     uint64
}

type httpSession struct {
	s    *Session
	used uint64
}

func (h *HTTP) init() {
	h.once.Do(func() {
		h.sessions = map[string]*httpSession{}
		if h.MaxSessions <= 0 {
			h.MaxSessions = DefaultMaxSessions
		}
		if h.Client == nil {
			h.Client = &http.Client{Transport: &http.Transport{
				Proxy:               http.ProxyFromEnvironment,
				DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				TLSHandshakeTimeout: 10 * time.Second,
				// No response-header timeout: a server that answers a
				// long tool call with JSON sends its headers only when
				// the call is done. The client's request bounds it (its
				// context ends the upstream request).
				MaxIdleConnsPerHost: 16,
				IdleConnTimeout:     90 * time.Second,
			}}
		}
	})
}

// session returns the routing state of a session id ("" for a server
// without sessions).
func (h *HTTP) session(id string) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tick++
	if hs, ok := h.sessions[id]; ok {
		hs.used = h.tick
		return hs.s
	}
	if len(h.sessions) >= h.MaxSessions {
		var old string
		var oldest uint64 = ^uint64(0)
		for k, v := range h.sessions {
			if v.used < oldest {
				old, oldest = k, v.used
			}
		}
		delete(h.sessions, old)
	}
	s := h.Proxy.NewSession()
	s.postScoped = true
	h.sessions[id] = &httpSession{s: s, used: h.tick}
	return s
}

func (h *HTTP) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}

// ServeHTTP relays one request.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.init()
	if h.Loopback && !loopbackOrigin(r.Header.Get("Origin")) {
		http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (h *HTTP) post(w http.ResponseWriter, r *http.Request) {
	max := h.Proxy.o.MaxMessageBytes
	sid := r.Header.Get(headerSessionID)
	sess := h.session(sid)
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, wire.CodeInternal, wire.ReasonReadError))
		return
	}
	if int64(len(body)) > max {
		rt := sess.TooLarge(false, body[:min(len(body), headBytes)], int64(len(body)))
		msg := rt.Client
		if msg == nil {
			msg = errorResponse(nil, wire.CodeBoundExceeded, wire.ReasonMessageBytes)
		}
		writeJSON(w, http.StatusRequestEntityTooLarge, msg)
		return
	}
	req := RequestOf(body)
	rt := sess.FromClient(body)
	if rt.Server == nil {
		// Answered by the proxy (the argument gate, a bound).
		writeJSON(w, http.StatusOK, rt.Client)
		return
	}
	resp, err := h.upstream(r.Context(), http.MethodPost, r.Header, bytes.NewReader(rt.Server))
	if err != nil {
		h.upstreamFailed(w, sess, req)
		return
	}
	defer resp.Body.Close()
	h.relay(w, r.Context(), resp, sess, req, sid)
	if req != nil {
		// The answer to a POST's request comes in the POST's response or
		// not at all: its entry goes with it, so a stream that ends
		// unanswered does not fill the session's map.
		sess.forgetKey(req.key)
	}
}

func (h *HTTP) get(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(headerSessionID)
	sess := h.session(sid)
	resp, err := h.upstream(r.Context(), http.MethodGet, r.Header, nil)
	if err != nil {
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	h.relay(w, r.Context(), resp, sess, nil, sid)
}

func (h *HTTP) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(headerSessionID)
	resp, err := h.upstream(r.Context(), http.MethodDelete, r.Header, nil)
	if err != nil {
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
		return
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		h.forget(sid)
	}
	copyResponseHeaders(w.Header(), resp)
	w.WriteHeader(resp.StatusCode)
}

// upstream sends one request to the upstream with the relayed headers.
func (h *HTTP) upstream(ctx context.Context, method string, in http.Header, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.Upstream.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range in {
		if relayedRequestHeader(k) {
			req.Header[k] = vs
		}
	}
	for k, vs := range h.Header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	return h.Client.Do(req)
}

// upstreamFailed answers a POST whose upstream request failed: an error
// for the request's id, never the transport's text.
func (h *HTTP) upstreamFailed(w http.ResponseWriter, sess *Session, req *Request) {
	var id []byte
	if req != nil {
		id = req.p.id
		sess.forgetKey(req.key)
	}
	h.Proxy.o.Log.Info("upstream request failed", "code", string(wire.CodeInternal), "reason", string(wire.ReasonUpstreamError))
	writeJSON(w, http.StatusBadGateway, errorResponse(id, wire.CodeInternal, wire.ReasonUpstreamError))
}

// relay writes the upstream's response to the client: a JSON body through
// one pass, an SSE stream event by event, anything else without its body.
func (h *HTTP) relay(w http.ResponseWriter, ctx context.Context, resp *http.Response, sess *Session, req *Request, sid string) {
	copyResponseHeaders(w.Header(), resp)
	if resp.StatusCode == http.StatusNotFound && sid != "" {
		h.forget(sid) // the session expired upstream
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream":
		h.relaySSE(w, ctx, resp, sess, req)
	case ct == "application/json":
		max := h.Proxy.o.MaxMessageBytes
		body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
		if err != nil {
			h.upstreamFailed(w, sess, req)
			return
		}
		var rt Routed
		if int64(len(body)) > max {
			rt = sess.TooLarge(true, body[:headBytes], int64(len(body)))
		} else {
			rt = sess.FromServer(ctx, body, req)
		}
		if rt.Server != nil {
			h.answer(ctx, resp.Request.Header, rt.Server)
		}
		if rt.Client == nil {
			if req != nil {
				rt.Client = errorResponse(req.p.id, wire.CodeInvalidContent, wire.ReasonNotJSONRPC)
			} else {
				w.WriteHeader(http.StatusAccepted)
				return
			}
		}
		writeJSON(w, resp.StatusCode, rt.Client)
	default:
		// 202 Accepted for notifications and responses, 405 for a GET
		// the upstream does not serve, errors without a JSON body: the
		// status is relayed, the body (text the upstream controls) not.
		if resp.StatusCode/100 != 2 && req != nil {
			sess.forgetKey(req.key)
			writeJSON(w, resp.StatusCode, errorResponse(req.p.id, wire.CodeInternal, wire.ReasonUpstreamError))
			return
		}
		w.WriteHeader(resp.StatusCode)
	}
}

// relaySSE relays an SSE stream event by event: each event's data is one
// message, routed through FromServer on its own; the event is written
// with its (restricted) id and type, and flushed. An event whose message
// is dropped is written with its id and no data, so that the client's
// Last-Event-ID still moves on.
func (h *HTTP) relaySSE(w http.ResponseWriter, ctx context.Context, resp *http.Response, sess *Session, req *Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	flush()
	var out []byte
	scanSSE(resp.Body, h.Proxy.o.MaxMessageBytes, func(ev *sseEvent) bool {
		out = h.dispatch(ctx, ev, sess, req, resp.Request.Header, out[:0])
		if len(out) == 0 {
			return true
		}
		if _, err := w.Write(out); err != nil {
			return false // the client is gone
		}
		flush()
		return true
	})
}

// scanSSE reads an SSE stream and calls fn with each event, until the
// stream ends or fn returns false. A data line over max is read to its end
// without being kept (the event is over: its first headBytes are kept to
// find an id). An event the stream ends inside, without its blank line, is
// not dispatched (the SSE rule).
func scanSSE(r io.Reader, max int64, fn func(*sseEvent) bool) {
	// A stream per POST: a small read buffer (lines longer than it are
	// gathered in fragments), not the 64 KiB of a stdio pipe.
	lr := newLineReaderSize(r, max, sseReadBuffer)
	var ev sseEvent
	for {
		line, over, n, err := lr.nextRaw()
		if over {
			ev.any, ev.over, ev.n = true, true, ev.n+n
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				line = bytes.TrimPrefix(rest, []byte(" "))
			}
			if len(ev.data) < headBytes {
				ev.data = append(ev.data, line[:min(len(line), headBytes-len(ev.data))]...)
			}
		} else if len(line) == 0 {
			if ev.any {
				if !fn(&ev) {
					return
				}
			}
			ev = sseEvent{data: ev.data[:0]}
		} else {
			ev.field(line, max)
		}
		if err != nil {
			return
		}
	}
}

// sseEvent is an SSE event being read.
type sseEvent struct {
	any   bool // a field was read
	id    string
	hasID bool
	typ   string
	retry string
	data  []byte
	lines int
	over  bool
	n     int64
}

// field takes one line of an event.
func (e *sseEvent) field(line []byte, max int64) {
	if line[0] == ':' {
		return // a comment: not relayed
	}
	e.any = true
	name, val, _ := bytes.Cut(line, []byte(":"))
	if len(val) > 0 && val[0] == ' ' {
		val = val[1:]
	}
	switch string(name) {
	case "data":
		if e.over {
			e.n += int64(len(val)) + 1
			return
		}
		if e.lines > 0 {
			e.data = append(e.data, '\n')
		}
		e.lines++
		e.data = append(e.data, val...)
		if int64(len(e.data)) > max {
			e.over, e.n = true, int64(len(e.data))
			e.data = e.data[:min(len(e.data), headBytes)]
		}
	case "id":
		e.id, e.hasID = string(val), true
	case "event":
		e.typ = string(val)
	case "retry":
		e.retry = string(val)
	}
}

// dispatch routes the event's message and appends what goes to the client.
func (h *HTTP) dispatch(ctx context.Context, e *sseEvent, sess *Session, req *Request, hdr http.Header, out []byte) []byte {
	var rt Routed
	switch {
	case e.over:
		rt = sess.TooLarge(true, e.data, e.n)
	case len(bytes.TrimSpace(e.data)) > 0:
		rt = sess.FromServer(ctx, e.data, req)
	}
	if rt.Server != nil {
		h.answer(ctx, hdr, rt.Server)
	}
	return formatEvent(e, rt.Client, out)
}

// formatEvent appends the event to write to the client: its id and retry
// when safe, and msg (nil: none) as its data with its type.
func formatEvent(e *sseEvent, msg []byte, out []byte) []byte {
	if e.hasID && safeToken(e.id) {
		out = append(append(append(out, "id: "...), e.id...), '\n')
	}
	if e.retry != "" && isDigits(e.retry) {
		out = append(append(append(out, "retry: "...), e.retry...), '\n')
	}
	if msg != nil {
		if e.typ != "" && safeToken(e.typ) {
			out = append(append(append(out, "event: "...), e.typ...), '\n')
		}
		for _, l := range bytes.Split(msg, []byte("\n")) {
			out = append(append(append(out, "data: "...), l...), '\n')
		}
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return out
}

// answer posts the proxy's answer to a server request the proxy refused,
// with the session's headers. The upstream's reply (202) is not relayed.
func (h *HTTP) answer(ctx context.Context, in http.Header, msg []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.Proxy.o.Timeout)
	defer cancel()
	hdr := http.Header{}
	for k, vs := range in {
		if relayedRequestHeader(k) && !strings.HasPrefix(strings.ToLower(k), "mcp-param-") && !strings.EqualFold(k, "Mcp-Method") && !strings.EqualFold(k, "Mcp-Name") && !strings.EqualFold(k, headerLastEventID) {
			hdr[k] = vs
		}
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	resp, err := h.upstream(ctx, http.MethodPost, hdr, bytes.NewReader(msg))
	if err != nil {
		h.Proxy.o.Log.Info("answering a refused server request failed", "reason", string(wire.ReasonUpstreamError))
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// relayedRequestHeader reports whether a client request header goes
// upstream.
func relayedRequestHeader(k string) bool {
	for _, h := range []string{"Accept", "Content-Type", "Authorization", headerLastEventID} {
		if strings.EqualFold(k, h) {
			return true
		}
	}
	return len(k) > 4 && strings.EqualFold(k[:4], "mcp-")
}

// copyResponseHeaders relays the upstream's MCP headers, restricted.
func copyResponseHeaders(dst http.Header, resp *http.Response) {
	for _, k := range []string{headerSessionID, headerProtocol} {
		if v := resp.Header.Get(k); v != "" && len(v) <= maxHeaderValue && visibleASCII(v) {
			dst.Set(k, v)
		}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		if v := resp.Header.Get("WWW-Authenticate"); v != "" && len(v) <= 4096 && visibleASCII(strings.ReplaceAll(v, " ", "")) {
			dst.Set("WWW-Authenticate", v)
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// safeToken reports whether an SSE id or event type is relayed.
func safeToken(s string) bool {
	if len(s) == 0 || len(s) > maxHeaderValue {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:/+=-", c) >= 0) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if len(s) == 0 || len(s) > 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// loopbackOrigin reports whether an Origin header is absent or names a
// loopback host.
func loopbackOrigin(origin string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
