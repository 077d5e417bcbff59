package wire

// Code is a stable error code. Codes cross process boundaries (replies,
// HeaderCode, evidence, metrics labels), so their spelling never changes.
// Every code of the project is declared here, once; packages that report a
// code (pipeline, payload, schema, toolcat, argsgate, statekeys, elicit) use
// these constants, under their own short names where that reads better.
type Code string

// Codes of a sanitizing pass (package pipeline) and of decoding a body for
// transport (package payload).
const (
	// CodeInvalidJSON: the message is not one well-formed JSON value
	// (syntax error, trailing data, invalid UTF-8 under the reject policy,
	// an object with a member name twice).
	CodeInvalidJSON Code = "INVALID_JSON"
	// CodeBoundExceeded: a bound whose action is reject was crossed, or the
	// document is unsafe in shape (prototype-polluting keys).
	CodeBoundExceeded Code = "BOUND_EXCEEDED"
	// CodeTimeout: the deadline of the caller's context ended the pass.
	CodeTimeout Code = "TIMEOUT"
	// CodeOutputTruncated: the result was delivered, cut to its bounds. It is
	// an outcome recorded in _meta and evidence, not an error result.
	CodeOutputTruncated Code = "OUTPUT_TRUNCATED"
	// CodeInvalidContent: a content block broke the content rules (binary
	// data that is not base64, a MIME type outside the allow-list).
	CodeInvalidContent Code = "INVALID_CONTENT"
	// CodeInternal: the pass failed for a reason of its own (a scanner fault,
	// an I/O error while reading); nothing of the input was delivered.
	CodeInternal Code = "INTERNAL"
	// CodeSchemaMismatch: the tool declares an outputSchema and its own
	// structuredContent is missing or does not conform to it.
	CodeSchemaMismatch Code = "SCHEMA_MISMATCH"
	// CodeSchemaMismatchAfterRedaction: the tool's structuredContent
	// conforms, but the sanitized (redacted, normalized, projected) value
	// does not, so it cannot be delivered whole.
	CodeSchemaMismatchAfterRedaction Code = "SCHEMA_MISMATCH_AFTER_REDACTION"
	// CodeSchemaInvalid: a schema cannot be compiled (not strict JSON, not
	// valid for its dialect, an unknown dialect, a pattern that does not
	// compile). In a pass: the tool's outputSchema cannot be used (bad
	// schema, an external reference, over the size or depth limits).
	CodeSchemaInvalid Code = "SCHEMA_INVALID"
	// CodeToolError: not a failure of the pass. The tool reported an
	// execution error (isError: true) and its text was replaced by a public
	// message from the policy (reason "mapped" or "unmapped"); in _meta and
	// evidence.
	CodeToolError Code = "TOOL_ERROR"
	// CodeInvalidEncoding: the message body could not be decoded for
	// transport (unknown Content-Encoding, corrupt or truncated compressed
	// data, a claim check that cannot be resolved).
	CodeInvalidEncoding Code = "INVALID_ENCODING"
)

// Codes of compiling a schema and decoding a value for it (package schema);
// CodeSchemaInvalid above is shared with the pass.
const (
	// CodeSchemaTooLarge: the schema text exceeds the schema size limit.
	CodeSchemaTooLarge Code = "SCHEMA_TOO_LARGE"
	// CodeSchemaTooDeep: the schema nests deeper than the depth limit.
	CodeSchemaTooDeep Code = "SCHEMA_TOO_DEEP"
	// CodeSchemaRefDenied: the schema references a document other than
	// itself and the bundled official meta-schemas.
	CodeSchemaRefDenied Code = "SCHEMA_REF_DENIED"
	// CodeSchemaRefUnresolved: a reference inside the schema points at
	// nothing (a missing JSON pointer or anchor).
	CodeSchemaRefUnresolved Code = "SCHEMA_REF_UNRESOLVED"
	// CodeValueInvalid: a value to validate is not strict JSON (syntax,
	// duplicate member, invalid UTF-8, lone surrogate).
	CodeValueInvalid Code = "VALUE_INVALID"
	// CodeValueTooDeep: a value to validate nests deeper than allowed.
	CodeValueTooDeep Code = "VALUE_TOO_DEEP"
)

