package wire

// MetaPrefix is the reserved _meta key prefix. Keys under it are written only
// by the sanitizer (the pipeline's labels, the argument gate's error
// results); a tool's own keys with this prefix are dropped so a tool cannot
// forge them.
const MetaPrefix = "dev.mcp-sanitize/"

// Names of the _meta keys under MetaPrefix. The key in a document is
// MetaPrefix followed by the name ("dev.mcp-sanitize/guard"). docs/pipeline.md
// says which labels a result, a content block and an error result carry.
const (
	// MetaUntrusted: true on every labelled result and content block.
	MetaUntrusted = "untrusted"
	// MetaGuard: GuardVersion.
	MetaGuard = "guard"
	// MetaPolicy: the version of the policy that sanitized the message.
	MetaPolicy = "policy"
	// MetaOutputSchema: "sha256:<hex>" digest of the tool's outputSchema.
	MetaOutputSchema = "outputSchema"
	// MetaInputSchema: "sha256:<hex>" digest of the tool's inputSchema
	// (argument gate).
	MetaInputSchema = "inputSchema"
	// MetaTruncated: whether the result (or a block) was cut to its bounds.
	MetaTruncated = "truncated"
	// MetaTruncations: how many cuts were made.
	MetaTruncations = "truncations"
	// MetaCode: the Code of a truncated result or an error result.
	MetaCode = "code"
	// MetaReason: the Reason of an error result.
	MetaReason = "reason"
	// MetaRedactions: how many secrets were redacted (neutralized tags and
	// markers are not counted here; evidence has both).
	MetaRedactions = "redactions"
	// MetaRemovedChars: how many characters normalization removed.
	MetaRemovedChars = "removedChars"
	// MetaSource: "tool:<name>" on a content block.
	MetaSource = "source"
	// MetaKeyword: the failing inputSchema keyword (argument gate).
	MetaKeyword = "keyword"
	// MetaPointer: the JSON pointer of the failing argument (argument gate).
	MetaPointer = "pointer"
)

// MetaKey returns the full _meta key of a name: MetaPrefix + name.
func MetaKey(name string) string { return MetaPrefix + name }

// GuardVersion identifies this implementation of the guards in _meta,
// evidence and HeaderGuard. It changes when sanitized output for the same
// input and policy would change.
const GuardVersion = "mcp-sanitize/1"

// EvidenceVersion names the evidence record format.
const EvidenceVersion = "mcp-sanitize.evidence/1"
