package wire

// Reasons of the resource, prompt and completion guards (packages resuri,
// receipt, resgate and promptgate), under the codes RESOURCE_UNAVAILABLE,
// PROMPT_REFUSED and COMPLETION_REFUSED. They reach evidence only: the
// public reply is the code's one message, whatever the reason. resuri and
// receipt spell theirs themselves (they import nothing of ours); a test in
// resgate checks that each is declared here.
const (
	// URI reasons (package resuri).
	ReasonURITooLong          Reason = "uri-too-long"
	ReasonURINUL              Reason = "uri-nul"
	ReasonURISyntax           Reason = "uri-syntax"
	ReasonURIScheme           Reason = "uri-scheme"
	ReasonURIAuthority        Reason = "uri-authority"
	ReasonURIUnknownRoot      Reason = "uri-unknown-root"
	ReasonURIQueryOrFragment  Reason = "uri-query-or-fragment"
	ReasonURIEmptySegment     Reason = "uri-empty-segment"
	ReasonURIDotSegment       Reason = "uri-dot-segment"
	ReasonURIEncodedSeparator Reason = "uri-encoded-separator"
	ReasonURIBackslash        Reason = "uri-backslash"
	ReasonURIBadEncoding      Reason = "uri-bad-encoding"
	ReasonURIDoubleEncoding   Reason = "uri-double-encoding"
	ReasonURIControlChar      Reason = "uri-control-char"
	ReasonURINotNFC           Reason = "uri-not-nfc"
	ReasonURILookalike        Reason = "uri-lookalike-separator"
	ReasonURIAmbiguousSegment Reason = "uri-ambiguous-segment"
	ReasonURITemplate         Reason = "uri-template"

	// Receipt reasons (package receipt).
	ReasonReceiptMalformed     Reason = "receipt-malformed"
	ReasonReceiptUnknownKey    Reason = "receipt-unknown-key"
	ReasonReceiptSignature     Reason = "receipt-signature"
	ReasonReceiptSchemaVersion Reason = "receipt-schema-version"
	ReasonReceiptControl       Reason = "receipt-control"
	ReasonReceiptOutcome       Reason = "receipt-outcome"
	ReasonReceiptOperation     Reason = "receipt-operation"
	ReasonReceiptRoot          Reason = "receipt-root"
	ReasonReceiptPath          Reason = "receipt-path"
	ReasonReceiptPolicyVersion Reason = "receipt-policy-version"
	ReasonReceiptAdapter       Reason = "receipt-adapter"
	ReasonReceiptPlatform      Reason = "receipt-platform"
	ReasonReceiptTooLarge      Reason = "receipt-too-large"
	ReasonReceiptStale         Reason = "receipt-stale"
	ReasonReceiptContent       Reason = "receipt-content"
	ReasonReceiptObject        Reason = "receipt-object"
	ReasonReceiptDigest        Reason = "receipt-digest"

	// Resource gate reasons (package resgate).
	ReasonResourceNoRequest         Reason = "resource-no-request"
	ReasonResourceMalformed         Reason = "resource-malformed"
	ReasonResourceTooLarge          Reason = "resource-too-large"
	ReasonResourceURIMismatch       Reason = "resource-uri-mismatch"
	ReasonResourceAuthzDenied       Reason = "resource-authz-denied"
	ReasonResourceAuthzUnavailable  Reason = "resource-authz-unavailable"
	ReasonResourceReceiptMissing    Reason = "resource-receipt-missing"
	ReasonResourceBrokerUnavailable Reason = "resource-broker-unavailable"

	// Prompt and completion guard reasons (package promptgate).
	ReasonPromptNoRequest             Reason = "prompt-no-request"
	ReasonPromptUnknownName           Reason = "prompt-unknown-name"
	ReasonPromptScope                 Reason = "prompt-scope"
	ReasonPromptUnknownArgument       Reason = "prompt-unknown-argument"
	ReasonPromptMissingArgument       Reason = "prompt-missing-argument"
	ReasonPromptInvalidArgument       Reason = "prompt-invalid-argument"
	ReasonPromptArgumentInjection     Reason = "prompt-argument-injection"
	ReasonPromptMalformed             Reason = "prompt-malformed"
	ReasonPromptRole                  Reason = "prompt-role"
	ReasonPromptMarker                Reason = "prompt-marker"
	ReasonPromptTooLarge              Reason = "prompt-too-large"
	ReasonCompletionNoRequest         Reason = "completion-no-request"
	ReasonCompletionNoPrincipal       Reason = "completion-no-principal"
	ReasonCompletionBudgetSpent       Reason = "completion-budget-spent"
	ReasonCompletionBudgetUnavailable Reason = "completion-budget-unavailable"
	ReasonCompletionUnknownArgument   Reason = "completion-unknown-argument"
	ReasonCompletionScope             Reason = "completion-scope"
	ReasonCompletionInvalidInput      Reason = "completion-invalid-input"
	ReasonCompletionMalformed         Reason = "completion-malformed"
	ReasonCompletionTooLarge          Reason = "completion-too-large"
)

var resourceReasons = []Reason{
	ReasonURITooLong, ReasonURINUL, ReasonURISyntax, ReasonURIScheme, ReasonURIAuthority,
	ReasonURIUnknownRoot, ReasonURIQueryOrFragment, ReasonURIEmptySegment, ReasonURIDotSegment,
	ReasonURIEncodedSeparator, ReasonURIBackslash, ReasonURIBadEncoding, ReasonURIDoubleEncoding,
	ReasonURIControlChar, ReasonURINotNFC, ReasonURILookalike, ReasonURIAmbiguousSegment, ReasonURITemplate,

	ReasonReceiptMalformed, ReasonReceiptUnknownKey, ReasonReceiptSignature, ReasonReceiptSchemaVersion,
	ReasonReceiptControl, ReasonReceiptOutcome, ReasonReceiptOperation, ReasonReceiptRoot, ReasonReceiptPath,
	ReasonReceiptPolicyVersion, ReasonReceiptAdapter, ReasonReceiptPlatform, ReasonReceiptTooLarge,
	ReasonReceiptStale, ReasonReceiptContent, ReasonReceiptObject, ReasonReceiptDigest,

	ReasonResourceNoRequest, ReasonResourceMalformed, ReasonResourceTooLarge, ReasonResourceURIMismatch,
	ReasonResourceAuthzDenied, ReasonResourceAuthzUnavailable, ReasonResourceReceiptMissing,
	ReasonResourceBrokerUnavailable,

	ReasonPromptNoRequest, ReasonPromptUnknownName, ReasonPromptScope, ReasonPromptUnknownArgument,
	ReasonPromptMissingArgument, ReasonPromptInvalidArgument, ReasonPromptArgumentInjection, ReasonPromptMalformed,
	ReasonPromptRole, ReasonPromptMarker, ReasonPromptTooLarge, ReasonCompletionNoRequest, ReasonCompletionNoPrincipal,
	ReasonCompletionBudgetSpent, ReasonCompletionBudgetUnavailable, ReasonCompletionUnknownArgument,
	ReasonCompletionScope, ReasonCompletionInvalidInput, ReasonCompletionMalformed, ReasonCompletionTooLarge,
}
