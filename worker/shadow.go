package worker

import (
	"encoding/json"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Shadow policies (docs/policy.md, "Shadow policies"): when the policy
// source has a shadow policy, every message that ran under another policy
// runs once more under the shadow after its result was delivered (the
// reply sent, or the durable input acknowledged). That pass writes
// nothing anyone receives: its output is discarded and only a shadow
// record is published, holding the evidence of both passes, on
// mcp.evidence.shadow.<tenant> (stored in MCP_EVIDENCE; `policy
// shadow-report` reads them).

// ShadowEvidencePrefix is the prefix of the shadow records' subjects,
// mcp.evidence.shadow.<tenant>: two tokens after the evidence prefix, so
// no tenant's evidence subject is the same.
const ShadowEvidencePrefix = wire.EvidencePrefix + ".shadow"

// ShadowSource is a PolicySource with a shadow policy (PolicyWatcher).
type ShadowSource interface {
	// Shadow returns the shadow policy, nil when there is none.
	Shadow() *PolicyEngine
}

// discardOutput is the output of a shadow pass.
type discardOutput struct{}

func (discardOutput) Write(p []byte) (int, error) { return len(p), nil }
func (discardOutput) Discard() error              { return nil }

// runShadow runs the shadow pass of a message whose result (with evidence
// active) was delivered, and publishes the shadow record without waiting
// for its acknowledgement. data is the body as received.
func (s *Service) runShadow(mc *msgContext, hdr nats.Header, data []byte, active *pipeline.Evidence) {
	src, ok := s.cfg.policySrc.(ShadowSource)
	if !ok || active == nil || !mc.kindOK {
		return
	}
	sh := src.Shadow()
	if sh == nil || sh.Version == active.PolicyVersion {
		return
	}
	ctx, cancel := newMsgDeadline(s.hardCtx, s.cfg.timeout)
	defer cancel()
	info := mc.info
	if s.cfg.resolver != nil {
		if err := s.cfg.resolver.Resolve(ctx, &info, hdr); err != nil {
			return // the active pass saw the same; nothing to compare
		}
	}
	body, err := payload.Open(ctx, hdr, data, s.storeOrNil(), s.cfg.payloadLimits)
	if err != nil {
		return
	}
	defer body.Close()
	ev, err := sh.Engine.Sanitize(ctx, body, discardOutput{}, info)
	if err != nil || ev == nil {
		return
	}
	b := make([]byte, 0, 2048)
	b = append(b, `{"shadowOf":`...)
	b = pipeline.AppendJSONString(b, active.PolicyVersion)
	b = pipeline.AppendJSONString(append(b, `,"path":`...), mc.path)
	b = pipeline.AppendJSONString(append(b, `,"tenant":`...), mc.tenantTok)
	if mc.rawSeq != 0 {
		b = strconv.AppendUint(append(b, `,"rawSequence":`...), mc.rawSeq, 10)
	}
	b = ev.AppendJSON(append(b, `,"shadow":`...))
	b = active.AppendJSON(append(b, `,"active":`...))
	b = append(b, '}')
	m := &nats.Msg{Subject: wire.Subject(ShadowEvidencePrefix, mc.tenantTok), Header: nats.Header{}, Data: b}
	m.Header.Set(wire.HeaderKind, string(mc.kind))
	m.Header.Set(wire.HeaderPolicy, sh.Version)
	// The shadow record is a link of the worker's evidence chain
	// (docs/evidence-chain.md), so a removed or altered one is found.
	seq := s.sealShadow(m)
	f, err := s.js.PublishMsgAsync(m, expectEvidence)
	if err != nil {
		if seq != 0 {
			s.cfg.chain.Void(seq)
		}
		s.log.Warn("shadow record not published", "error", publishErrorClass(err))
		return
	}
	if seq != 0 {
		s.chainRT.pending.Add(1)
		go s.settleShadow(f, seq)
	}
}

// SplitShadowRecord returns the two evidence records of a shadow record
// and its tenant (ok false: not a shadow record).
func SplitShadowRecord(data []byte) (shadow, active []byte, tenant string, ok bool) {
	var r struct {
		Tenant string          `json:"tenant"`
		Shadow json.RawMessage `json:"shadow"`
		Active json.RawMessage `json:"active"`
	}
	if err := json.Unmarshal(data, &r); err != nil || len(r.Shadow) == 0 || len(r.Active) == 0 {
		return nil, nil, "", false
	}
	return r.Shadow, r.Active, r.Tenant, true
}
