package worker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// ErrResolverUnavailable is what a Resolver's error wraps when its backend
// is unavailable for a cause that passes within seconds (a JetStream
// bucket during a leader election): the durable path then runs the pass
// again within the attempt, for up to the publish timeout, before it
// hands the input back for a back-off step. CatalogResolver's errors for
// an unreadable catalog wrap it.
var ErrResolverUnavailable = errors.New("worker: resolver backend unavailable")

// What both paths do to one message: read its context from the subject
// and headers, open its body, run the pass, and build the headers of what
// is published (reply, clean output, DLQ entry, evidence).

// msgContext is the context of one message. Every value from a producer is
// untrusted: identifiers are restricted to a safe charset before they reach
// a header, a subject or a log.
type msgContext struct {
	path   string
	kind   pipeline.Kind
	kindOK bool
	info   pipeline.MessageInfo
	// tenantTok is the subject token of the tenant (wire.InvalidToken when
	// missing or not a token); serverTok likewise.
	tenantTok, serverTok string
	policy               string
	traceparent          string
	tracestate           string
	// Durable only: sequence in MCP_RAW and delivery count.
	rawSeq     uint64
	deliveries uint64
	msgID      string
	// chainSeq is the sequence of the message's last sealed evidence
	// record (evidence_chain.go; 0: none).
	chainSeq uint64
	// notifyCounted: the notification limit counted this delivery
	// (notify_rate.go).
	notifyCounted bool
}

// newContext reads the context of a message. For the durable path tenant
// and server come from the subject (account permissions on subjects are
// what a NATS operator can enforce per tenant); inline they come from the
// headers.
func newContext(path, kind, tenant, server string, hdr nats.Header) *msgContext {
	k, ok := pipeline.ParseKind(kind)
	if !ok {
		k = pipeline.Kind(KindUnknown)
	}
	mc := &msgContext{
		path:      path,
		kind:      k,
		kindOK:    ok,
		tenantTok: wire.TokenOr(tenant),
		serverTok: wire.TokenOr(server),
		policy:    hdr.Get(wire.HeaderPolicy),
		info: pipeline.MessageInfo{
			Kind: k,
			// An absent header is auto; a value that is not a framing
			// is passed on as it is and rejected by the pass
			// (unknown-framing).
			Framing:   pipeline.Framing(hdr.Get(wire.HeaderFraming)),
			Tool:      hdr.Get(wire.HeaderTool),
			Server:    server,
			Tenant:    tenant,
			RequestID: hdr.Get(wire.HeaderRequestID),
		},
	}
	if tp := hdr.Get(wire.HeaderTraceparent); validTraceparent(tp) {
		mc.traceparent = tp
		if ts := hdr.Get(wire.HeaderTracestate); validTracestate(ts) {
			mc.tracestate = ts
		}
	}
	return mc
}

// result is what one pass produced.
type result struct {
	ev *pipeline.Evidence
	// data is the body to publish and hdr its body headers
	// (Content-Encoding, or Mcp-Claim and Mcp-Claim-Bucket when the output
	// went to the Object Store); both are valid until release.
	data []byte
	hdr  nats.Header
	done func()
	// retry marks a transient failure (TIMEOUT, INTERNAL): the durable
	// path hands the input back for redelivery; inline the error result
	// is the reply.
	retry bool
	// passing marks a failure whose cause passes within seconds (a
	// resolver's ErrResolverUnavailable): the durable path tries the pass
	// again within the attempt before it hands the input back.
	passing bool
	// rated marks a notification over the rate limit (notify_rate.go):
	// not delivered; quiet ones get no evidence record.
	rated, quiet bool
}

// release frees what the result holds (the sink's memory and spool file).
func (r result) release() {
	if r.done != nil {
		r.done()
	}
}

// detached returns r with its body copied out of the sink's memory and
// the sink released, so the body stays valid after release: for a
// publisher that may keep and resend it (JetStream asynchronous
// publishes). The sink's buffer (the emitter asks it for appendRoom,
// 128 KiB, whatever the output's size) then goes back to the pool instead
// of being allocated and zeroed again for every message; the copy is the
// output's size.
func (r result) detached() result {
	if r.done == nil {
		return r
	}
	r.data = bytes.Clone(r.data)
	r.release()
	r.done = nil
	return r
}

