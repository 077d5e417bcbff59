package statekeys

import "time"

// Rules named in evidence (seed sections of 000_…txt).
const (
	// RuleMRTR is the integrity-protected requestState rule.
	RuleMRTR = "AID-H-034.005-G006"
	// RuleForm is the form-mode elicitation rule.
	RuleForm = "AID-H-034.005-G005"
)

// Decisions.
const (
	DecisionAccept = "accept"
	DecisionReject = "reject"
)

// Evidence records one seal or verify decision as data; the caller decides
// where it goes (the worker publishes it on mcp.evidence.<tenant>). It never
// holds key material, a token, a subject, arguments or response content:
// only ids, digests, codes and reasons. Tenant, Method and KeyID are set only
// when they are well-formed; FlowID and ExpiresAt only once a token has been
// authenticated (or sealed).
type Evidence struct {
	Rule     string `json:"rule"`
	Action   string `json:"action"` // "seal" or "verify"
	Decision string `json:"decision"`
	Code     Code   `json:"code,omitempty"`
	Reason   Reason `json:"reason,omitempty"`
	Tenant   string `json:"tenant,omitempty"`
	// SealedTenant is the tenant the state was sealed for, set only when an
	// authenticated token was presented by another tenant: the victim of a
	// cross-tenant retry should see it too.
	SealedTenant    string          `json:"sealedTenant,omitempty"`
	Method          string          `json:"method,omitempty"`
	KeyID           string          `json:"keyId,omitempty"`
	FlowID          string          `json:"flowId,omitempty"`
	StateDigest     string          `json:"stateDigest,omitempty"` // hex SHA-256 of the token
	ArgumentsDigest string          `json:"argumentsDigest,omitempty"`
	InputKey        string          `json:"inputKey,omitempty"`
	Field           string          `json:"field,omitempty"`
	Inputs          []EvidenceInput `json:"inputs,omitempty"`
	ExpiresAt       *time.Time      `json:"expiresAt,omitempty"`
	Time            time.Time       `json:"time"`
}

// EvidenceInput describes one input request or response.
type EvidenceInput struct {
	Key          string `json:"key"`
	Kind         string `json:"kind"`
	SchemaDigest string `json:"schemaDigest,omitempty"`
	Action       string `json:"action,omitempty"`
}

func (ev *Evidence) reject(e *Error) {
	ev.Decision = DecisionReject
	ev.Code = e.Code
	ev.Reason = e.Reason
	if e.InputKey != "" && inputKeyPattern.MatchString(e.InputKey) {
		ev.InputKey = e.InputKey
	}
	if e.Field != "" && fieldNamePattern.MatchString(e.Field) {
		ev.Field = e.Field
	}
	if e.Code == CodeFormRefused {
		ev.Rule = RuleForm
	}
}
