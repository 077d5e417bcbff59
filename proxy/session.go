package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/argsgate"
	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Proxy holds what every conversation shares: the sanitizer and the
// options. It is safe for concurrent use; the state of one conversation is
// a Session.
type Proxy struct {
	o      Options
	san    Sanitizer
	notify *bounds.Window // Options.Notifications
	now    func() time.Time
}

// New returns a Proxy that runs server messages through san.
func New(san Sanitizer, o Options) (*Proxy, error) {
	if san == nil {
		return nil, errors.New("proxy: no sanitizer")
	}
	if err := o.fill(); err != nil {
		return nil, err
	}
	max, ms := o.Notifications.Limits()
	return &Proxy{o: o, san: san, notify: &bounds.Window{Max: max, Width: time.Duration(ms) * time.Millisecond}, now: time.Now}, nil
}

// Options returns the options with their defaults filled.
func (p *Proxy) Options() Options { return p.o }

// Session is the routing state of one conversation between a client and a
// server: the method of each client request in flight (the id → method
// map, bounded by MaxPending) and the inputSchema of each tool a tools/list
// result named (bounded by MaxTools). It is safe for concurrent use.
type Session struct {
	p       *Proxy
	mu      sync.Mutex
	pending map[string]pending
	// pendingSeq numbers the requests put in pending, in order.
	pendingSeq uint64
	tools      map[string][]byte
	// paramBytes counts the params kept in pending (guards.go).
	paramBytes int
	// gone holds the keys of requests the client cancelled or the proxy
	// evicted, goneOrder the same oldest first (pending.go).
	gone      map[string]struct{}
	goneOrder []string
	// tokens counts the progress tokens of the requests in flight
	// (progress.go).
	tokens map[string]int
	// postScoped: each request's answer comes in the response to the POST
	// that carried it (HTTP), so an evicted request needs no answer.
	postScoped bool
}

// pending is a client request in flight.
type pending struct {
	method string
	tool   string // the tool of a tools/call
	id     []byte // the request's id as the client wrote it
	params []byte // the params of a guarded request (guards.go)
	at     time.Time
	// seq orders requests put in the same clock tick (putPending), so
	// the oldest is well defined whatever the clock's resolution.
	seq   uint64
	token []byte // params._meta.progressToken, raw (progress.go)
}

// NewSession starts the state of one conversation.
func (p *Proxy) NewSession() *Session {
	return &Session{p: p, pending: map[string]pending{}, tools: map[string][]byte{}, gone: map[string]struct{}{}, tokens: map[string]int{}}
}

// Pending returns the number of client requests in flight.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Routed is where the messages that one message gives go: Client to the
// client, Server to the server; nil for none.
type Routed struct {
	Client []byte
	Server []byte
	// Expired, when not nil, goes first: a request evicted from a full
	// id → method map to make room for this one, answered to the client
	// with an error (Client) and cancelled to the server (Server).
	Expired *Routed
}

// FromClient routes one client-to-server message. Requests are remembered
// (id → method) so that their responses are sanitized by the method's
// kind; a tools/call whose tool's inputSchema is known goes through the
// argument gate and, when refused, is answered to the client with the
// seed's actionable tool error without reaching the server. Everything
// else passes unchanged.
func (s *Session) FromClient(msg []byte) Routed {
	e := peek(msg)
	switch e.typ {
	case msgRequest:
		key, ok := idKey(e.id)
		if !ok {
			return Routed{Server: msg} // an id the server will refuse
		}
		pr := pending{method: e.method, id: append([]byte(nil), e.id...), params: keepParams(e.method, e.params), at: s.p.now(), token: progressTokenOf(e.params)}
		if e.method == wire.MethodToolsCall {
			pr.tool = toolName(e.params)
			if r := s.gate(pr.tool, msg); r != nil {
				return Routed{Client: toolErrorResponse(e.id, r)}
			}
		}
		s.mu.Lock()
		_, dup := s.pending[key]
		full := !dup && len(s.pending) >= s.p.o.MaxPending
		var expired pending
		evicted := false
		if full {
			_, expired, evicted = s.evictExpired(pr.at)
			full = !evicted
		}
		if !full {
			s.putPending(key, pr)
			s.unmarkGone(key)
		}
		s.mu.Unlock()
		if full {
			s.refused(wire.KindForMethod(e.method), msg, wire.CodeBoundExceeded, wire.ReasonPendingFull)
			return Routed{Client: s.pendingFull(e.id)}
		}
		if evicted {
			return Routed{Server: msg, Expired: s.expiredRouted(expired)}
		}
		return Routed{Server: msg}
	case msgNotification:
		if e.method == wire.MethodNotifyCancelled {
			s.cancelled(e.params)
		}
	case msgInvalid:
		if isBatch(msg) {
			// MCP has had no batches since 2025-06-18; a batch would carry
			// tools/call requests past the gate and requests past the map.
			return Routed{Client: errorResponseCode(nil, -32600, "Invalid Request: JSON-RPC batches are not supported", wire.CodeInvalidContent, wire.ReasonNotJSONRPC)}
		}
	}
	return Routed{Server: msg}
}