// process runs the pass of one message under the message deadline. It
// always returns an evidence record and a body to publish (the sanitized
// message or an error result); nothing of the input is passed on when the
// pass fails. objectName names the Object Store object of an output too
// large for one message ("" for a random name).
//
// The body of the result is valid until release. reuse says the caller
// publishes it with a copying publish (see payload.SinkOptions.Reuse).
func (s *Service) process(ctx context.Context, mc *msgContext, hdr nats.Header, data []byte, objectName string, reuse bool) result {
	mc.info.Framing = s.cfg.framingFor(string(mc.info.Framing))
	if !mc.kindOK {
		return s.reject(s.def, mc, data, pipeline.CodeInvalidContent, string(wire.ReasonUnknownKind), false)
	}
	eng := s.engineForMsg(mc)
	if eng == nil {
		// A fleet in a rolling update may not have the policy yet: retry.
		return s.reject(s.def, mc, data, pipeline.CodeInternal, string(wire.ReasonUnknownPolicy), true)
	}
	if r := s.rateNotification(eng, mc); r != nil {
		return *r
	}
	pctx := startMsgDeadline(ctx, s.cfg.timeout)
	defer pctx.release()
	info := mc.info
	info.Guard = s.guardInput(mc, hdr)
	if s.cfg.resolver != nil {
		if err := s.cfg.resolver.Resolve(pctx, &info, hdr); err != nil {
			var pe *pipeline.Error
			if errors.As(err, &pe) {
				return s.reject(eng, mc, data, pe.Code, pe.Reason, false)
			}
			res := s.reject(eng, mc, data, pipeline.CodeInternal, string(wire.ReasonResolverUnavailable), true)
			res.passing = errors.Is(err, ErrResolverUnavailable)
			return res
		}
	}
	body, err := payload.Open(pctx, hdr, data, s.storeOrNil(), s.cfg.payloadLimits)
	if err != nil {
		return s.rejectPayload(eng, mc, err)
	}
	defer body.Close()
	so := s.cfg.sink
	so.Store = s.storeOrNil()
	so.ObjectName = objectName
	so.Reuse = reuse
	if so.MaxPayload == 0 {
		so.MaxPayload = int(s.connMaxPayload())
	}
	sink := payload.NewSink(so)
	ev, perr := eng.Sanitize(pctx, body, sink, info)
	if perr != nil {
		sink.Close()
		return s.reject(eng, mc, nil, pipeline.CodeInternal, string(wire.ReasonOutputError), true)
	}
	if f := payload.Failure(body); f != nil && ev.Outcome == wire.OutcomeRejected {
		// The pass saw a read error; the body's own failure says why.
		sink.Close()
		return s.rejectPayload(eng, mc, f)
	}
	// TIMEOUT and INTERNAL are transient: the durable path retries;
	// inline the error result is the reply.
	retry := ev.Outcome == wire.OutcomeRejected && (ev.Code == pipeline.CodeTimeout || ev.Code == pipeline.CodeInternal)
	ohdr, odata, ferr := sink.Finish(pctx)
	if ferr != nil {
		sink.Close()
		if pe, ok := payload.AsError(ferr); ok && !pe.Temporary() {
			// Too large for a message and no Object Store: an error result.
			return s.reject(eng, mc, nil, pe.Code, string(pe.Reason), false)
		}
		return s.reject(eng, mc, nil, pipeline.CodeInternal, string(wire.ReasonOutputStore), true)
	}
	return result{ev: ev, data: odata, hdr: ohdr, done: func() { sink.Close() }, retry: retry}
}

// rejectPayload rejects a message whose body could not be read: a bad
// encoding or a crossed bound is the producer's (an error result), an
// Object Store failure or a deadline is transient (retry).
func (s *Service) rejectPayload(eng *pipeline.Engine, mc *msgContext, err error) result {
	pe, ok := payload.AsError(err)
	if !ok {
		return s.reject(eng, mc, nil, pipeline.CodeInternal, string(wire.ReasonPayload), true)
	}
	return s.reject(eng, mc, nil, pe.Code, string(pe.Reason), pe.Temporary())
}

