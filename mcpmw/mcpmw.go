package mcpmw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// DefaultTimeout bounds the pass of one message.
const DefaultTimeout = 30 * time.Second

// Options configure the middleware. The zero value means the defaults.
type Options struct {
	// Server and Tenant label evidence (and the fleet's metadata).
	Server, Tenant string
	// Timeout bounds one pass (default DefaultTimeout); on expiry the
	// message fails closed (code TIMEOUT).
	Timeout time.Duration
	// Evidence receives the evidence of each pass run in this process
	// (proxy.Engine); the fleet publishes its own. nil discards. It must
	// not keep the pointer past the call.
	Evidence func(*pipeline.Evidence)
	// Log receives diagnostics: methods, codes and reasons, never content.
	// nil discards.
	Log *slog.Logger
}

// Install adds the sanitization to s: its results (Server.AddReceivingMiddleware)
// and its own requests and notifications to the client
// (Server.AddSendingMiddleware). Call it before the server serves a
// session; middleware added later runs before it.
func Install(s *mcp.Server, san proxy.Sanitizer, o Options) error {
	recv, send, err := Middleware(san, o)
	if err != nil {
		return err
	}
	s.AddReceivingMiddleware(recv)
	s.AddSendingMiddleware(send)
	return nil
}

// Middleware returns the two middlewares Install adds, for a server that
// orders its middleware itself: receiving sanitizes what the server's
// handlers return (results and JSON-RPC errors), sending what the server
// sends on its own (sampling, elicitation and roots requests,
// notifications).
func Middleware(san proxy.Sanitizer, o Options) (receiving, sending mcp.Middleware, err error) {
	if san == nil {
		return nil, nil, errors.New("mcpmw: no sanitizer")
	}
	if o.Timeout < 0 {
		return nil, nil, fmt.Errorf("mcpmw: invalid Timeout %s", o.Timeout)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	m := &mw{san: san, o: o, tokens: map[string]int{}}
	return m.receiving, m.sending, nil
}

type mw struct {
	san proxy.Sanitizer
	o   Options

	// tokens counts the progress tokens of the client requests being
	// handled: a progress notification that names one carries it as the
	// client sent it (a pass may rewrite a string token that reads like a
	// credential assignment), as the proxy does (proxy/progress.go).
	mu     sync.Mutex
	tokens map[string]int
}

// tokenKey is the key of a progress token, or "" for none.
func tokenKey(tok any) string {
	if tok == nil {
		return ""
	}
	b, err := json.Marshal(tok)
	if err != nil || len(b) > 256 {
		return ""
	}
	return string(b)
}

// track counts the progress token of a request while it is handled; the
// returned func ends it.
func (m *mw) track(req mcp.Request) func() {
	p, ok := req.GetParams().(interface{ GetProgressToken() any })
	if !ok || isNil(p) {
		return func() {}
	}
	k := tokenKey(p.GetProgressToken())
	if k == "" {
		return func() {}
	}
	m.mu.Lock()
	m.tokens[k]++
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		if m.tokens[k]--; m.tokens[k] <= 0 {
			delete(m.tokens, k)
		}
		m.mu.Unlock()
	}
}