// Request is a client request as FromClient read it, for a transport that
// knows which request a response answers (the POST that carried it).
type Request struct {
	key string
	p   pending
}

// RequestOf reads the client request msg, or returns nil for a message
// that is not a request.
func RequestOf(msg []byte) *Request {
	e := peek(msg)
	if e.typ != msgRequest {
		return nil
	}
	key, ok := idKey(e.id)
	if !ok {
		return nil
	}
	r := &Request{key: key, p: pending{method: e.method, id: append([]byte(nil), e.id...), params: keepParams(e.method, e.params)}}
	if e.method == wire.MethodToolsCall {
		r.p.tool = toolName(e.params)
	}
	return r
}

// Method is the request's method.
func (r *Request) Method() string { return r.p.method }

// FromServer routes one server-to-client message through a pass: a
// response by the method of the request it answers (KindForMethod of the
// remembered method, or of hint's when the response answers hint), a
// server request or a notification by its own
// method, anything else as generic. The id the client or server wrote is
// restored in what is delivered. A response that cannot be sanitized is
// delivered as a JSON-RPC error for its id; a server request that cannot
// be is answered to the server with an error; a notification that cannot
// be, and a message that is not one JSON-RPC message, are dropped with
// evidence.
func (s *Session) FromServer(ctx context.Context, msg []byte, hint *Request) Routed {
	e := peek(msg)
	s.markProgress(&e)
	return s.fromServer(ctx, e, msg, hint)
}

// fromServer is FromServer of a message whose envelope is read (and
// marked by markProgress).
func (s *Session) fromServer(ctx context.Context, e envelope, msg []byte, hint *Request) Routed {
	switch e.typ {
	case msgResponse:
		key, _ := idKey(e.id)
		var pr pending
		ok := false
		if hint != nil && (hint.key == key && key != "" || e.id == nil) {
			// The response answers the request the transport carried it
			// for; an error with a null id (a server that could not read
			// the request's id) answers it too.
			pr, ok = hint.p, true
			key = hint.key
		}
		s.mu.Lock()
		if p, found := s.pending[key]; found {
			s.deletePending(key)
			if !ok {
				pr, ok = p, true
			}
		}
		gone := !ok && key != "" && s.isGone(key)
		s.mu.Unlock()
		if gone {
			// Cancelled by the client or evicted by the proxy: no one
			// waits for it (pending.go).
			s.refused(wire.KindGeneric, msg, wire.CodeInvalidContent, wire.ReasonRequestGone)
			return Routed{}
		}
		if !ok {
			pr = pending{id: e.id}
		}
		kind := wire.KindForMethod(pr.method)
		res, err := s.sanitize(ctx, kind, msg, pr.tool, e.id, pr.params)
		if err != nil {
			code, reason := failure(err)
			return Routed{Client: errorResponse(pr.id, code, reason)}
		}
		body := res.Body
		if pr.id != nil && (res.Outcome != wire.OutcomeClean || e.id == nil) {
			body = replaceID(body, pr.id)
		}
		if pr.method == wire.MethodToolsList && res.Outcome != wire.OutcomeRejected {
			s.learnTools(body)
		}
		return Routed{Client: body}
	case msgRequest:
		kind := wire.KindForMethod(e.method)
		res, err := s.sanitize(ctx, kind, msg, "", e.id, nil)
		if err != nil {
			code, reason := failure(err)
			return Routed{Server: errorResponse(e.id, code, reason)}
		}
		if res.Outcome == wire.OutcomeRejected {
			return Routed{Server: errorResponse(e.id, res.Code, wire.Reason(reasonOf(res)))}
		}
		body := res.Body
		if res.Outcome != wire.OutcomeClean {
			body = replaceID(body, e.id)
		}
		return Routed{Client: body}
	case msgNotification:
		kind := wire.KindForMethod(e.method)
		if ok, first, _ := s.p.notify.Allow(s.p.o.Server, time.Now()); !ok {
			if first {
				s.refused(kind, msg, wire.CodeBoundExceeded, wire.ReasonNotificationRate)
			}
			return Routed{}
		}
		res, err := s.sanitize(ctx, kind, msg, "", nil, nil)
		if err != nil || res.Outcome == wire.OutcomeRejected {
			s.p.o.Log.Info("notification dropped", "kind", string(kind), "code", string(codeOf(res, err)))
			return Routed{}
		}
		if e.knownToken && res.Outcome != wire.OutcomeClean {
			return Routed{Client: restoreToken(notificationToken(e.params), res.Body)}
		}
		return Routed{Client: res.Body}
	}
	s.refused(wire.KindGeneric, msg, wire.CodeInvalidContent, wire.ReasonNotJSONRPC)
	return Routed{}
}

