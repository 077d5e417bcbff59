package pipeline

import (
	"encoding/hex"
	"sort"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// EvidenceVersion names the evidence record format (wire.EvidenceVersion).
const EvidenceVersion = wire.EvidenceVersion

// Outcome summarizes a pass (declared in package wire).
type Outcome = wire.Outcome

// The outcomes, under their pipeline names.
const (
	OutcomeClean     = wire.OutcomeClean
	OutcomeSanitized = wire.OutcomeSanitized
	OutcomeTruncated = wire.OutcomeTruncated
	OutcomeRejected  = wire.OutcomeRejected
)

// Digest is a byte count and a hash of those bytes, written "<alg>:<hex>"
// with the policy's digest algorithm ("blake3:…" by default, "sha256:…").
type Digest struct {
	Bytes  int64  `json:"bytes"`
	Digest string `json:"digest"`
}

// FindingRecord is one finding in evidence. It never holds matched text:
// the rule, where it was (JSON pointer of the value, whether in its key, the
// input offset of the string token, offset and length in the normalized
// string) and a keyed fingerprint.
type FindingRecord struct {
	Rule        string `json:"rule"`
	Kind        string `json:"kind"`
	Pointer     string `json:"pointer"`
	InKey       bool   `json:"inKey,omitempty"`
	InputOffset int64  `json:"inputOffset"`
	Offset      int64  `json:"offset"`
	Length      int    `json:"length"`
	Checksum    string `json:"checksum,omitempty"`
	Encoding    string `json:"encoding,omitempty"` // base64, base64url, hex or percent: found inside an encoded run
	Fingerprint string `json:"fingerprint,omitempty"`
	// EndPointer is the pointer of the text block a match ends in when
	// it runs on from the block of Pointer into the next (blockjoin.go).
	EndPointer string `json:"endPointer,omitempty"`
}

// BoundHit records a crossed bound.
type BoundHit struct {
	Bound   string `json:"bound"`
	Action  string `json:"action"`
	Pointer string `json:"pointer"`
	Count   int64  `json:"count"`
}

// Evidence is the record of one pass. It holds rule ids, JSON pointers,
// offsets, lengths, counts, digests and keyed fingerprints; never raw input,
// secrets or key material.
type Evidence struct {
	Version       string `json:"version"`
	Kind          string `json:"kind"`
	Tool          string `json:"tool,omitempty"`
	Server        string `json:"server,omitempty"`
	Tenant        string `json:"tenant,omitempty"`
	RequestID     string `json:"requestId,omitempty"`
	PolicyVersion string `json:"policyVersion"`
	GuardVersion  string `json:"guardVersion"`
	// Normalization is the policy's normalization mode, "nfkc" or
	// "lossless": whether the output is the normalized text or keeps the
	// original characters outside what was changed.
	Normalization string           `json:"normalization"`
	Outcome       Outcome          `json:"outcome"`
	Code          Code             `json:"code,omitempty"`
	Reason        string           `json:"reason,omitempty"`
	ErrorOffset   int64            `json:"errorOffset,omitempty"`
	ErrorPointer  string           `json:"errorPointer,omitempty"`
	IDNullReason  string           `json:"idNullReason,omitempty"` // why an error envelope's id is null: a wire.ReasonRPCID… reason
	Input         Digest           `json:"input"`
	Output        Digest           `json:"output"`
	Nodes         int64            `json:"nodes"`
	Depth         int64            `json:"depth"`
	Strings       int64            `json:"strings"`
	Rules         map[string]int64 `json:"rules,omitempty"`
	Removed       map[string]int64 `json:"removed,omitempty"`
	InvalidUTF8   int64            `json:"invalidUTF8,omitempty"`
	NFKCChanged   int64            `json:"nfkcChangedStrings,omitempty"`
	// ConfusablesFolded counts Cyrillic, Greek and Armenian look-alikes of
	// Latin letters folded inside mixed-script words ("<ѕystem>").
	ConfusablesFolded int64 `json:"confusablesFolded,omitempty"`
	// EscapesDecoded counts JSON escapes inside text that is itself JSON
	// decoded to their character ("\u0067" to "g", scanners: escapes in
	// text).
	EscapesDecoded int64            `json:"escapesDecoded,omitempty"`
	DroppedKeys    int64            `json:"droppedMetaKeys,omitempty"`
	Bounds         []BoundHit       `json:"bounds,omitempty"`
	Findings       []FindingRecord  `json:"findings,omitempty"`
	FindingsCut    int64            `json:"findingsNotListed,omitempty"`
	SchemaSHA256   string           `json:"schemaSha256,omitempty"`
	Schema         *SchemaRecord    `json:"schema,omitempty"`
	ToolError      *ToolErrorRecord `json:"toolError,omitempty"`
	RPCError       *RPCErrorRecord  `json:"rpcError,omitempty"`
	// Binary lists the binary content blocks replaced by a note
	// (binary.go), at most 64.
	Binary []BinaryRecord `json:"binary,omitempty"`
	// Guard is what the guard of the message's kind found (guard.go).
	Guard *GuardRecord `json:"guard,omitempty"`
	// IdentifierSecrets counts secrets found and replaced in the tool
	// name, server, tenant and request id (identifier.go).
	IdentifierSecrets int64 `json:"identifierSecrets,omitempty"`
	// Suppressed lists the secret matches policy kept (rules.allow), at
	// most 256; SuppressedCount counts them all.
	Suppressed      []SuppressionRecord `json:"suppressed,omitempty"`
	SuppressedCount int64               `json:"suppressedCount,omitempty"`
	DurationNanos   int64               `json:"durationNanos"`
}

// SchemaRecord is what the outputSchema check of a tool result found. It
// names keywords and pointers (built from sanitized keys, bounded), never a
// value.
type SchemaRecord struct {
	// Digest is the schema's "sha256:<hex>" (also SchemaSHA256).
	Digest string `json:"digest"`
	// Outcome is "valid", "mismatch" (the tool's own value does not
	// conform), "mismatch-after-redaction" (only the sanitized one fails),
	// "missing" (no structuredContent) or "not-checked" (a tool error).
	Outcome string `json:"outcome"`
	// Keyword, InstancePointer and SchemaPointer locate the first failure.
	Keyword         string `json:"keyword,omitempty"`
	InstancePointer string `json:"instancePointer,omitempty"`
	SchemaPointer   string `json:"schemaPointer,omitempty"`
	// Projected lists the pointers (in structuredContent) of the properties
	// dropped because the schema does not declare them; at most 64 are
	// listed, ProjectedCount counts them all.
	Projected      []string `json:"projected,omitempty"`
	ProjectedCount int      `json:"projectedCount,omitempty"`
	// Mirrors counts the text blocks that mirrored structuredContent and
	// were regenerated from the sanitized value.
	Mirrors int `json:"mirrors,omitempty"`
}

// ToolErrorRecord is what the rewriting of a tool execution error did.
type ToolErrorRecord struct {
	// Code is the tool's internal code, restricted like Tool; empty when
	// the tool gave none.
	Code string `json:"code,omitempty"`
	// Source says where the code came from: "structuredContent.code" or
	// "text-prefix".
	Source string `json:"source,omitempty"`
	// Mapped reports whether the policy mapped the code to a message.
	Mapped bool `json:"mapped"`
	// Removed lists the classes found in the withheld text: "stack-trace",
	// "sql-error", "file-path", "stderr", "token", "echoed-input",
	// "message" (text with none of the others). Under mode
	// keep-actionable, when the tool's sanitized text was delivered, it
	// lists the kinds the error sanitizer removed instead (the names of
	// errsan.Kind: "stack-trace", "file-path", "url", "host", "address",
	// "sql", "backend-error", "environment", "secret", "echoed-input").
	Removed []string `json:"removed,omitempty"`
	// Mode is the errors mode that applied: "keep-actionable" or
	// "generic".
	Mode string `json:"mode,omitempty"`
	// Sanitized reports that the tool's own text, sanitized, was
	// delivered (reason "sanitized").
	Sanitized bool `json:"sanitized,omitempty"`
	// Counts counts the removals of the error sanitizer by kind (a
	// dropped line or a replaced span is one); never the text.
	Counts map[string]int64 `json:"counts,omitempty"`
	// Cut reports that a bound of the error sanitizer cut the text.
	Cut bool `json:"cut,omitempty"`
}

// Redactions returns the number of secret and tag findings.
func (e *Evidence) Redactions() int64 {
	var n int64
	for _, v := range e.Rules {
		n += v
	}
	return n
}

// RemovedChars returns the number of characters removed by normalization.
func (e *Evidence) RemovedChars() int64 {
	var n int64
	for _, v := range e.Removed {
		n += v
	}
	return n
}

// RuleNames returns the rule ids with findings, sorted.
func (e *Evidence) RuleNames() []string {
	s := make([]string, 0, len(e.Rules))
	for k := range e.Rules {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func hexFP(b [16]byte) string {
	if b == ([16]byte{}) {
		return ""
	}
	return hex.EncodeToString(b[:])
}

// safeLabel restricts an untrusted identifier (tool, server, tenant, request
// id) to [A-Za-z0-9_.:/-] and 128 bytes, so it can go into labels, evidence,
// subjects' documentation and logs without carrying text.
func safeLabel(s string) string {
	if len(s) > 128 {
		s = s[:128]
	}
	ok := true
	for i := 0; i < len(s); i++ {
		if !labelByte(s[i]) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if labelByte(s[i]) {
			b.WriteByte(s[i])
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func labelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '-' || c == '/' || c == ':'
}