func (m *mw) knownToken(tok any) bool {
	k := tokenKey(tok)
	if k == "" {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens[k] > 0
}

// receiving sanitizes the result or error of a client request.
func (m *mw) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		done := m.track(req)
		res, err := next(ctx, method, req)
		done()
		if strings.HasPrefix(method, "notifications/") {
			return res, err // a client notification has no answer
		}
		kind := wire.KindForMethod(method)
		tool := ""
		if method == wire.MethodToolsCall {
			tool = toolName(req)
		}
		if err != nil {
			return nil, m.sanitizeError(ctx, kind, tool, err)
		}
		if res == nil || isNil(res) {
			return res, nil
		}
		b, merr := json.Marshal(res)
		if merr != nil {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		out, ferr := m.pass(ctx, kind, tool, envelope(`"result":`, b))
		if ferr != nil {
			return nil, ferr
		}
		var env struct {
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		if json.Unmarshal(out, &env) != nil {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		if env.Error != nil {
			return nil, env.Error
		}
		clean := reflect.New(reflect.TypeOf(res).Elem())
		if json.Unmarshal(env.Result, clean.Interface()) != nil {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		return clean.Interface().(mcp.Result), nil
	}
}

// sending sanitizes the params of the server's own requests and
// notifications; one that fails is not sent (a request returns an error to
// the server's code, a notification is dropped).
func (m *mw) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		params := req.GetParams()
		if params == nil || isNil(params) {
			return next(ctx, method, req)
		}
		b, err := json.Marshal(params)
		if err != nil {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		notify := strings.HasPrefix(method, "notifications/")
		head := `"id":1,"method":`
		if notify {
			head = `"method":`
		}
		mb, _ := json.Marshal(method)
		msg := envelope(head+string(mb)+`,"params":`, b)
		out, ferr := m.pass(ctx, wire.KindForMethod(method), "", msg)
		var env struct {
			Params json.RawMessage `json:"params"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		if ferr == nil && (json.Unmarshal(out, &env) != nil || env.Params == nil) {
			ferr = failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		if ferr == nil && env.Error != nil {
			ferr = env.Error
		}
		if ferr != nil {
			if notify {
				m.o.Log.Info("notification dropped", "method", safeMethod(method))
				return nil, nil
			}
			return nil, ferr
		}
		clean := reflect.New(reflect.TypeOf(params).Elem())
		if json.Unmarshal(env.Params, clean.Interface()) != nil {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		if pp, ok := params.(*mcp.ProgressNotificationParams); ok && m.knownToken(pp.ProgressToken) {
			clean.Interface().(*mcp.ProgressNotificationParams).ProgressToken = pp.ProgressToken
		}
		nreq, ok := withParams(req, clean)
		if !ok {
			return nil, failed(wire.CodeInternal, wire.ReasonInternalFault)
		}
		return next(ctx, method, nreq)
	}
}

// pass runs one message; a pass that rejects it returns its error result
// as the output (a tool error for tools/call, a JSON-RPC error otherwise),
// a pass that cannot run a *jsonrpc.Error.
func (m *mw) pass(ctx context.Context, kind wire.Kind, tool string, msg []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, m.o.Timeout)
	defer cancel()
	res, err := m.san.Sanitize(ctx, kind, msg, proxy.Meta{Tool: tool, Server: m.o.Server, Tenant: m.o.Tenant})
	if err != nil {
		code, reason := wire.CodeInternal, wire.ReasonInternalFault
		var fe *proxy.FleetError
		switch {
		case errors.As(err, &fe):
			code, reason = fe.Code, fe.Reason
		case errors.Is(err, context.DeadlineExceeded):
			code, reason = wire.CodeTimeout, wire.ReasonDeadline
		}
		m.o.Log.Info("no pass", "kind", string(kind), "code", string(code), "reason", string(reason))
		return nil, failed(code, reason)
	}
	if res.Evidence != nil && m.o.Evidence != nil {
		m.o.Evidence(res.Evidence)
	}
	if res.Outcome == wire.OutcomeRejected {
		m.o.Log.Info("message rejected", "kind", string(kind), "code", string(res.Code))
	}
	return res.Body, nil
}

// sanitizeError runs a handler's error through the pass as a JSON-RPC
// error object: a *jsonrpc.Error keeps its code; any other error is
// internal (-32603) with its text as the message, which the pass's error
// policy then sanitizes (paths, stack frames, secrets).
func (m *mw) sanitizeError(ctx context.Context, kind wire.Kind, tool string, err error) error {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	b, merr := json.Marshal(we)
	if merr != nil {
		return failed(wire.CodeInternal, wire.ReasonInternalFault)
	}
	out, ferr := m.pass(ctx, kind, tool, envelope(`"error":`, b))
	if ferr != nil {
		return ferr
	}
	var env struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(out, &env) != nil || env.Error == nil {
		return failed(wire.CodeInternal, wire.ReasonInternalFault)
	}
	return env.Error
}

// envelope is a JSON-RPC message with id 1 (a response) or the members of
// head (a request or notification) and the value b.
func envelope(head string, b []byte) []byte {
	out := make([]byte, 0, len(b)+64)
	out = append(out, `{"jsonrpc":"2.0",`...)
	if strings.HasPrefix(head, `"result"`) || strings.HasPrefix(head, `"error"`) {
		out = append(out, `"id":1,`...)
	}
	out = append(out, head...)
	out = append(out, b...)
	return append(out, '}')
}

// failed is the error a message that cannot be sanitized becomes: -32603,
// the code's public message, the stable code and reason in data.
func failed(code wire.Code, reason wire.Reason) error {
	data, _ := json.Marshal(map[string]string{wire.MetaPrefix + wire.MetaCode: string(code), wire.MetaPrefix + wire.MetaReason: string(reason)})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: wire.ReasonPublicMessage(code, reason), Data: data}
}

// withParams returns a copy of req with its Params field set to p.
func withParams(req mcp.Request, p reflect.Value) (mcp.Request, bool) {
	v := reflect.ValueOf(req)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	f := cp.Elem().FieldByName("Params")
	if !f.IsValid() || !f.CanSet() || !p.Type().AssignableTo(f.Type()) {
		return nil, false
	}
	f.Set(p)
	r, ok := cp.Interface().(mcp.Request)
	return r, ok
}

// toolName is the tool a tools/call names.
func toolName(req mcp.Request) string {
	b, err := json.Marshal(req.GetParams())
	if err != nil {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(b, &p)
	return p.Name
}

func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// safeMethod is a method name fit for a log line.
func safeMethod(m string) string {
	if len(m) > 64 {
		m = m[:64]
	}
	for i := 0; i < len(m); i++ {
		if m[i] < 0x21 || m[i] > 0x7e {
			return "unprintable"
		}
	}
	return m
}
