package wire

// Reason is the stable, lower-case detail of a Code: which rule, bound or
// step failed. Reasons reach evidence, the reason label of _meta, metrics and
// logs; they never carry input. Every reason is spelled in kebab-case
// ("duplicate-key"), and each is declared here once, whatever package
// reports it.
//
// One set of reasons is open-ended and so not listed: a SCHEMA_MISMATCH
// reason may be the failing JSON Schema keyword ("required", "type", ...,
// restricted to a safe charset).
type Reason string

// ReasonNone is the empty reason: none given.
const ReasonNone Reason = ""

// Reasons of the JSON lexer (code INVALID_JSON unless noted).
const (
	ReasonBadLiteral           Reason = "bad-literal"
	ReasonBadNumber            Reason = "bad-number"
	ReasonBadEscape            Reason = "bad-escape"
	ReasonControlInString      Reason = "control-in-string"
	ReasonExpectedKey          Reason = "expected-key"
	ReasonExpectedColon        Reason = "expected-colon"
	ReasonExpectedCommaOrClose Reason = "expected-comma-or-close"
	ReasonExpectedValue        Reason = "expected-value"
	ReasonTrailingData         Reason = "trailing-data"
	ReasonUnexpectedEOF        Reason = "unexpected-eof"
	ReasonEmptyInput           Reason = "empty-input"
	// ReasonInvalidUTF8: invalid UTF-8 or a lone surrogate escape under the
	// reject policy; also a schema value that is not valid UTF-8.
	ReasonInvalidUTF8 Reason = "invalid-utf8"
	// ReasonNumberLength: a number longer than the lexer accepts (code
	// BOUND_EXCEEDED).
	ReasonNumberLength Reason = "number-length"
	// ReasonLexerState: the lexer reached a state it cannot be in (code
	// INTERNAL).
	ReasonLexerState Reason = "lexer-state"
)

// Reasons of the MCP shape and the content rules.
const (
	// ReasonDuplicateKey: an object holds the same key twice (INVALID_JSON
	// in a pass; VALUE_INVALID or SCHEMA_INVALID in package schema).
	ReasonDuplicateKey Reason = "duplicate-key"
	// ReasonPrototypeKey: a prototype-polluting key (BOUND_EXCEEDED).
	ReasonPrototypeKey Reason = "prototype-key"
	// ReasonResultNotObject: a result that is not a JSON object
	// (INVALID_CONTENT).
	ReasonResultNotObject Reason = "result-not-object"
	// ReasonMIMENotAllowed: a content block's mimeType is outside the
	// allow-list (INVALID_CONTENT).
	ReasonMIMENotAllowed Reason = "mime-not-allowed"
	// ReasonBadBase64: binary data that is not base64 (INVALID_CONTENT).
	ReasonBadBase64 Reason = "bad-base64"
	// ReasonMapped and ReasonUnmapped: a tool execution error whose text was
	// replaced by the policy's message for its code, or by the default
	// message (TOOL_ERROR).
	ReasonMapped   Reason = "mapped"
	ReasonUnmapped Reason = "unmapped"
)

// Reasons that name a crossed bound (BOUND_EXCEEDED, or a cut recorded in
// evidence). They are the names of package bounds' limits, which spells
// them too (bounds imports nothing of ours; a test in this package checks
// that both agree), plus the pipeline's structured-bytes limit.
const (
	ReasonDepth           Reason = "depth"
	ReasonNodes           Reason = "nodes"
	ReasonArrayItems      Reason = "array-items"
	ReasonObjectEntries   Reason = "object-entries"
	ReasonStringChars     Reason = "string-chars"
	ReasonTextChars       Reason = "text-chars"
	ReasonKeyChars        Reason = "key-chars"
	ReasonOutputBytes     Reason = "output-bytes"
	ReasonBinaryBytes     Reason = "binary-bytes"
	ReasonMetaBytes       Reason = "meta-bytes"
	ReasonStructuredBytes Reason = "structured-bytes"
)

// Reasons of the structured-content hold (SCHEMA_MISMATCH, or INTERNAL for
// the encode and decode steps).
const (
	ReasonStructuredContentMissing Reason = "structured-content-missing"
	ReasonStructuredContentInvalid Reason = "structured-content-invalid"
	ReasonStructuredDecode         Reason = "structured-decode"
	ReasonStructuredEncode         Reason = "structured-encode"
)

