package wire

// Reasons of the kind guards (pipeline/guard*.go): a server message whose
// members are not the kind's, and what the guards decide of the rest.
const (
	// ReasonKindShape: a member the kind reads is missing or of the wrong
	// JSON type (a tools/list without a tools array, a tool without a
	// name, a sampling request without messages) (INVALID_CONTENT).
	ReasonKindShape Reason = "kind-shape"
	// ReasonKindMethod: the method of a request or notification is not one
	// the kind names (a roots-request carrying sampling/createMessage)
	// (INVALID_CONTENT).
	ReasonKindMethod Reason = "kind-method"
	// ReasonKindDecode: the sanitized message could not be read back as
	// strict JSON (a number outside the range of a double) (INVALID_CONTENT).
	ReasonKindDecode Reason = "kind-decode"
	// ReasonKindGuardBytes: the sanitized message of a kind with a guard
	// is over the kind-guard-bytes limit, so the guard cannot hold it to
	// read it (BOUND_EXCEEDED).
	ReasonKindGuardBytes Reason = "kind-guard-bytes"
	// ReasonToolHeld: a tool whose definition differs from its pin was
	// held back from the list by policy pinning: hold (evidence only).
	ReasonToolHeld Reason = "tool-held"
	// ReasonNotificationRate: a server's notifications over the policy's
	// rate were dropped (evidence only, one record per window).
	ReasonNotificationRate Reason = "notification-rate"
)

var kindReasons = []Reason{ReasonKindShape, ReasonKindMethod, ReasonKindDecode, ReasonKindGuardBytes, ReasonToolHeld,
	ReasonNotificationRate}