// Codes of the tool catalog (package toolcat, mcp.tools.put.<server>).
const (
	// CodeToolsInvalid: the tools/list result is malformed (not JSON, no
	// tools array, a JSON-RPC error, a tool that is not an object, a
	// duplicate tool name).
	CodeToolsInvalid Code = "TOOLS_INVALID"
	// CodeToolsName: a server or tool name that cannot be a key.
	CodeToolsName Code = "TOOLS_NAME"
	// CodeToolsSchema: a tool's inputSchema is missing, or its inputSchema
	// or outputSchema does not compile.
	CodeToolsSchema Code = "TOOLS_SCHEMA"
	// CodeToolsTooLarge: the tools/list result, one definition or the
	// number of tools exceeds the limits.
	CodeToolsTooLarge Code = "TOOLS_TOO_LARGE"
	// CodeToolsNotFound: no such tool in the catalog.
	CodeToolsNotFound Code = "TOOLS_NOT_FOUND"
	// CodeToolsUnavailable: the KV bucket failed; retry later.
	CodeToolsUnavailable Code = "TOOLS_UNAVAILABLE"
)

// Codes of the argument gate (package argsgate, mcp.args.validate).
const (
	// CodeArgsValid is the code of an accepted call.
	CodeArgsValid Code = "ARGS_VALID"
	// CodeArgsMalformed: the arguments are not a strict JSON object
	// (syntax, duplicate member, too large, too deep), or the tools/call
	// request around them is malformed.
	CodeArgsMalformed Code = "ARGS_MALFORMED"
	// CodeArgsMissing: a required parameter is absent.
	CodeArgsMissing Code = "ARGS_MISSING"
	// CodeArgsType: a parameter has the wrong JSON type.
	CodeArgsType Code = "ARGS_TYPE"
	// CodeArgsUnknownProperty: a parameter the schema does not declare.
	CodeArgsUnknownProperty Code = "ARGS_UNKNOWN_PROPERTY"
	// CodeArgsInvalid: any other schema keyword failed (enum, pattern,
	// bounds, lengths, anyOf, ...).
	CodeArgsInvalid Code = "ARGS_INVALID"
	// CodeArgsSchemaUnusable: the tool's inputSchema does not compile (or
	// is refused by the schema limits); the call fails closed.
	CodeArgsSchemaUnusable Code = "ARGS_SCHEMA_UNUSABLE"
	// CodeArgsUnknownTool: no inputSchema is known for the tool.
	CodeArgsUnknownTool Code = "ARGS_UNKNOWN_TOOL"
	// CodeArgsUnavailable: the inputSchema could not be looked up (catalog
	// unavailable); the call fails closed and may be retried.
	CodeArgsUnavailable Code = "ARGS_UNAVAILABLE"
)

// Codes of the request-state service (package statekeys) and the
// elicitation guards (package elicit).
const (
	// CodeStateRejected is the one code for every failed verification of request
	// state: malformed, tampered, unknown key, expired, replayed, bound to
	// another identity or operation, or carrying invalid input responses.
	// The specific reason is only in Evidence.
	CodeStateRejected Code = "STATE_REJECTED"
	// CodeStateUnavailable means a dependency (the single-use store or the key
	// ring) failed. The request fails closed; a later retry may succeed.
	CodeStateUnavailable Code = "STATE_UNAVAILABLE"
	// CodeStateInvalidRequest means a seal request was malformed: bad identity,
	// a method other than tools/call, prompts/get or resources/read, invalid
	// arguments or input requests, or a lifetime outside the limits.
	CodeStateInvalidRequest Code = "STATE_INVALID_REQUEST"
	// CodeElicitationFormRefused means a form-mode elicitation was refused: no valid
	// signed form policy covers it, the schema is not a flat form schema, or
	// it asks for sensitive data openly or in disguise.
	CodeElicitationFormRefused Code = "ELICITATION_FORM_REFUSED"
	// CodeElicitationURLRefused means a URL-mode elicitation was refused: not https,
	// credentials or secrets in the URL, or a missing elicitationId.
	CodeElicitationURLRefused Code = "ELICITATION_URL_REFUSED"
	// CodeElicitationResponseRefused means an elicitation response failed validation
	// when checked on its own (outside Verify, which reports CodeStateRejected).
	CodeElicitationResponseRefused Code = "ELICITATION_RESPONSE_REFUSED"
	// CodeKeyringInvalid means a key ring document is malformed or inconsistent.
	CodeKeyringInvalid Code = "KEYRING_INVALID"
)