// storeOrNil returns the claim store as an interface that is nil when no
// store is configured (never a typed nil).
func (s *Service) storeOrNil() jetstream.ObjectStore {
	if s.store == nil {
		return nil
	}
	return s.store
}

// reject writes the error result of code in place of the message. data,
// when not nil, is the body as received and is digested for the evidence.
func (s *Service) reject(eng *pipeline.Engine, mc *msgContext, data []byte, code pipeline.Code, reason string, retry bool) result {
	out := &pipeline.Buffer{}
	var in io.Reader
	if data != nil {
		in = bytes.NewReader(data)
	}
	mc.info.Framing = s.cfg.framingFor(string(mc.info.Framing))
	ev, err := eng.Reject(in, out, mc.info, code, reason)
	if err != nil || ev == nil {
		// A Buffer does not fail; keep the fail-closed shape anyway.
		ev = &pipeline.Evidence{Version: wire.EvidenceVersion, Kind: string(mc.kind), Outcome: wire.OutcomeRejected, Code: code, Reason: reason, GuardVersion: wire.GuardVersion}
	}
	return result{ev: ev, data: out.Bytes(), retry: retry}
}

// outputHeader returns the headers of a reply, clean output or DLQ entry.
// The map is sized for its entries plus one (the DLQ adds Mcp-Raw-Subject)
// and every value comes from one backing array (headerSet).
func outputHeader(mc *msgContext, res result) nats.Header {
	ev := res.ev
	n := 4 // outcome, guard, kind, one spare
	for _, k := range outputBodyHeaders {
		if res.hdr.Get(k) != "" {
			n++
		}
	}
	for _, v := range [...]string{string(ev.Code), ev.Input.Digest, mc.info.Tool, mc.info.Server, mc.info.Tenant, mc.info.RequestID, mc.policy, mc.traceparent, mc.tracestate} {
		if v != "" {
			n++
		}
	}
	h := newHeaderSet(n)
	h.output(mc, res)
	return h.h
}

// output sets the headers of a reply, clean output or DLQ entry for res
// (outputHeader; the inline reply reuses its set, replyMsg).
func (h *headerSet) output(mc *msgContext, res result) {
	ev := res.ev
	for _, k := range outputBodyHeaders {
		if v := res.hdr.Get(k); v != "" {
			h.set(k, v)
		}
	}
	h.set(wire.HeaderOutcome, string(ev.Outcome))
	if ev.Outcome == wire.OutcomeRejected {
		h.set(wire.HeaderCode, headerToken(string(ev.Code)))
	}
	h.set(wire.HeaderGuard, wire.GuardVersion)
	h.set(wire.HeaderKind, string(mc.kind))
	if ev.Input.Digest != "" {
		h.set(wire.HeaderInputDigest, ev.Input.Digest)
	}
	tool, server, tenant, reqID := mc.info.Tool, mc.info.Server, mc.info.Tenant, mc.info.RequestID
	if ev.IdentifierSecrets > 0 {
		// An identifier held a secret: echo the pipeline's scrubbed
		// identifiers, not the input's.
		tool, server, tenant, reqID = ev.Tool, ev.Server, ev.Tenant, ev.RequestID
	}
	h.token(wire.HeaderTool, tool)
	h.token(wire.HeaderServer, server)
	h.token(wire.HeaderTenant, tenant)
	h.token(wire.HeaderRequestID, reqID)
	h.token(wire.HeaderPolicy, mc.policy)
	if mc.traceparent != "" {
		h.set(wire.HeaderTraceparent, mc.traceparent)
		if mc.tracestate != "" {
			h.set(wire.HeaderTracestate, mc.tracestate)
		}
	}
}

// outputBodyHeaders are the sink's body headers a published output carries.
var outputBodyHeaders = [...]string{wire.HeaderContentEncoding, wire.HeaderClaim, wire.HeaderClaimBucket}

// evidenceRecord is the evidence message body: the pass's record and where
// it happened. It holds no payload text (see pipeline.Evidence).
// appendEvidenceRecord writes the bytes encoding/json gives for it, without
// reflection (TestEvidenceRecordJSON compares the two).
type evidenceRecord struct {
	*pipeline.Evidence
	Path        string `json:"path"`
	Traceparent string `json:"traceparent,omitempty"`
	RawSequence uint64 `json:"rawSequence,omitempty"`
	Deliveries  uint64 `json:"deliveries,omitempty"`
	DLQ         bool   `json:"dlq,omitempty"`
}