// TooLarge routes a message over MaxMessageBytes, of which head is the
// start and n the length (read and discarded). A server response whose id
// is in head gets an error for it; a client request is answered with an
// error. Anything else is dropped. Evidence records the refusal.
func (s *Session) TooLarge(fromServer bool, head []byte, n int64) Routed {
	id, method := headID(head)
	kind := wire.KindGeneric
	if !fromServer {
		kind = wire.KindForMethod(method)
	}
	s.refusedN(kind, head, n, wire.CodeBoundExceeded, wire.ReasonMessageBytes)
	if id == nil {
		return Routed{}
	}
	if !fromServer {
		return Routed{Client: errorResponse(id, wire.CodeBoundExceeded, wire.ReasonMessageBytes)}
	}
	if method != "" {
		// A server request: answered to the server.
		return Routed{Server: errorResponse(id, wire.CodeBoundExceeded, wire.ReasonMessageBytes)}
	}
	key, _ := idKey(id)
	s.mu.Lock()
	pr, ok := s.pending[key]
	s.deletePending(key)
	s.mu.Unlock()
	if !ok {
		return Routed{}
	}
	return Routed{Client: errorResponse(pr.id, wire.CodeBoundExceeded, wire.ReasonMessageBytes)}
}

// sanitize runs one pass with the proxy's deadline and reports its
// evidence.
// params are those of the request a response answers (guards.go).
func (s *Session) sanitize(ctx context.Context, kind wire.Kind, msg []byte, tool string, id []byte, params []byte) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.p.o.Timeout)
	defer cancel()
	md := Meta{Tool: tool, Server: s.p.o.Server, Tenant: s.p.o.Tenant, Request: params}
	if k, ok := idKey(id); ok && len(k) <= 129 && visibleASCII(k) {
		md.RequestID = k[1:]
	}
	res, err := s.p.san.Sanitize(ctx, kind, msg, md)
	if err != nil {
		code, reason := failure(err)
		s.refused(kind, msg, code, reason)
		return nil, err
	}
	if res.Evidence != nil && s.p.o.Evidence != nil {
		s.p.o.Evidence(res.Evidence)
	}
	if res.Outcome == wire.OutcomeRejected {
		s.p.o.Log.Info("message rejected", "kind", string(kind), "code", string(res.Code), "reason", reasonOf(res))
	}
	return res, nil
}

// refused records the evidence of a message the proxy refused itself.
func (s *Session) refused(kind wire.Kind, msg []byte, code wire.Code, reason wire.Reason) {
	s.refusedN(kind, msg, int64(len(msg)), code, reason)
}

func (s *Session) refusedN(kind wire.Kind, head []byte, n int64, code wire.Code, reason wire.Reason) {
	s.p.o.Log.Info("message refused", "kind", string(kind), "code", string(code), "reason", string(reason), "bytes", n)
	if s.p.o.Evidence == nil {
		return
	}
	sum := sha256.Sum256(head)
	s.p.o.Evidence(&pipeline.Evidence{
		Version:      pipeline.EvidenceVersion,
		Kind:         string(kind),
		Server:       s.p.o.Server,
		Tenant:       s.p.o.Tenant,
		GuardVersion: pipeline.GuardVersion,
		Outcome:      wire.OutcomeRejected,
		Code:         code,
		Reason:       string(reason),
		// The digest covers the bytes the proxy held (all of a message
		// within the bound, the head of one over it).
		Input: pipeline.Digest{Bytes: n, Digest: "sha256:" + hex.EncodeToString(sum[:])},
	})
}