// Codes of the resource, prompt and completion guards (packages resgate
// and promptgate). Each is the one public error of its family, whatever
// the reason (which goes to evidence only), so that a reply tells a caller
// nothing about which resources, prompts or values exist.
const (
	// CodeResourceUnavailable: a resources/read result was refused (a URI
	// refused, authorization denied or unavailable, a missing or invalid
	// broker receipt, changed content).
	CodeResourceUnavailable Code = "RESOURCE_UNAVAILABLE"
	// CodePromptRefused: a prompts/get result was refused (a name not
	// allowed, an argument unknown, missing or invalid, a forbidden role
	// or marker in a generated message).
	CodePromptRefused Code = "PROMPT_REFUSED"
	// CodeCompletionRefused: a completion/complete result was refused
	// (malformed, an argument not allowed, the principal's budget spent or
	// the budget store unavailable).
	CodeCompletionRefused Code = "COMPLETION_REFUSED"
)

// DefaultPublicMessage is the public message of a code without one of its
// own (INTERNAL, OUTPUT_TRUNCATED, codes of other families).
const DefaultPublicMessage = "The tool output could not be sanitized, so it was withheld."

// publicMessages is the one table of public messages: the text a reply
// carries for a code. It depends on the code alone, never on input.
var publicMessages = map[Code]string{
	CodeInvalidJSON:                  "The tool returned malformed output (not valid JSON, or an object with a member name twice), so it was withheld.",
	CodeBoundExceeded:                "The tool output exceeded a safety limit, so it was withheld. Narrow the request (a smaller range, a filter, fewer fields or a page size) and call the tool again.",
	CodeTimeout:                      "Sanitizing the tool output took too long, so it was withheld. Narrow the request and call the tool again.",
	CodeInvalidContent:               "The tool returned content that is not allowed (not a result object, malformed binary data or a disallowed media type), so the output was withheld.",
	CodeInvalidEncoding:              "The tool output arrived in an encoding that could not be decoded (corrupt or unsupported compression, or a missing stored payload), so it was withheld.",
	CodeSchemaMismatch:               "The tool returned structured output that does not match its declared output schema, so it was withheld. Call the tool again; if this keeps happening, the tool is broken and another approach is needed.",
	CodeSchemaMismatchAfterRedaction: "The tool's structured output no longer matched its declared output schema once sensitive data was removed, so it was withheld. Narrow the request to leave out fields that may hold secrets, or use another approach.",
	CodeSchemaInvalid:                "The tool declares an output schema that cannot be used, so its output was withheld.",
	CodeToolError:                    "The tool failed. Check the arguments and try again, or use another approach.",

	// Tool catalog replies ("toolcat: " and this text, docs/nats.md).
	CodeToolsInvalid:     "invalid tools/list result",
	CodeToolsName:        "invalid server or tool name",
	CodeToolsSchema:      "tool schema missing or not compilable",
	CodeToolsTooLarge:    "tools/list result exceeds the limits",
	CodeToolsNotFound:    "tool not in the catalog",
	CodeToolsUnavailable: "tool catalog unavailable",

	// Request-state and elicitation replies (docs/statekeys.md).
	CodeStateRejected:              "request state rejected",
	CodeStateUnavailable:           "request state service unavailable",
	CodeStateInvalidRequest:        "invalid request state seal request",
	CodeElicitationFormRefused:     "form elicitation refused",
	CodeElicitationURLRefused:      "url elicitation refused",
	CodeElicitationResponseRefused: "elicitation response refused",
	CodeKeyringInvalid:             "invalid key ring",

	// Resource, prompt and completion guards (docs/resources.md).
	CodeResourceUnavailable: "The resource is unavailable or you are not authorized to read it.",
	CodePromptRefused:       "The prompt is unavailable or its arguments are not allowed.",
	CodeCompletionRefused:   "No completion is available for this argument right now.",
}

// PublicMessage is the text an agent or caller sees for c; it never carries
// input. Codes without a message of their own get DefaultPublicMessage.
func (c Code) PublicMessage() string {
	if m, ok := publicMessages[c]; ok {
		return m
	}
	return DefaultPublicMessage
}

// LookupPublicMessage returns c's own public message, if it has one.
func LookupPublicMessage(c Code) (string, bool) {
	m, ok := publicMessages[c]
	return m, ok
}
