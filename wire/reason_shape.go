package wire

// Reasons of the shape rules that decide what a message means: its framing,
// the members that make a result what it is, and the record lines of
// scan --jsonl.
const (
	// ReasonEnvelopeMixed: a top-level object holds both a tool result's
	// own members (content, structuredContent, isError, resultType) and a
	// JSON-RPC envelope's (jsonrpc, id, method, params, result, error), or
	// the result's members at the top of a body framed as JSON-RPC
	// (INVALID_CONTENT).
	ReasonEnvelopeMixed Reason = "envelope-mixed"
	// ReasonIsErrorNotBoolean: a tool result's isError that is not a JSON
	// boolean, such as "true", 1 or null (INVALID_CONTENT).
	ReasonIsErrorNotBoolean Reason = "is-error-not-boolean"
	// ReasonContentNotArray: a tool result's content that is not an array
	// (INVALID_CONTENT).
	ReasonContentNotArray Reason = "content-not-array"
	// ReasonTextNotString: the text of a content block or of an embedded
	// resource that is not a string (INVALID_CONTENT).
	ReasonTextNotString Reason = "text-not-string"
	// ReasonResultMemberDropped: a member that decides what a result or a
	// block means (isError, type, resultType, content, structuredContent)
	// would have been dropped by the output budget (BOUND_EXCEEDED).
	ReasonResultMemberDropped Reason = "result-member-dropped"
	// ReasonUnknownFraming: a framing that is not one of Framings
	// (INVALID_CONTENT).
	ReasonUnknownFraming Reason = "unknown-framing"
	// ReasonSchemaKeyCollision: two member names of one object of an
	// echoed outputSchema are equal once normalized (SCHEMA_INVALID).
	ReasonSchemaKeyCollision Reason = "schema-key-collision"
	// ReasonEnvelopeVersion: a JSON-RPC envelope without a "jsonrpc"
	// member or whose value is not the string "2.0" (INVALID_CONTENT).
	ReasonEnvelopeVersion Reason = "envelope-version"
	// ReasonEnvelopeNotResponse: the envelope of a result kind carries a
	// "method" or "params": a request or notification, not the response
	// the kind names (INVALID_CONTENT).
	ReasonEnvelopeNotResponse Reason = "envelope-not-response"
	// ReasonEnvelopeNotRequest: the envelope of a request kind
	// (elicitation-request) without a "method", or with a "result" or an
	// "error"; or (kind generic) "params" without a "method"
	// (INVALID_CONTENT).
	ReasonEnvelopeNotRequest Reason = "envelope-not-request"
	// ReasonEnvelopeAmbiguous: a response envelope with both a "result"
	// and an "error", or (kind generic) a "method" or "params" beside a
	// "result" or an "error" (INVALID_CONTENT).
	ReasonEnvelopeAmbiguous Reason = "envelope-ambiguous"
	// ReasonEnvelopeNoResult: a response envelope with neither a "result"
	// nor an "error" (INVALID_CONTENT).
	ReasonEnvelopeNoResult Reason = "envelope-no-result"
	// ReasonBadRecordContext: a record's "context" member (the guards'
	// request context of scan --jsonl and rescan --in) is not an object of
	// the documented members, types and bounds (INVALID_CONTENT).
	ReasonBadRecordContext Reason = "bad-record-context"
)

// shapeReasons lists the reasons above, in declaration order.
var shapeReasons = []Reason{
	ReasonEnvelopeMixed, ReasonIsErrorNotBoolean, ReasonContentNotArray, ReasonTextNotString,
	ReasonResultMemberDropped, ReasonUnknownFraming, ReasonSchemaKeyCollision,
	ReasonEnvelopeVersion, ReasonEnvelopeNotResponse, ReasonEnvelopeNotRequest,
	ReasonEnvelopeAmbiguous, ReasonEnvelopeNoResult, ReasonBadRecordContext,
}
