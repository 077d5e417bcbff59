package wire

// Reasons of the request-state service (package statekeys) and the
// elicitation guards (package elicit), under the codes STATE_*,
// ELICITATION_* and KEYRING_INVALID. statekeys gives them shorter names of
// its own (statekeys.ReasonAuthFailed is ReasonAuthenticationFailed).
const (
	// Token and key reasons.
	ReasonTokenMalformed       Reason = "token-malformed"
	ReasonTokenTooLarge        Reason = "token-too-large"
	ReasonUnknownKey           Reason = "unknown-key"
	ReasonRetiredKey           Reason = "retired-key"
	ReasonAuthenticationFailed Reason = "authentication-failed"
	ReasonPayloadMalformed     Reason = "payload-malformed"
	ReasonVersionUnsupported   Reason = "version-unsupported"
	ReasonExpired              Reason = "expired"
	ReasonNotYetValid          Reason = "not-yet-valid"
	ReasonReplayed             Reason = "replayed"
	// ReasonTokenAlphabet: a token holds a byte outside its alphabet
	// (mrs1, the key id, base64url without padding); CR and LF among them,
	// which Go's base64 decoders skip.
	ReasonTokenAlphabet Reason = "token-alphabet"
	// ReasonTokenNonCanonical: a token's base64url is not the one spelling
	// of its bytes (non-zero trailing bits).
	ReasonTokenNonCanonical Reason = "token-non-canonical"

	// Binding reasons.
	ReasonSubjectMismatch         Reason = "subject-mismatch"
	ReasonTenantMismatch          Reason = "tenant-mismatch"
	ReasonClientMismatch          Reason = "client-mismatch"
	ReasonMethodMismatch          Reason = "method-mismatch"
	ReasonNameMismatch            Reason = "name-mismatch"
	ReasonArgumentsMismatch       Reason = "arguments-mismatch"
	ReasonArgumentsInvalid        Reason = "arguments-invalid"
	ReasonInputKeysMismatch       Reason = "input-keys-mismatch"
	ReasonSchemaChanged           Reason = "schema-changed"
	ReasonInputRequestChanged     Reason = "input-request-changed"
	ReasonInputRequestsInvalid    Reason = "input-requests-invalid"
	ReasonResponseInvalid         Reason = "response-invalid"
	ReasonResponseActionInvalid   Reason = "response-action-invalid"
	ReasonResponseTooLarge        Reason = "response-too-large"
	ReasonResponseSchemaMismatch  Reason = "response-schema-mismatch"
	ReasonFormPolicyExpired       Reason = "form-policy-expired"
	ReasonURLFlowNotCompleted     Reason = "url-flow-not-completed"
	ReasonURLFlowIdentityMismatch Reason = "url-flow-identity-mismatch"

	// Dependency reasons.
	ReasonStoreFailed  Reason = "store-failed"
	ReasonNoActiveKey  Reason = "no-active-key"
	ReasonRandomFailed Reason = "random-failed"

	// Seal request reasons.
	ReasonIdentityInvalid  Reason = "identity-invalid"
	ReasonMethodNotAllowed Reason = "method-not-allowed"
	ReasonNameInvalid      Reason = "name-invalid"
	ReasonTTLInvalid       Reason = "ttl-invalid"
	ReasonAppStateTooLarge Reason = "app-state-too-large"
	// ReasonRequestMalformed is for a request envelope (for example a NATS
	// message) that does not decode.
	ReasonRequestMalformed Reason = "request-malformed"
	// ReasonRequestInvalidUTF8: a request envelope holds invalid UTF-8 or
	// a lone surrogate escape (which a lenient decoder would turn into
	// U+FFFD, making different subjects bind the same).
	ReasonRequestInvalidUTF8 Reason = "request-invalid-utf8"
	// ReasonRequestDuplicateMember: a request envelope repeats a member
	// name in one object.
	ReasonRequestDuplicateMember Reason = "request-duplicate-member"
	// ReasonRequestUnknownMember: a request envelope has a member that is
	// not exactly one of its documented names (unknown, or in another
	// letter case).
	ReasonRequestUnknownMember Reason = "request-unknown-member"

	// Form elicitation reasons.
	ReasonFormNoPolicy                Reason = "form-no-policy"
	ReasonFormPolicyInvalid           Reason = "form-policy-invalid"
	ReasonFormPolicySignatureInvalid  Reason = "form-policy-signature-invalid"
	ReasonFormNotCovered              Reason = "form-not-covered"
	ReasonFormSchemaInvalid           Reason = "form-schema-invalid"
	ReasonFormFieldNotInPolicy        Reason = "form-field-not-in-policy"
	ReasonFormProhibitedDataClass     Reason = "form-prohibited-data-class"
	ReasonFormDisguisedSensitiveField Reason = "form-disguised-sensitive-field"
	ReasonFormMessageInvalid          Reason = "form-message-invalid"
	// ReasonFormPolicyKeysInvalid: a document of trusted reviewer keys
	// (elicit.ParsePolicyKeys) that does not parse or holds a bad key.
	ReasonFormPolicyKeysInvalid Reason = "form-policy-keys-invalid"

	// URL elicitation reasons.
	ReasonURLInvalid              Reason = "url-invalid"
	ReasonURLNotHTTPS             Reason = "url-not-https"
	ReasonURLCredentials          Reason = "url-credentials"
	ReasonURLSecret               Reason = "url-secret"
	ReasonURLElicitationIDInvalid Reason = "url-elicitation-id-invalid"

	// Key ring reasons.
	ReasonRingMalformed      Reason = "ring-malformed"
	ReasonRingKeyInvalid     Reason = "ring-key-invalid"
	ReasonRingActiveCount    Reason = "ring-active-count"
	ReasonRingDuplicateID    Reason = "ring-duplicate-id"
	ReasonRingStagedCount    Reason = "ring-staged-count"
	ReasonRingFileUnreadable Reason = "ring-file-unreadable"
)