// gate checks a tools/call against the tool's known inputSchema; nil means
// the call goes on (valid, or no schema is known for the tool).
func (s *Session) gate(tool string, msg []byte) *argsgate.Result {
	g := s.p.o.Gate
	if g == nil || tool == "" {
		return nil
	}
	s.mu.Lock()
	raw, ok := s.tools[tool]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	r, _ := g.CheckCallSchema(tool, msg, func(string) (*argsgate.Schema, error) {
		return &argsgate.Schema{Raw: raw}, nil
	})
	if r.Valid {
		return nil
	}
	s.p.o.Log.Info("tools/call refused by the argument gate", "code", string(r.Code))
	return r
}

// learnTools keeps the inputSchema of each tool of a sanitized tools/list
// response: what the client was shown is what its calls are checked
// against.
func (s *Session) learnTools(body []byte) {
	var m struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &m) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range m.Result.Tools {
		if t.Name == "" || len(t.InputSchema) == 0 {
			continue
		}
		if _, ok := s.tools[t.Name]; !ok && len(s.tools) >= s.p.o.MaxTools {
			continue
		}
		s.tools[t.Name] = t.InputSchema
	}
}

// toolName is params.name of a tools/call, or "".
func toolName(params []byte) string {
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Name
}

// headID finds the id and method of a message from its head (the start
// of a message over the bound): members up to the first one that does not
// end within the head are read.
func headID(head []byte) (id []byte, method string) {
	i := skipWS(head, 0)
	if i >= len(head) || head[i] != '{' {
		return nil, ""
	}
	i = skipWS(head, i+1)
	for i < len(head) && head[i] == '"' {
		end, ok := skipString(head, i)
		if !ok {
			break
		}
		key := string(head[i+1 : end-1])
		i = skipWS(head, end)
		if i >= len(head) || head[i] != ':' {
			break
		}
		i = skipWS(head, i+1)
		vend, ok := skipValue(head, i)
		if !ok || vend >= len(head) {
			break // the value may go on past the head
		}
		val := head[i:vend]
		switch key {
		case "id":
			if _, ok := idKey(val); ok {
				id = append([]byte(nil), val...)
			}
		case "method":
			var s string
			if len(val) <= maxMethodLen+2 && json.Unmarshal(val, &s) == nil {
				method = s
			}
		}
		i = skipWS(head, vend)
		if i >= len(head) || head[i] != ',' {
			break
		}
		i = skipWS(head, i+1)
	}
	return id, method
}

// isBatch reports whether msg is a JSON array.
func isBatch(msg []byte) bool {
	i := skipWS(msg, 0)
	return i < len(msg) && msg[i] == '['
}

// failure gives the code and reason of a Sanitizer error.
func failure(err error) (wire.Code, wire.Reason) {
	var fe *FleetError
	switch {
	case errors.As(err, &fe):
		return fe.Code, fe.Reason
	case errors.Is(err, context.DeadlineExceeded):
		return wire.CodeTimeout, wire.ReasonDeadline
	}
	return wire.CodeInternal, wire.ReasonInternalFault
}

// FleetError is a Sanitizer's failure with a stable code and reason.
type FleetError struct {
	Code   wire.Code
	Reason wire.Reason
}

func (e *FleetError) Error() string {
	return "proxy: no pass: " + string(e.Code) + " " + string(e.Reason)
}

func codeOf(res *Result, err error) wire.Code {
	if err != nil {
		c, _ := failure(err)
		return c
	}
	return res.Code
}

func reasonOf(res *Result) string {
	if res.Evidence != nil {
		return res.Evidence.Reason
	}
	return ""
}

// errorResponse is the JSON-RPC error the proxy answers with when it fails
// a message closed: code -32603, the code's public message, and the stable
// code and reason in data. Nothing of the message is in it but id.
func errorResponse(id []byte, code wire.Code, reason wire.Reason) []byte {
	return errorResponseCode(id, -32603, wire.ReasonPublicMessage(code, reason), code, reason)
}

func errorResponseCode(id []byte, rpcCode int, message string, code wire.Code, reason wire.Reason) []byte {
	b := make([]byte, 0, 256+len(id))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(rpcCode), 10)
	b = append(b, `,"message":`...)
	b = pipeline.AppendJSONString(b, message)
	b = append(b, `,"data":{"`+wire.MetaPrefix+wire.MetaCode+`":`...)
	b = pipeline.AppendJSONString(b, string(code))
	if reason != "" {
		b = append(b, `,"`+wire.MetaPrefix+wire.MetaReason+`":`...)
		b = pipeline.AppendJSONString(b, string(reason))
	}
	return append(b, "}}}"...)
}

// toolErrorResponse is the response to a tools/call refused by the
// argument gate: the seed's actionable tool error as the call's result.
func toolErrorResponse(id []byte, r *argsgate.Result) []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, r.ToolResult()...)
	return append(b, '}')
}
