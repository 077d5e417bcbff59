package wire

import (
	"errors"
	"strings"
)

// Subject prefixes and subjects.
const (
	// SanitizePrefix: inline request/reply, mcp.sanitize.<kind>.
	SanitizePrefix = "mcp.sanitize"
	// RawPrefix: durable input, mcp.raw.<tenant>.<server>.<kind>.
	RawPrefix = "mcp.raw"
	// CleanPrefix: durable output, mcp.clean.<tenant>.<server>.<kind>.
	CleanPrefix = "mcp.clean"
	// EvidencePrefix: evidence records, mcp.evidence.<tenant>.
	EvidencePrefix = "mcp.evidence"
	// DLQPrefix: messages that kept failing, mcp.dlq.<tenant>.
	DLQPrefix = "mcp.dlq"
	// SubjectArgsValidate: request/reply argument gate (tools/call arguments
	// against the tool's inputSchema).
	SubjectArgsValidate = "mcp.args.validate"
	// ToolsPutPrefix: a tools/list result published on mcp.tools.put.<server>
	// fills the tool catalog.
	ToolsPutPrefix = "mcp.tools.put"
	// SubjectStateSeal and SubjectStateVerify: sealed MRTR requestState.
	SubjectStateSeal   = "mcp.state.seal"
	SubjectStateVerify = "mcp.state.verify"
)

// JetStream names.
const (
	StreamRaw      = "MCP_RAW"
	StreamClean    = "MCP_CLEAN"
	StreamEvidence = "MCP_EVIDENCE"
	StreamDLQ      = "MCP_DLQ"
	// ConsumerDurable is the durable pull consumer the fleet shares on
	// StreamRaw.
	ConsumerDurable = "sanitize-worker"
	// QueueInline is the queue group of the inline subjects.
	QueueInline = "mcp-sanitize"
	// BucketTools is the KV bucket of tool definitions, keyed
	// <server>.<tool>.
	BucketTools = "mcp-tools"
	// BucketPayloads is the Object Store bucket of claim-checked payloads.
	BucketPayloads = "mcp-payloads"
	// StreamArchive keeps raw inputs for re-scans when the worker's
	// archive is on (off by default): mcp.archive.<tenant>.<server>.<kind>.
	StreamArchive = "MCP_ARCHIVE"
	// ArchivePrefix is the prefix of StreamArchive's subjects.
	ArchivePrefix = "mcp.archive"
	// StreamRescan keeps the per-message results of re-scan jobs over a
	// stream: mcp.rescan.<job>.
	StreamRescan = "MCP_RESCAN"
	// RescanPrefix is the prefix of StreamRescan's subjects.
	RescanPrefix = "mcp.rescan"
	// BucketPolicies is the KV bucket of signed policies: versions.<version>
	// (':' written '='), active and shadow (docs/policy.md).
	BucketPolicies = "mcp-policies"
)

// Request headers (context of a message). Values are untrusted.
const (
	HeaderTool        = "Mcp-Tool"
	HeaderServer      = "Mcp-Server"
	HeaderTenant      = "Mcp-Tenant"
	HeaderRequestID   = "Mcp-Request-Id"
	HeaderPolicy      = "Mcp-Policy"
	HeaderKind        = "Mcp-Kind"
	HeaderTraceparent = "traceparent"
	HeaderTracestate  = "tracestate"
	// HeaderContentEncoding: "zstd" or "s2"; absent or "identity" means
	// the body is plain.
	HeaderContentEncoding = "Content-Encoding"
	// HeaderClaim names the object (in HeaderClaimBucket, default
	// BucketPayloads) that holds the body of a message sent by reference.
	HeaderClaim       = "Mcp-Claim"
	HeaderClaimBucket = "Mcp-Claim-Bucket"
	// HeaderMsgID is JetStream's publish deduplication header.
	HeaderMsgID = "Nats-Msg-Id"
)

// Reply and output headers set by the worker.
const (
	// HeaderOutcome: clean, sanitized, truncated or rejected.
	HeaderOutcome = "Mcp-Outcome"
	// HeaderCode: the stable error code of a rejected message.
	HeaderCode = "Mcp-Code"
	// HeaderInputDigest: "<alg>:<hex>" digest of the input body as received
	// (the evidence input digest; BLAKE3 unless the policy says sha256).
	HeaderInputDigest = "Mcp-Input-Digest"
	// HeaderGuard: the guard version that produced the output.
	HeaderGuard = "Mcp-Guard"
)

// Content encodings.
const (
	EncodingIdentity = "identity"
	EncodingZstd     = "zstd"
	EncodingS2       = "s2"
)

// MaxTokenLen caps a tenant or server name used as a subject token.
const MaxTokenLen = 64

// ErrToken is returned for a name that cannot be a subject token.
var ErrToken = errors.New("wire: name is not a valid subject token ([A-Za-z0-9_-], 1 to 64 bytes)")

// InvalidToken is the token that stands for a missing or invalid tenant on
// subjects the worker publishes (evidence and DLQ), so that such messages
// are kept and visible rather than dropped.
const InvalidToken = "_invalid"

// CheckToken reports whether s may be one subject token: 1 to MaxTokenLen
// bytes of [A-Za-z0-9_-]. Dots, wildcards, spaces and anything else are
// refused rather than escaped, so a name maps to exactly one token.
func CheckToken(s string) error {
	if len(s) == 0 || len(s) > MaxTokenLen {
		return ErrToken
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return ErrToken
		}
	}
	return nil
}

// TokenOr returns s when it is a valid token and InvalidToken otherwise.
func TokenOr(s string) string {
	if CheckToken(s) != nil {
		return InvalidToken
	}
	return s
}

// Subject joins a prefix and tokens with dots.
func Subject(prefix string, tokens ...string) string {
	n := len(prefix)
	for _, t := range tokens {
		n += 1 + len(t)
	}
	var b strings.Builder
	b.Grow(n) // one allocation, the string's (a message's evidence subject)
	b.WriteString(prefix)
	for _, t := range tokens {
		b.WriteByte('.')
		b.WriteString(t)
	}
	return b.String()
}

// ParseRaw splits a durable input subject mcp.raw.<tenant>.<server>.<kind>.
func ParseRaw(subject string) (tenant, server, kind string, err error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 5 || parts[0]+"."+parts[1] != RawPrefix {
		return "", "", "", errors.New("wire: not a mcp.raw.<tenant>.<server>.<kind> subject")
	}
	for _, p := range parts[2:4] {
		if err := CheckToken(p); err != nil {
			return "", "", "", err
		}
	}
	return parts[2], parts[3], parts[4], nil
}