// Reasons of a pass that failed on its own side (INTERNAL, TIMEOUT).
const (
	// ReasonDeadline: the caller's deadline ended the work (TIMEOUT).
	ReasonDeadline Reason = "deadline"
	// ReasonReadError: reading the input failed.
	ReasonReadError Reason = "read-error"
	// ReasonOutputError: writing the output failed.
	ReasonOutputError Reason = "output-error"
	// ReasonShortWrite: the output took fewer bytes than it was given.
	ReasonShortWrite Reason = "short-write"
	// ReasonInternalFault: a fault inside the pass was recovered.
	ReasonInternalFault Reason = "internal-fault"
)

// Reasons of the worker (NATS side) and of the scan command's records.
const (
	// ReasonInvalidSubject: a durable subject that is not
	// mcp.raw.<tenant>.<server>.<kind> (INVALID_CONTENT).
	ReasonInvalidSubject Reason = "invalid-subject"
	// ReasonUnknownKind: a kind that is not one of Kinds (INVALID_CONTENT).
	ReasonUnknownKind Reason = "unknown-kind"
	// ReasonUnknownPolicy: HeaderPolicy names no loaded policy (INTERNAL).
	ReasonUnknownPolicy Reason = "unknown-policy"
	// ReasonUnknownTool: the catalog has no outputSchema decision for the
	// tool (SCHEMA_MISMATCH).
	ReasonUnknownTool Reason = "unknown-tool"
	// ReasonCatalogEntry: the catalog entry's schema cannot be used
	// (SCHEMA_INVALID).
	ReasonCatalogEntry Reason = "catalog-entry"
	// ReasonResolverUnavailable: the schema resolver failed (INTERNAL).
	ReasonResolverUnavailable Reason = "resolver-unavailable"
	// ReasonPublishFailed: the clean or evidence publish failed (INTERNAL).
	ReasonPublishFailed Reason = "publish-failed"
	// ReasonMaxDeliveries: the input's last delivery was not handled and the
	// server gave up on it; the worker sent it to the dead-letter stream
	// (INTERNAL).
	ReasonMaxDeliveries Reason = "max-deliveries"
	// ReasonOutputStore: the sanitized output could not be stored for
	// sending by reference (INTERNAL).
	ReasonOutputStore Reason = "output-store"
	// ReasonPayload: reading the body failed for a cause that is not a
	// payload.Error (INTERNAL).
	ReasonPayload Reason = "payload"
	// ReasonRecordTooLong: a scan --jsonl record over the record limit
	// (BOUND_EXCEEDED).
	ReasonRecordTooLong Reason = "record-too-long"
	// ReasonBadRecord: a scan --jsonl record that is not a JSON object
	// (INVALID_JSON).
	ReasonBadRecord Reason = "bad-record"
	// ReasonRecordWithoutResult: a scan --jsonl record without a result
	// (INVALID_JSON).
	ReasonRecordWithoutResult Reason = "record-without-result"
)

// Reasons of decoding and encoding a body for transport (package payload).
const (
	ReasonUnknownEncoding   Reason = "unknown-encoding"
	ReasonMultipleEncodings Reason = "multiple-encodings"
	ReasonCorrupt           Reason = "corrupt"
	ReasonTruncated         Reason = "truncated"
	ReasonDecodedBytes      Reason = "decoded-bytes"
	ReasonEncodedBytes      Reason = "encoded-bytes"
	ReasonZstdWindow        Reason = "zstd-window"
	ReasonClaimBucket       Reason = "claim-bucket"
	ReasonClaimName         Reason = "claim-name"
	ReasonClaimNotFound     Reason = "claim-not-found"
	ReasonClaimDigest       Reason = "claim-digest"
	ReasonClaimStore        Reason = "claim-store"
	ReasonNoStore           Reason = "no-store"
	ReasonMaxPayload        Reason = "max-payload"
	ReasonSpool             Reason = "spool"
	ReasonEncode            Reason = "encode"
	ReasonClosed            Reason = "closed"
)

// Reasons of compiling a schema and decoding a value (package schema);
// ReasonDuplicateKey and ReasonInvalidUTF8 above are shared with the pass.
const (
	ReasonJSONSyntax             Reason = "json-syntax"
	ReasonLoneSurrogate          Reason = "lone-surrogate"
	ReasonNumberOutOfRange       Reason = "number-out-of-range"
	ReasonSizeLimit              Reason = "size-limit"
	ReasonDepthLimit             Reason = "depth-limit"
	ReasonMetaschemaViolation    Reason = "metaschema-violation"
	ReasonUnsupportedDialect     Reason = "unsupported-dialect"
	ReasonPatternNotCompilable   Reason = "pattern-not-compilable"
	ReasonExternalReference      Reason = "external-reference"
	ReasonReferenceTargetMissing Reason = "reference-target-missing"
	ReasonNotCompilable          Reason = "not-compilable"
)