// stateReasons lists the reasons above, in declaration order.
var stateReasons = []Reason{
	ReasonTokenMalformed,
	ReasonTokenTooLarge,
	ReasonUnknownKey,
	ReasonRetiredKey,
	ReasonAuthenticationFailed,
	ReasonPayloadMalformed,
	ReasonVersionUnsupported,
	ReasonExpired,
	ReasonNotYetValid,
	ReasonReplayed,
	ReasonTokenAlphabet,
	ReasonTokenNonCanonical,
	ReasonSubjectMismatch,
	ReasonTenantMismatch,
	ReasonClientMismatch,
	ReasonMethodMismatch,
	ReasonNameMismatch,
	ReasonArgumentsMismatch,
	ReasonArgumentsInvalid,
	ReasonInputKeysMismatch,
	ReasonSchemaChanged,
	ReasonInputRequestChanged,
	ReasonInputRequestsInvalid,
	ReasonResponseInvalid,
	ReasonResponseActionInvalid,
	ReasonResponseTooLarge,
	ReasonResponseSchemaMismatch,
	ReasonFormPolicyExpired,
	ReasonURLFlowNotCompleted,
	ReasonURLFlowIdentityMismatch,
	ReasonStoreFailed,
	ReasonNoActiveKey,
	ReasonRandomFailed,
	ReasonIdentityInvalid,
	ReasonMethodNotAllowed,
	ReasonNameInvalid,
	ReasonTTLInvalid,
	ReasonAppStateTooLarge,
	ReasonRequestMalformed,
	ReasonRequestInvalidUTF8,
	ReasonRequestDuplicateMember,
	ReasonRequestUnknownMember,
	ReasonFormNoPolicy,
	ReasonFormPolicyInvalid,
	ReasonFormPolicySignatureInvalid,
	ReasonFormNotCovered,
	ReasonFormSchemaInvalid,
	ReasonFormFieldNotInPolicy,
	ReasonFormProhibitedDataClass,
	ReasonFormDisguisedSensitiveField,
	ReasonFormMessageInvalid,
	ReasonFormPolicyKeysInvalid,
	ReasonURLInvalid,
	ReasonURLNotHTTPS,
	ReasonURLCredentials,
	ReasonURLSecret,
	ReasonURLElicitationIDInvalid,
	ReasonRingMalformed,
	ReasonRingKeyInvalid,
	ReasonRingActiveCount,
	ReasonRingDuplicateID,
	ReasonRingStagedCount,
	ReasonRingFileUnreadable,
}