// evidenceMsg builds the evidence message of a pass for mcp.evidence.<tenant>.
func evidenceMsg(mc *msgContext, ev *pipeline.Evidence, dlq bool) *nats.Msg {
	b := appendEvidenceRecord(make([]byte, 0, 1024), &evidenceRecord{Evidence: ev, Path: mc.path, Traceparent: mc.traceparent, RawSequence: mc.rawSeq, Deliveries: mc.deliveries, DLQ: dlq})
	h := newHeaderSet(5)
	h.set(wire.HeaderKind, string(mc.kind))
	h.set(wire.HeaderOutcome, string(ev.Outcome))
	if ev.Outcome == wire.OutcomeRejected {
		h.set(wire.HeaderCode, headerToken(string(ev.Code)))
	}
	h.token(wire.HeaderRequestID, mc.info.RequestID)
	if mc.traceparent != "" {
		h.set(wire.HeaderTraceparent, mc.traceparent)
	}
	return &nats.Msg{Subject: wire.Subject(wire.EvidencePrefix, mc.tenantTok), Header: h.h, Data: b}
}

// appendEvidenceRecord appends the JSON of r: the evidence's members, then
// the record's own, as encoding/json orders an embedded struct's.
func appendEvidenceRecord(b []byte, r *evidenceRecord) []byte {
	if r.Evidence != nil {
		b = r.Evidence.AppendOpen(b)
		b = append(b, ',')
	} else {
		b = append(b, '{')
	}
	b = pipeline.AppendJSONString(append(b, `"path":`...), r.Path)
	if r.Traceparent != "" {
		b = pipeline.AppendJSONString(append(b, `,"traceparent":`...), r.Traceparent)
	}
	if r.RawSequence != 0 {
		b = strconv.AppendUint(append(b, `,"rawSequence":`...), r.RawSequence, 10)
	}
	if r.Deliveries != 0 {
		b = strconv.AppendUint(append(b, `,"deliveries":`...), r.Deliveries, 10)
	}
	if r.DLQ {
		b = append(b, `,"dlq":true`...)
	}
	return append(b, '}')
}

// headerToken restricts an untrusted identifier to [A-Za-z0-9_.:/-] and 128
// bytes (other bytes become '_'), so it cannot break a header line or carry
// text. An identifier that is already a token is returned as it is.
func headerToken(s string) string {
	if len(s) > 128 {
		s = s[:128]
	}
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if !tokenByte(b[j]) {
					b[j] = '_'
				}
			}
			return string(b)
		}
	}
	return s
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/' || c == ':'
}

// validTraceparent checks the W3C trace-context version-00 form
// 00-<32 hex>-<16 hex>-<2 hex> (lower-case, ids not all zero); versions
// above 00 may append fields, which are kept as long as the prefix is valid.
func validTraceparent(s string) bool {
	if len(s) < 55 || len(s) > 256 {
		return false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' || (len(s) > 55 && (s[:2] == "00" || s[55] != '-')) {
		return false
	}
	if s[:2] == "ff" {
		return false
	}
	hex := func(t string) (allZero, ok bool) {
		allZero = true
		for i := 0; i < len(t); i++ {
			c := t[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false, false
			}
			if c != '0' {
				allZero = false
			}
		}
		return allZero, true
	}
	if _, ok := hex(s[:2]); !ok {
		return false
	}
	if z, ok := hex(s[3:35]); !ok || z {
		return false
	}
	if z, ok := hex(s[36:52]); !ok || z {
		return false
	}
	_, ok := hex(s[53:55])
	if ok && len(s) > 55 {
		for i := 55; i < len(s); i++ {
			if s[i] < 0x21 || s[i] > 0x7e {
				return false
			}
		}
	}
	return ok
}

// validTracestate accepts up to 512 bytes of printable ASCII (the W3C
// list-member charset) so that it can be propagated unchanged.
func validTracestate(s string) bool {
	if s == "" || len(s) > 512 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