// Reasons of a SCHEMA_INVALID record of scan --jsonl: the schema package's
// code, in reason spelling (CodeReason).
const (
	ReasonSchemaInvalid       Reason = "schema-invalid"
	ReasonSchemaTooLarge      Reason = "schema-too-large"
	ReasonSchemaTooDeep       Reason = "schema-too-deep"
	ReasonSchemaRefDenied     Reason = "schema-ref-denied"
	ReasonSchemaRefUnresolved Reason = "schema-ref-unresolved"
	ReasonValueInvalid        Reason = "value-invalid"
	ReasonValueTooDeep        Reason = "value-too-deep"
)

// CodeReason spells a code as a reason: lower case, "_" as "-"
// (SCHEMA_TOO_LARGE is "schema-too-large").
func CodeReason(c Code) Reason {
	b := []byte(c)
	for i, x := range b {
		switch {
		case x == '_':
			b[i] = '-'
		case x >= 'A' && x <= 'Z':
			b[i] = x + ('a' - 'A')
		}
	}
	return Reason(b)
}

// Reasons lists every reason declared above, in declaration order.
func Reasons() []Reason {
	r := []Reason{
		ReasonBadLiteral, ReasonBadNumber, ReasonBadEscape, ReasonControlInString, ReasonExpectedKey,
		ReasonExpectedColon, ReasonExpectedCommaOrClose, ReasonExpectedValue, ReasonTrailingData,
		ReasonUnexpectedEOF, ReasonEmptyInput, ReasonInvalidUTF8, ReasonNumberLength, ReasonLexerState,

		ReasonDuplicateKey, ReasonPrototypeKey, ReasonResultNotObject, ReasonMIMENotAllowed,
		ReasonBadBase64, ReasonMapped, ReasonUnmapped,

		ReasonDepth, ReasonNodes, ReasonArrayItems, ReasonObjectEntries, ReasonStringChars,
		ReasonTextChars, ReasonKeyChars, ReasonOutputBytes, ReasonBinaryBytes, ReasonMetaBytes,
		ReasonStructuredBytes,

		ReasonStructuredContentMissing, ReasonStructuredContentInvalid, ReasonStructuredDecode,
		ReasonStructuredEncode,

		ReasonDeadline, ReasonReadError, ReasonOutputError, ReasonShortWrite, ReasonInternalFault,

		ReasonInvalidSubject, ReasonUnknownKind, ReasonUnknownPolicy, ReasonUnknownTool,
		ReasonCatalogEntry, ReasonResolverUnavailable, ReasonPublishFailed, ReasonMaxDeliveries, ReasonOutputStore,
		ReasonPayload, ReasonRecordTooLong,
		ReasonBadRecord, ReasonRecordWithoutResult,

		ReasonUnknownEncoding, ReasonMultipleEncodings, ReasonCorrupt, ReasonTruncated,
		ReasonDecodedBytes, ReasonEncodedBytes, ReasonZstdWindow, ReasonClaimBucket, ReasonClaimName,
		ReasonClaimNotFound, ReasonClaimDigest, ReasonClaimStore, ReasonNoStore, ReasonMaxPayload,
		ReasonSpool, ReasonEncode, ReasonClosed,

		ReasonJSONSyntax, ReasonLoneSurrogate, ReasonNumberOutOfRange, ReasonSizeLimit,
		ReasonDepthLimit, ReasonMetaschemaViolation, ReasonUnsupportedDialect,
		ReasonPatternNotCompilable, ReasonExternalReference, ReasonReferenceTargetMissing,
		ReasonNotCompilable,

		ReasonSchemaInvalid, ReasonSchemaTooLarge, ReasonSchemaTooDeep, ReasonSchemaRefDenied,
		ReasonSchemaRefUnresolved, ReasonValueInvalid, ReasonValueTooDeep,
	}
	// The reasons of each area, declared in a file of its own.
	for _, area := range [][]Reason{stateReasons, shapeReasons, errorReasons, binaryReasons, rpcIDReasons, proxyReasons, kindReasons, resourceReasons} {
		r = append(r, area...)
	}
	return r
}
